import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FrappeTypeError } from '../../errors/index.js';
import { fieldnameArg, filterArg } from './client-args.js';

describe('filterArg', () => {
  test('a dict or a list, native or JSON text, are filters', () => {
    assert.deepEqual(filterArg({ status: 'Open' }), { filters: { status: 'Open' } });
    assert.deepEqual(filterArg('[["status", "=", "Open"]]'), { filters: [['status', '=', 'Open']] });
    assert.deepEqual(filterArg('{}'), { filters: {} });
  });

  test('plain text, a JSON string and a number are a name, kept as the original text', () => {
    assert.deepEqual(filterArg('abc-123'), { name: 'abc-123' });
    assert.deepEqual(filterArg('"quoted"'), { name: 'quoted' });
    assert.deepEqual(filterArg('3E002'), { name: '3E002' });
    assert.deepEqual(filterArg(42), { name: '42' });
  });

  test('absent values are undefined; text that starts like JSON but breaks is a FrappeTypeError', () => {
    assert.equal(filterArg(undefined), undefined);
    assert.equal(filterArg(''), undefined);
    assert.throws(() => filterArg('[["status"'), FrappeTypeError);
    assert.throws(() => filterArg('{"a":'), FrappeTypeError);
  });
});

describe('fieldnameArg', () => {
  test('a name, a JSON list and a native list are field lists', () => {
    assert.deepEqual(fieldnameArg('status'), ['status']);
    assert.deepEqual(fieldnameArg('["status", "priority"]'), ['status', 'priority']);
    assert.deepEqual(fieldnameArg(['a']), ['a']);
    assert.deepEqual(fieldnameArg('[]'), []);
  });

  test('a dict, native or JSON text, gives its keys', () => {
    assert.deepEqual(fieldnameArg({ status: 1, priority: 1 }), ['status', 'priority']);
    assert.deepEqual(fieldnameArg('{"status": 1}'), ['status']);
  });

  test('broken JSON text and values of no usable shape are a FrappeTypeError', () => {
    assert.throws(() => fieldnameArg('["status"'), FrappeTypeError);
    assert.throws(() => fieldnameArg(12), FrappeTypeError);
    assert.throws(() => fieldnameArg(true), FrappeTypeError);
  });
});
