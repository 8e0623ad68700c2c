import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { operatorsFor, rowsFromQuery, toApiFilters } from './filters';
import type { DocField } from './session';

const FIELDS: DocField[] = [
  { fieldname: 'title', fieldtype: 'Data' },
  { fieldname: 'pages', fieldtype: 'Int' },
  { fieldname: 'done', fieldtype: 'Check' },
];

describe('filters', () => {
  test('offers comparisons for numbers and dates, timespan for dates only, and = alone for a Check', () => {
    assert.deepEqual(operatorsFor('Int'), ['=', '!=', 'is', '>', '<', '>=', '<=', 'between']);
    assert.deepEqual(operatorsFor('Date'), ['=', '!=', 'is', '>', '<', '>=', '<=', 'between', 'timespan']);
    assert.deepEqual(operatorsFor('Check'), ['=']);
    assert.deepEqual(operatorsFor('Data'), ['=', '!=', 'is', 'like', 'not like', 'in', 'not in']);
    assert.deepEqual(operatorsFor('Select'), ['=', '!=', 'is', 'in', 'not in']);
  });

  test("turns the builder's rows into the API's filters and leaves incomplete rows out", () => {
    const filters = toApiFilters(
      [
        { field: 'title', op: 'like', value: ' dune ' },
        { field: 'title', op: 'not like', value: 'A%' },
        { field: 'title', op: 'in', value: 'a, b,, c' },
        { field: 'pages', op: 'between', value: '10, 20' },
        { field: 'pages', op: '>', value: '5' },
        { field: 'done', op: '=', value: 'true' },
        { field: 'done', op: '=', value: '0' },
        { field: 'title', op: 'is', value: 'not set' },
        { field: 'title', op: 'is', value: 'anything' },
        { field: '', op: '=', value: 'x' },
        { field: 'title', op: '', value: 'x' },
      ],
      FIELDS,
    );
    assert.deepEqual(filters, [
      ['title', 'like', '%dune%'],
      ['title', 'not like', 'A%'],
      ['title', 'in', ['a', 'b', 'c']],
      ['pages', 'between', ['10', '20']],
      ['pages', '>', '5'],
      ['done', '=', 1],
      ['done', '=', 0],
      ['title', 'is', 'not set'],
      ['title', 'is', 'set'],
    ]);
  });

  test('reads the rows back from the URL, unwrapping like patterns and joining lists', () => {
    const raw = JSON.stringify([['title', 'like', '%dune%'], ['title', 'in', ['a', 'b']], ['pages', '>', 5], ['bad row'], [1, '=', 'x']]);
    assert.deepEqual(rowsFromQuery(raw), [
      { field: 'title', op: 'like', value: 'dune' },
      { field: 'title', op: 'in', value: 'a, b' },
      { field: 'pages', op: '>', value: '5' },
    ]);
  });

  test('reads nothing from a missing, malformed or non-list filters parameter', () => {
    for (const raw of [undefined, '', '{nope', '{"title":"x"}', 42]) assert.deepEqual(rowsFromQuery(raw), [], String(raw));
  });
});
