import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { NameError } from '../../errors/index.js';
import { validateName } from './name-validation.js';

const todo = { name: 'ToDo', isSingle: false };

function refuses(meta: { name: string; isSingle: boolean }, name: string): void {
  assert.throws(
    () => validateName(meta, name),
    (err: unknown) => {
      assert.ok(err instanceof NameError, `expected NameError, got ${String(err)}`);
      assert.equal(err.status, 409);
      return true;
    },
  );
}

describe('validateName', () => {
  test('returns the name trimmed', () => {
    assert.equal(validateName(todo, '  abc  '), 'abc');
  });

  test('refuses an empty or blank name with NameError 409', () => {
    refuses(todo, '');
    refuses(todo, '   ');
  });

  test('refuses names containing < or >', () => {
    refuses(todo, 'a<b');
    refuses(todo, 'a>b');
    refuses(todo, '<script>');
  });

  test('refuses names longer than 140 characters and accepts exactly 140', () => {
    assert.equal(validateName(todo, 'x'.repeat(140)), 'x'.repeat(140));
    refuses(todo, 'x'.repeat(141));
  });

  test('counts characters, not UTF-16 units, against the limit', () => {
    const name = '😀'.repeat(140);
    assert.equal(validateName(todo, name), name);
  });

  test("refuses the DocType's own name for a non-single DocType", () => {
    refuses(todo, 'ToDo');
    refuses(todo, ' ToDo ');
  });

  test('lets a single be named after its DocType and lets the DocType "DocType" be named so', () => {
    assert.equal(validateName({ name: 'System Settings', isSingle: true }, 'System Settings'), 'System Settings');
    assert.equal(validateName({ name: 'DocType', isSingle: false }, 'DocType'), 'DocType');
  });

  test('refuses names starting with "New <DocType>"', () => {
    refuses(todo, 'New ToDo');
    refuses(todo, 'New ToDo 3');
  });

  test('accepts slashes, spaces, percent signs and Unicode', () => {
    for (const name of ['a/b/c', 'two words', '100%', 'Größe', '東京', 'a%2Fb']) {
      assert.equal(validateName(todo, name), name);
    }
  });
});
