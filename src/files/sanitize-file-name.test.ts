import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isStorableName } from './file-url.js';
import { sanitizeFileName, withSuffix } from './sanitize-file-name.js';

describe('sanitizeFileName', () => {
  const cases: Array<[string, unknown, string]> = [
    ['keeps an ordinary name', 'report 2024.pdf', 'report 2024.pdf'],
    ['drops path parts', '../../etc/passwd', 'passwd'],
    ['drops Windows path parts', 'C:\\Users\\me\\notes.txt', 'notes.txt'],
    ['drops leading dots', '.hidden', 'hidden'],
    ['drops several leading dots and spaces', ' ...env', 'env'],
    ['drops control characters', 'a\u0000b\nc.txt', 'abc.txt'],
    ['drops bidirectional overrides that disguise an extension', 'invoice\u202Efdp.exe', 'invoicefdp.exe'],
    ['replaces characters that cut a URL short', 'a?b#c%d.txt', 'a_b_c_d.txt'],
    ['keeps non-ASCII letters', 'Übersicht.pdf', 'Übersicht.pdf'],
    ['gives "file" when nothing is left', '../..', 'file'],
    ['gives "file" for a non-string', undefined, 'file'],
  ];
  for (const [what, input, expected] of cases) {
    test(`${what}: ${JSON.stringify(input)} -> ${expected}`, () => {
      assert.equal(sanitizeFileName(input), expected);
    });
  }

  test('shortens a long name to 120 characters and keeps its extension', () => {
    const name = sanitizeFileName(`${'x'.repeat(300)}.jpeg`);
    assert.equal(name.length, 120);
    assert.ok(name.endsWith('.jpeg'));
  });

  test('every cleaned name is one the store may hold', () => {
    for (const raw of ['../../etc/passwd', '.hidden', ' a ', 'a\tb', '..\\..\\x', '%2e%2e', '#', '']) {
      assert.ok(isStorableName(sanitizeFileName(raw)), raw);
    }
  });
});

describe('withSuffix', () => {
  test('puts the suffix before the extension', () => {
    assert.equal(withSuffix('photo.png', 'a1b2c3'), 'photoa1b2c3.png');
  });

  test('appends the suffix to a name without extension', () => {
    assert.equal(withSuffix('README', 'a1b2c3'), 'READMEa1b2c3');
  });
});
