import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { describeVersion } from './version-words';

describe('version words', () => {
  test('names the docstatus change, fields by label, and child rows', () => {
    const data = JSON.stringify({
      changed: [
        ['docstatus', 0, 1],
        ['title', 'a', 'b'],
        ['qty', null, 3],
        ['note', '<b>old</b>', ''],
      ],
      added: [['items', {}]],
      row_changed: [['items', 0, 'x', []]],
    });
    assert.deepEqual(describeVersion(data, { title: 'Title', qty: 'Quantity', items: 'Items' }), [
      'submitted',
      'changed Title from “a” to “b”',
      'set Quantity to “3”',
      'cleared note (was “old”)',
      'added a row to Items',
      'changed row 1 of Items',
    ]);
    assert.deepEqual(describeVersion({ changed: [['docstatus', 1, 2]] }, {}), ['cancelled']);
    assert.deepEqual(describeVersion('not json', {}), []);
  });
});
