import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openTestDatabase, testDialects } from '../../test/helpers/dialects.js';
import { FwError } from '../errors/index.js';
import type { Database } from '../storage/database.js';
import { fixtureRunner, HOSTILE_TEXT, seedFixtures, type FixtureRunner } from './list-query-fixtures.js';

/*
 * Runs compiled filters, joins and ordering against a real database of each dialect; rows a1..a5
 * are described in list-query-fixtures.ts (a3 holds NULL in every field, a2 empty strings and zeros).
 */

for (const dialect of testDialects()) {
  describe(`list queries on ${dialect.name}`, () => {
    let db: Database;
    let drop: () => Promise<void>;

    before(async () => {
      ({ db, drop } = await openTestDatabase(dialect));
      await seedFixtures(db);
      ({ run, dicts, names } = fixtureRunner(db));
    });
    after(() => drop());

    let run: FixtureRunner['run'];
    let dicts: FixtureRunner['dicts'];
    let names: FixtureRunner['names'];

    describe('= and !=', () => {
      test('= matches the value exactly, case included', async () => {
        assert.deepEqual(await names([['status', '=', 'Open']]), ['a1', 'a3']);
        assert.deepEqual(await names({ priority: 'High' }), ['a1']);
      });
      test('= with an empty value also matches NULL', async () => {
        assert.deepEqual(await names([['priority', '=', '']]), ['a2', 'a3']);
        assert.deepEqual(await names({ status: null }), ['a5']);
        assert.deepEqual(await names([['count', '=', 0]]), ['a2', 'a3']);
        assert.deepEqual(await names([['date', '=', '']]), ['a3']);
      });
      test('!= counts NULL as the empty value, so NULL rows stay', async () => {
        assert.deepEqual(await names([['priority', '!=', 'High']]), ['a2', 'a3', 'a4', 'a5']);
        assert.deepEqual(await names([['count', '!=', 0]]), ['a1', 'a4', 'a5']);
        assert.deepEqual(await names([['priority', '!=', '']]), ['a1', 'a4', 'a5']);
      });
      test('numeric strings compare as numbers', async () => {
        assert.deepEqual(await names([['amount', '=', '10.5']]), ['a1']);
        assert.deepEqual(await names([['done', '=', true]]), ['a1', 'a5']);
      });
    });

    describe('comparisons', () => {
      test('< and <= treat NULL as the empty value', async () => {
        assert.deepEqual(await names([['count', '<', 2]]), ['a2', 'a3', 'a5']);
        assert.deepEqual(await names([['amount', '<=', 0]]), ['a2', 'a3', 'a4']);
        assert.deepEqual(await names([['date', '<', '2025-05-01']]), ['a3', 'a4', 'a5']);
        assert.deepEqual(await names([['due', '<=', '2025-05-14']]), ['a2', 'a3']);
      });
      test('> on numbers treats NULL as zero but > on dates never matches NULL', async () => {
        assert.deepEqual(await names([['count', '>', -1]]), ['a1', 'a2', 'a3', 'a4', 'a5']);
        assert.deepEqual(await names([['date', '>', '0001-01-01']]), ['a1', 'a2', 'a4', 'a5']);
        assert.deepEqual(await names([['date', '>=', '2025-05-14']]), ['a1']);
        assert.deepEqual(await names([['due', '=>', '2025-05-15']]), ['a4', 'a5']);
      });
      test('datetime values in other spellings are normalised', async () => {
        assert.deepEqual(await names([['due', '>', '2025-05-14T09:59:59']]), ['a1', 'a4', 'a5']);
        assert.deepEqual(await names([['modified', '<', '2025-01-01 00:00:02.5']]), ['a1', 'a2']);
      });
      test('time values compare in stored form', async () => {
        assert.deepEqual(await names([['at', '<', '12:00']]), ['a1', 'a3', 'a4']);
      });
    });

    describe('like', () => {
      test('like is case-insensitive and takes the pattern as data', async () => {
        assert.deepEqual(await names([['description', 'like', '%brien%']]), ['a1']);
        assert.deepEqual(await names([['description', 'like', "%O'Brien's%"]]), ['a1']);
      });
      test('a backslash escapes % and _', async () => {
        assert.deepEqual(await names([['description', 'like', '100\\%%']]), ['a5']);
        assert.deepEqual(await names([['description', 'like', '%e\\_t%']]), ['a5']);
        assert.deepEqual(await names([['description', 'like', '%a\\_in%']]), []);
        assert.deepEqual(await names([['description', 'like', '%a_n%']]), ['a2']);
      });
      test('not like keeps NULL rows', async () => {
        assert.deepEqual(await names([['priority', 'not like', 'h%']]), ['a2', 'a3', 'a4']);
      });
      test('like works on non-text columns', async () => {
        assert.deepEqual(await names([['count', 'like', '7']]), ['a4']);
      });
    });

    describe('in and not in', () => {
      test('in takes a list or a comma-separated string', async () => {
        assert.deepEqual(await names([['status', 'in', ['Open', 'Closed']]]), ['a1', 'a2', 'a3']);
        assert.deepEqual(await names([['status', 'in', 'Open, Closed']]), ['a1', 'a2', 'a3']);
        assert.deepEqual(await names([['count', 'in', '0,7']]), ['a2', 'a4']);
      });
      test('in with an empty item also matches NULL', async () => {
        assert.deepEqual(await names([['status', 'in', ['', 'Cancelled']]]), ['a4', 'a5']);
      });
      test('an empty in list matches nothing and an empty not in list everything', async () => {
        assert.deepEqual(await names([['status', 'in', []]]), []);
        assert.deepEqual(await names([['status', 'not in', []]]), ['a1', 'a2', 'a3', 'a4', 'a5']);
      });
      test('not in keeps NULL rows unless the empty value is listed', async () => {
        assert.deepEqual(await names([['status', 'not in', ['Open']]]), ['a2', 'a4', 'a5']);
        assert.deepEqual(await names([['status', 'not in', ['Open', '']]]), ['a2', 'a4']);
      });
      test('a list of bare values filters names', async () => {
        assert.deepEqual(await names(['a4', 'a2', 'zz']), ['a2', 'a4']);
        assert.deepEqual(await names(['a3']), ['a3']);
      });
    });

    describe('is', () => {
      test('set excludes NULL and the empty string; not set is their union', async () => {
        assert.deepEqual(await names([['priority', 'is', 'set']]), ['a1', 'a4', 'a5']);
        assert.deepEqual(await names([['priority', 'is', 'not set']]), ['a2', 'a3']);
      });
      test('on numbers and dates only NULL is not set', async () => {
        assert.deepEqual(await names([['count', 'is', 'set']]), ['a1', 'a2', 'a4', 'a5']);
        assert.deepEqual(await names([['date', 'is', 'not set']]), ['a3']);
      });
    });

    describe('between and date ranges', () => {
      test('between is inclusive on dates, numbers and whole days of datetimes', async () => {
        assert.deepEqual(await names([['date', 'between', ['2025-05-01', '2025-05-14']]]), ['a1', 'a2']);
        assert.deepEqual(await names([['amount', 'between', [0, 10.5]]]), ['a1', 'a2', 'a5']);
        assert.deepEqual(await names([['due', 'between', ['2025-05-10', '2025-05-14']]]), ['a1', 'a2']);
        assert.deepEqual(await names([['creation', 'between', ['2025-01-01', '2025-01-01']]]), ['a1', 'a2', 'a3', 'a4', 'a5']);
      });
      test('a datetime bound keeps its time', async () => {
        assert.deepEqual(await names([['due', 'between', ['2025-05-10 23:59:59.6', '2025-05-14 10:00']]]), ['a1']);
      });
      test('timespan, previous and next select dates around today', async () => {
        assert.deepEqual(await names([['date', 'timespan', 'today']]), ['a1']);
        assert.deepEqual(await names([['due', 'timespan', 'this week']]), ['a1', 'a5']);
        assert.deepEqual(await names([['date', 'previous', '1 month']]), ['a4']);
        assert.deepEqual(await names([['due', 'next', '1 month']]), ['a4']);
        assert.deepEqual(await names([['date', 'timespan', 'last year']]), ['a5']);
      });
    });

    describe('joins', () => {
      test('filters through a Link reach the linked document', async () => {
        assert.deepEqual(await names([['allocated_to.full_name', 'like', 'alice%']]), ['a1', 'a4']);
        // 0 is the empty value, so the row without a link (a3) matches too.
        assert.deepEqual(await names({ 'allocated_to.enabled': 0 }), ['a2', 'a3']);
        assert.deepEqual(await names({ 'allocated_to.enabled': 1 }), ['a1', 'a4', 'a5']);
      });
      test('filters on a child table field match documents with such a row', async () => {
        assert.deepEqual(await names([['items.qty', '>', 1]]), ['a1', 'a2']);
        assert.deepEqual(await names([['ToDo Item', 'item', '=', 'z']]), ['a1']);
        assert.deepEqual(await names([['items.item', '=', 'z']]), []);
      });
      test('a Link target field comes back under its own name or its alias, null when missing', async () => {
        const rows = await dicts({ fields: ['name', 'allocated_to.full_name', 'allocated_to.enabled as on'], order_by: 'name' });
        assert.deepEqual(rows, [
          { name: 'a1', full_name: 'Alice A', on: 1 },
          { name: 'a2', full_name: 'Bob B', on: 0 },
          { name: 'a3', full_name: null, on: null },
          { name: 'a4', full_name: 'Alice A', on: 1 },
          { name: 'a5', full_name: null, on: 1 },
        ]);
      });
      test('child table fields give one row per child row', async () => {
        const rows = await dicts({
          fields: ['name', 'items.item', 'items.qty as q'],
          filters: [['name', 'in', ['a1', 'a2', 'a3']]],
          order_by: 'name asc, q asc',
        });
        assert.deepEqual(rows, [
          { name: 'a1', item: 'x', q: 1 },
          { name: 'a1', item: 'y', q: 2 },
          { name: 'a2', item: 'x', q: 5 },
          { name: 'a3', item: null, q: null },
        ]);
      });
      test('ordering by a linked field works without selecting it', async () => {
        const rows = await dicts({ fields: ['name'], order_by: 'allocated_to.full_name desc, name asc' });
        assert.deepEqual(
          rows.map((r) => r.name),
          ['a2', 'a1', 'a4', 'a3', 'a5'],
        );
      });
    });

    describe('or_filters and restrictions', () => {
      test('or_filters are ORed together and ANDed with filters', async () => {
        assert.deepEqual(
          await names(undefined, {
            or_filters: [
              ['status', '=', 'Closed'],
              ['count', '>', 5],
            ],
          }),
          ['a2', 'a4'],
        );
        assert.deepEqual(await names([['owner', '=', 'bob@example.com']], { or_filters: { status: 'Open', count: ['>', 5] } }), ['a4']);
      });
      test('a restriction from the permission layer is ANDed in', async () => {
        const restrict = { field: { field: 'owner' }, op: '=' as const, value: 'alice@example.com' };
        const rows = await dicts({ order_by: 'name', or_filters: { status: 'Open', priority: 'Low' } }, { restrict });
        assert.deepEqual(
          rows.map((r) => r.name),
          ['a1', 'a3'],
        );
      });
      test('values holding quotes and SQL come back as data and harm nothing', async () => {
        assert.deepEqual(await names([['description', '=', HOSTILE_TEXT]]), ['a4']);
        assert.deepEqual(await names({ name: "a1' or '1'='1" }), []);
        assert.equal((await names(undefined)).length, 5);
      });
    });

    describe('ordering and paging', () => {
      test('the default order is the sort field descending with name as tie-breaker', async () => {
        assert.deepEqual(
          (await dicts({})).map((r) => r.name),
          ['a5', 'a4', 'a3', 'a2', 'a1'],
        );
      });
      test('NULLs sort first ascending and last descending', async () => {
        assert.deepEqual(
          (await dicts({ order_by: 'count asc' })).map((r) => r.name),
          ['a3', 'a2', 'a5', 'a1', 'a4'],
        );
        assert.deepEqual(
          (await dicts({ order_by: 'count desc' })).map((r) => r.name),
          ['a4', 'a1', 'a5', 'a2', 'a3'],
        );
      });
      test('ties are broken by name in the same direction', async () => {
        assert.deepEqual(
          (await dicts({ order_by: 'done desc' })).map((r) => r.name),
          ['a5', 'a1', 'a4', 'a2', 'a3'],
        );
        assert.deepEqual(
          (await dicts({ order_by: 'done' })).map((r) => r.name),
          ['a3', 'a2', 'a4', 'a1', 'a5'],
        );
      });
      test('a term without direction is descending in v2', async () => {
        const rows = (await run({ order_by: 'count' }, { defaultDirection: 'desc' }, { start: 'start', pageLength: ['limit'] })) as Record<string, unknown>[];
        assert.deepEqual(
          rows.map((r) => r.name),
          ['a4', 'a1', 'a5', 'a2', 'a3'],
        );
      });
      test('pages never overlap and an offset works without a limit', async () => {
        const page = async (start: number, length: number) =>
          (await dicts({ order_by: 'name', limit_start: start, limit_page_length: length })).map((r) => r.name);
        assert.deepEqual(await page(0, 2), ['a1', 'a2']);
        assert.deepEqual(await page(2, 2), ['a3', 'a4']);
        assert.deepEqual(await page(4, 2), ['a5']);
        assert.deepEqual(await page(3, 0), ['a4', 'a5']);
      });
    });

    test('a bad value for the column is a DataError, not a database error', async () => {
      for (const filters of [[['count', '=', 'abc']], [['date', '>', '2025-02-30']], [['count', '=', 1.5]], [['at', '=', '25:00']]]) {
        await assert.rejects(run({ filters }), (err: unknown) => err instanceof FwError && err.excType === 'DataError');
      }
    });
  });
}
