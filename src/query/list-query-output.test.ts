import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openTestDatabase, testDialects } from '../../test/helpers/dialects.js';
import type { Database } from '../storage/database.js';
import { fixtureRunner, seedFixtures, type FixtureRunner } from './list-query-fixtures.js';

/* The output side of list queries on each dialect: JSON forms, as_dict, aggregates and counts. */

for (const dialect of testDialects()) {
  describe(`list output on ${dialect.name}`, () => {
    let db: Database;
    let drop: () => Promise<void>;
    let run: FixtureRunner['run'];
    let dicts: FixtureRunner['dicts'];
    let count: FixtureRunner['count'];

    before(async () => {
      ({ db, drop } = await openTestDatabase(dialect));
      await seedFixtures(db);
      ({ run, dicts, count } = fixtureRunner(db));
    });
    after(() => drop());

    describe('output', () => {
      test('* returns standard and value columns in their JSON forms, never secrets or tables', async () => {
        const [row] = await dicts({ fields: '*', filters: { name: 'a1' } });
        assert.deepEqual(Object.keys(row), [
          'name',
          'owner',
          'creation',
          'modified',
          'modified_by',
          'docstatus',
          'idx',
          'status',
          'priority',
          'description',
          'allocated_to',
          'date',
          'due',
          'at',
          'amount',
          'count',
          'done',
        ]);
        assert.equal(row.creation, '2025-01-01 00:00:01.000000');
        assert.equal(row.due, '2025-05-14 10:00:00');
        assert.equal(row.at, '09:30:00');
        assert.equal(row.amount, 10.5);
        assert.equal(row.docstatus, 0);
      });
      test('as_dict=0 gives arrays in select order', async () => {
        const rows = await run({ fields: ['name', 'count', 'status'], order_by: 'name', limit_page_length: 2, as_dict: 0 });
        assert.deepEqual(rows, [
          ['a1', 3, 'Open'],
          ['a2', 0, 'Closed'],
        ]);
      });
      test('every requested column is present, null or not', async () => {
        assert.deepEqual(await dicts({ fields: ['name', 'priority', 'date'], filters: { name: 'a3' } }), [{ name: 'a3', priority: null, date: null }]);
      });
      test('a repeated key keeps both values in arrays', async () => {
        const rows = await run({ fields: ['name', 'allocated_to.name'], filters: { name: 'a1' }, as_dict: 'false' });
        assert.deepEqual(rows, [['a1', 'alice']]);
      });
      test('group_by with aggregates counts per group', async () => {
        const rows = await dicts({ fields: ['status', 'count(name) as n', 'sum(count) as total'], group_by: 'status', order_by: 'n desc, status asc' });
        assert.deepEqual(rows, [
          { status: 'Open', n: 2, total: 3 },
          { status: null, n: 1, total: 1 },
          { status: 'Cancelled', n: 1, total: 7 },
          { status: 'Closed', n: 1, total: 0 },
        ]);
      });
      test('an aggregate over the whole table gives one row', async () => {
        assert.deepEqual(await dicts({ fields: [{ COUNT: '*', as: 'n' }], filters: { done: 1 } }), [{ n: 2 }]);
      });
    });

    describe('count', () => {
      test('counts the rows matching filters, or_filters and the restriction', async () => {
        assert.equal(await count({}), 5);
        assert.equal(await count({ filters: { status: 'Open' } }), 2);
        assert.equal(
          await count({
            or_filters: [
              ['status', '=', 'Closed'],
              ['count', '>', 5],
            ],
          }),
          2,
        );
        const restrict = { field: { field: 'owner' }, op: '=' as const, value: 'bob@example.com' };
        assert.equal(await count({}, { restrict }), 2);
      });
      test('counts each document once when filtering on child rows', async () => {
        assert.equal(await count({ filters: [['items.item', 'in', ['x', 'y']]] }), 2);
      });
    });
  });
}
