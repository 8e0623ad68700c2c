import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openTestDatabase, testDialects } from '../../test/helpers/dialects.js';
import { DuplicateEntryError } from '../errors/index.js';
import type { Queryable } from '../storage/database.js';
import { withSavepoint } from './savepoint.js';

type TestDatabase = Awaited<ReturnType<typeof openTestDatabase>>;

for (const dialect of testDialects()) {
  describe(`withSavepoint on ${dialect.name}`, () => {
    let t: TestDatabase;
    const insert = (q: Queryable, name: string) => q.run(t.db.dialect.builder.insertInto('sp_items').values({ name }).compile());
    const names = async () => {
      const statement = t.db.dialect.builder.selectFrom('sp_items').select('name').orderBy('name').compile();
      return (await t.db.read((q) => q.all<{ name: string }>(statement))).map((r) => r.name);
    };

    before(async () => {
      t = await openTestDatabase(dialect);
      await t.db.transaction((q) => q.run({ sql: 'create table sp_items (name varchar(20) primary key)', parameters: [] }));
    });
    after(() => t.drop());

    test('a failed statement inside it undoes only its own writes and the transaction goes on', async () => {
      await t.db.transaction(async (q) => {
        await insert(q, 'a');
        await assert.rejects(
          withSavepoint(q, async () => {
            await insert(q, 'b');
            await insert(q, 'a');
          }),
          DuplicateEntryError,
        );
        await withSavepoint(q, () => insert(q, 'c'));
      });
      assert.deepEqual(await names(), ['a', 'c']);
    });

    test('an error thrown by the work itself rolls back to the savepoint and is passed on', async () => {
      await t.db.transaction(async (q) => {
        await assert.rejects(
          withSavepoint(q, async () => {
            await insert(q, 'd');
            throw new Error('refused');
          }),
          /refused/,
        );
        await withSavepoint(q, async () => withSavepoint(q, () => insert(q, 'e')));
      });
      assert.deepEqual(await names(), ['a', 'c', 'e']);
    });
  });
}
