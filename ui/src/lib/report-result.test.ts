import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { splitReport, totalsOf } from './report-result';

const GROUPED = [
  { fieldname: 'category', label: 'Category', fieldtype: 'Data' },
  { fieldname: '_aggregate_column', label: 'Sum of Amount', fieldtype: 'Float' },
];

describe('report result', () => {
  test("takes the server's own total row when the report adds one", () => {
    const answer = {
      columns: GROUPED,
      add_total_row: 1,
      result: [
        { category: 'a', _aggregate_column: 2 },
        { category: 'Total', _aggregate_column: 2 },
      ],
    };
    assert.deepEqual(splitReport(answer), { rows: [{ category: 'a', _aggregate_column: 2 }], total: { category: 'Total', _aggregate_column: 2 } });
  });

  test('sums a group-by here when the server did not, and labels the first column', () => {
    const rows = [
      { category: 'a', _aggregate_column: 2.5 },
      { category: null, _aggregate_column: 4 },
    ];
    assert.deepEqual(splitReport({ columns: GROUPED, result: rows }), { rows, total: { category: 'Total', _aggregate_column: 6.5 } });
  });

  test('averages Percent columns, leaves averages and text alone, and shows no total without numbers or rows', () => {
    const cols = [
      { fieldname: 'n', label: 'N', fieldtype: 'Int' },
      { fieldname: 'p', label: 'P', fieldtype: 'Percent' },
      { fieldname: 'avg', label: 'Average of Days', fieldtype: 'Float' },
    ];
    assert.deepEqual(
      totalsOf(cols, [
        { n: 1, p: 50, avg: 3 },
        { n: 2, p: 100, avg: 5 },
      ]),
      { n: 3, p: 75 },
    );
    assert.equal(splitReport({ columns: [{ fieldname: 'title', fieldtype: 'Data' }], result: [{ title: 'x' }] }).total, null);
    assert.equal(splitReport({ columns: GROUPED, result: [] }).total, null);
  });
});
