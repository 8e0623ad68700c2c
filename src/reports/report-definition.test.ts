import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DataError } from '../errors/index.js';
import { createFieldTypeRegistry } from '../meta/field-types/index.js';
import { Meta } from '../meta/meta.js';
import { readReportQuery } from './report-definition.js';

const claim = new Meta(
  {
    name: 'Claim',
    fields: [
      { fieldname: 'title', label: 'Title', fieldtype: 'Data' },
      { fieldname: 'amount', label: 'Amount', fieldtype: 'Int' },
      { fieldname: 'lines', label: 'Lines', fieldtype: 'Table', options: 'Claim Line' },
    ],
  },
  createFieldTypeRegistry(),
);
const children = new Map([['Claim Line', 'lines']]);
const read = (json: unknown) => readReportQuery(claim, typeof json === 'string' ? json : JSON.stringify(json), children);

describe('readReportQuery', () => {
  test('reads the report view’s saved query into list parameters', () => {
    const q = read({
      fields: [
        ['title', 'Claim'],
        ['qty', 'Claim Line'],
      ],
      filters: [['Claim', 'amount', '>', 5, false]],
      order_by: '`tabClaim`.`amount` desc, `tabClaim Line`.`qty`',
      add_totals_row: 1,
    });
    assert.deepEqual(q.fields, [
      { expr: 'title', key: 'title', fieldname: 'title', doctype: 'Claim' },
      { expr: 'lines.qty', key: 'lines_qty', fieldname: 'qty', doctype: 'Claim Line' },
    ]);
    assert.deepEqual(q.filters, [['Claim', 'amount', '>', 5]]);
    assert.equal(q.orderBy, 'amount desc, lines.qty asc');
    assert.equal(q.groupBy, undefined);
    assert.equal(q.addTotalRow, true);
  });

  test('an empty query lists names; sort_by and sort_order are read as the older report view saved them', () => {
    assert.deepEqual(
      read('').fields.map((f) => f.expr),
      ['name'],
    );
    assert.equal(read({ sort_by: 'Claim.amount', sort_order: 'asc', sort_by_next: 'Claim.title', sort_order_next: 'desc' }).orderBy, 'amount asc, title desc');
  });

  test('a group-by is read with its aggregate', () => {
    assert.deepEqual(read({ group_by: { group_by: '`tabClaim`.`title`', aggregate_function: 'SUM', aggregate_on: 'amount' } }).groupBy, {
      field: 'title',
      fn: 'sum',
      on: 'amount',
    });
    assert.deepEqual(read({ group_by: { group_by: 'title', aggregate_function: 'count' } }).groupBy, { field: 'title', fn: 'count', on: undefined });
  });

  const refusals: Array<[string, unknown]> = [
    ['JSON that does not parse', '{nope'],
    ['JSON that is no object', '[1]'],
    ['a field of an unrelated DocType', { fields: [['name', 'User']] }],
    ['a name that is not a field name', { fields: [['title); drop table x; --', 'Claim']] }],
    [
      'the same field twice',
      {
        fields: [
          ['title', 'Claim'],
          ['title', 'Claim'],
        ],
      },
    ],
    ['an order_by on another table', { order_by: '`tabUser`.`name` desc' }],
    ['an aggregate fw does not offer', { group_by: { group_by: 'title', aggregate_function: 'median', aggregate_on: 'amount' } }],
    ['sum without aggregate_on', { group_by: { group_by: 'title', aggregate_function: 'sum' } }],
    ['filters that are no list', { filters: { amount: 5 } }],
  ];
  for (const [what, json] of refusals) {
    test(`refuses ${what} with DataError`, () => {
      assert.throws(() => read(json), DataError);
    });
  }
});
