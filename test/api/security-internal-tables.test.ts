import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { SESSIONS_TABLE } from '../../src/auth/auth-tables.js';
import { SERIES_TABLE } from '../../src/documents/naming/naming-series.js';
import { SINGLES_TABLE } from '../../src/documents/singles/single-rows.js';
import { buildApp } from '../../src/http/app.js';
import { openSite } from '../../src/site/open-site.js';
import type { Site } from '../../src/site/site.js';
import { testDialects } from '../helpers/dialects.js';
import { assertError, createDocType, dataOf, insertDoc, resourceUrl, type Json } from '../helpers/document-api.js';
import { query } from '../helpers/permission-users.js';
import { ADMIN_PASSWORD, startTestSite, type TestSite } from '../helpers/test-site.js';
import { sessionFor, whoIs } from '../helpers/user-sessions.js';

/*
 * Issue 14, item 2 (docs/security.md, "Internal tables"): a DocType named Sessions, Singles or
 * Series used to take tabSessions, tabSingles or tabSeries as its table, so a System Manager could
 * list every session id and forge sessions. Internal tables now carry the reserved `__` prefix, a
 * DocType never takes a table it did not create, and opening an older site moves its tables.
 */

type Row = Record<string, unknown>;

async function rows(site: Site, table: string, orderBy: string): Promise<Row[]> {
  const b = site.db.dialect.builder;
  return site.db.read((q) => q.all<Row>(b.selectFrom(table).selectAll().orderBy(orderBy).compile()));
}

async function columnsOf(site: Site, table: string): Promise<string[]> {
  return (await site.db.read((q) => site.db.dialect.listColumns(q, table))).map((c) => c.name);
}

/** Runs DDL/DML on the site's database in one transaction. */
async function runSql(site: Site, statements: Array<{ sql: string; parameters: readonly unknown[] }>): Promise<void> {
  await site.db.transaction(async (q) => {
    for (const s of statements) await q.run(s);
  });
}

for (const dialect of testDialects()) {
  describe(`internal tables are out of the DocType namespace (${dialect.name})`, () => {
    let t: TestSite;
    let adminSid: string;

    before(async () => {
      t = await startTestSite(dialect);
      adminSid = await sessionFor(t.app, 'Administrator', ADMIN_PASSWORD);
    });
    after(() => t.close());

    test('a DocType named Sessions gets a table of its own: no session id is listed, a forged row logs nobody in', async () => {
      await createDocType(t, {
        name: 'Sessions',
        fields: [
          { fieldname: 'sid', label: 'Sid', fieldtype: 'Data' },
          { fieldname: 'user', label: 'User', fieldtype: 'Data' },
          { fieldname: 'expires_at', label: 'Expires', fieldtype: 'Data' },
        ],
      });
      const listed = dataOf(await t.request({ method: 'GET', url: resourceUrl('Sessions') + query({ fields: ['*'], limit_page_length: 0 }) }));
      assert.deepEqual(listed, []);
      const forged = 'f'.repeat(64);
      await insertDoc(t, 'Sessions', { sid: forged, user: 'Administrator', expires_at: String(Date.now() + 3_600_000) });
      assert.equal(await whoIs(t.app, { cookie: `sid=${forged}` }), await whoIs(t.app, {}), 'the forged sid is no session');
      assert.equal(await whoIs(t.app, { cookie: `sid=${adminSid}` }), 'Administrator');
      assert.ok((await columnsOf(t.site, SESSIONS_TABLE)).includes('sid'));
      assert.ok(!(await columnsOf(t.site, SESSIONS_TABLE)).includes('creation'), 'the sessions table took no DocType columns');
    });

    test('DocTypes named Singles and Series leave Single values and series counters alone', async () => {
      const before = { singles: await rows(t.site, SINGLES_TABLE, 'field'), series: await rows(t.site, SERIES_TABLE, 'name') };
      for (const name of ['Singles', 'Series']) {
        await createDocType(t, { name, fields: [{ fieldname: 'doctype_name', label: 'DocType', fieldtype: 'Data' }] });
        assert.deepEqual(dataOf(await t.request({ method: 'GET', url: resourceUrl(name) })), []);
      }
      assert.deepEqual({ singles: await rows(t.site, SINGLES_TABLE, 'field'), series: await rows(t.site, SERIES_TABLE, 'name') }, before);
    });

    test('a DocType whose table exists without being its own is refused with 409, and the table is untouched', async () => {
      await runSql(t.site, [
        { sql: 'create table "tabStray Table" (name varchar(140) primary key, secret text)', parameters: [] },
        { sql: `insert into "tabStray Table" (name, secret) values ('s1', 'kept')`, parameters: [] },
      ]);
      const res = await t.request({
        method: 'POST',
        url: '/api/resource/DocType',
        body: { name: 'Stray Table', permissions: [{ role: 'System Manager' }], fields: [{ fieldname: 'secret', label: 'Secret', fieldtype: 'Data' }] },
      });
      assertError(res, 409, 'DuplicateEntryError');
      assertError(await t.request({ method: 'GET', url: resourceUrl('DocType', 'Stray Table') }), 404, 'DoesNotExistError');
      assert.deepEqual(await columnsOf(t.site, 'tabStray Table'), ['name', 'secret']);
      assert.deepEqual(await rows(t.site, 'tabStray Table', 'name'), [{ name: 's1', secret: 'kept' }]);
    });

    test('a DocType name that differs from an existing one only in case is 409 (SQLite would share its table)', async () => {
      for (const name of ['todo', 'USER', 'sessions']) {
        const body = { name, permissions: [{ role: 'System Manager' }], fields: [{ fieldname: 'x', label: 'X', fieldtype: 'Data' }] };
        assertError(await t.request({ method: 'POST', url: '/api/resource/DocType', body }), 409, 'DuplicateEntryError');
      }
      assert.ok(!(await columnsOf(t.site, 'tabToDo')).includes('x'));
    });
  });

  describe(`opening a site of the older layout moves its internal tables (${dialect.name})`, () => {
    let t: TestSite;
    before(async () => {
      t = await startTestSite(dialect);
    });
    after(() => t.close());

    test('sessions, Single values and counters move under the reserved names; rows a DocType wrote stay with it', async () => {
      const sid = await sessionFor(t.app, 'Administrator', ADMIN_PASSWORD);
      await insertDoc(t, 'ToDo', { description: 'before the move' });
      const singles = await rows(t.site, SINGLES_TABLE, 'field');
      // The older layout: the same tables under tab names. tabSeries was adopted by a DocType
      // "Series" there (it gained `creation`), with one row written through that DocType.
      const b = t.site.db.dialect.builder;
      const text = sql.raw(t.site.db.dialect.columnType({ kind: 'text' }));
      const big = sql.raw(t.site.db.dialect.columnType({ kind: 'bigint' }));
      await t.site.db.transaction(async (q) => {
        await q.run(
          b.schema
            .createTable('tabSessions')
            .addColumn('sid', text, (c) => c.primaryKey())
            .addColumn('user', text)
            .addColumn('created', big)
            .addColumn('last_updated', big)
            .addColumn('expires_at', big)
            .addColumn('ip', text)
            .addColumn('user_agent', text)
            .compile(),
        );
        const sessionColumns = ['sid', 'user', 'created', 'last_updated', 'expires_at', 'ip', 'user_agent'];
        await q.run(b.insertInto('tabSessions').columns(sessionColumns).expression(b.selectFrom(SESSIONS_TABLE).select(sessionColumns)).compile());
        await q.run(b.deleteFrom(SESSIONS_TABLE).compile());
        await q.run(b.schema.createTable('tabSingles').addColumn('doctype', text).addColumn('field', text).addColumn('value', text).compile());
        await q.run(b.insertInto('tabSingles').expression(b.selectFrom(SINGLES_TABLE).selectAll()).compile());
        await q.run(b.deleteFrom(SINGLES_TABLE).compile());
        await q.run(
          b.schema
            .createTable('tabSeries')
            .addColumn('name', text, (c) => c.primaryKey())
            .addColumn('current', big)
            .addColumn('creation', text)
            .compile(),
        );
        await q.run(
          b
            .insertInto('tabSeries')
            .values([
              { name: 'OLD-', current: 41 },
              { name: 'FORGED-', current: 7, creation: '2024-01-01 00:00:00.000000' },
            ])
            .compile(),
        );
      });
      assert.equal(await whoIs(t.app, { cookie: `sid=${sid}` }), await whoIs(t.app, {}), 'the session now lives in the old table only');

      const site = await openSite(t.site.paths.root);
      const app = await buildApp(site);
      try {
        assert.equal(await whoIs(app, { cookie: `sid=${sid}` }), 'Administrator');
        assert.deepEqual(await rows(site, SINGLES_TABLE, 'field'), singles);
        assert.deepEqual(
          (await rows(site, SERIES_TABLE, 'name')).map((r: Json) => [r.name, Number(r.current)]),
          [['OLD-', 41]],
        );
        assert.deepEqual(await columnsOf(site, 'tabSessions'), []);
        assert.deepEqual(await columnsOf(site, 'tabSingles'), []);
        assert.deepEqual(
          (await rows(site, 'tabSeries', 'name')).map((r: Json) => r.name),
          ['FORGED-'],
        );
        const todos = dataOf(await app.inject({ method: 'GET', url: resourceUrl('ToDo') + query({ fields: ['description'] }), cookies: { sid } }));
        assert.deepEqual(todos, [{ description: 'before the move' }]);
      } finally {
        await app.close();
        await site.close();
      }
    });
  });
}
