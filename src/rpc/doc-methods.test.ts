import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DocMethodRegistry, docMethodArgs } from './doc-methods.js';

describe('DocMethodRegistry', () => {
  const noop = async () => undefined;

  test("a DocType's own method wins over one registered for every DocType", () => {
    const registry = new DocMethodRegistry().register('*', 'greet', noop).register('ToDo', 'greet', noop, { methods: ['POST'] });
    assert.equal(registry.resolve('ToDo', 'greet')?.doctype, 'ToDo');
    assert.equal(registry.resolve('Note', 'greet')?.doctype, '*');
    assert.equal(registry.resolve('ToDo', 'other'), undefined);
  });

  test('defaults: the four default verbs, whitelisted', () => {
    const def = new DocMethodRegistry().register('ToDo', 'm', noop).resolve('ToDo', 'm');
    assert.deepEqual(def?.methods, ['GET', 'POST', 'PUT', 'DELETE']);
    assert.equal(def?.whitelisted, true);
  });
});

describe('docMethodArgs', () => {
  test('a dict, native or JSON text, is spread as keyword arguments', () => {
    assert.deepEqual(docMethodArgs({ a: 1 }), { a: 1 });
    assert.deepEqual(docMethodArgs('{"a": 1}'), { a: 1 });
  });

  test('any other value arrives under args; nothing gives no arguments', () => {
    assert.deepEqual(docMethodArgs('[1, 2]'), { args: [1, 2] });
    assert.deepEqual(docMethodArgs('plain text'), { args: 'plain text' });
    assert.deepEqual(docMethodArgs(7), { args: 7 });
    assert.deepEqual(docMethodArgs(undefined), {});
    assert.deepEqual(docMethodArgs(''), {});
  });
});
