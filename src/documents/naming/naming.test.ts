import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { InvalidUUIDValue, MandatoryError, NameError, ValidationError } from '../../errors/index.js';
import type { Doc, DocField, DocTypeDef } from '../../meta/doctype.js';
import { createFieldTypeRegistry } from '../../meta/field-types/index.js';
import { Meta } from '../../meta/meta.js';
import type { Database } from '../../storage/database.js';
import { openTestDatabase, testDialects } from '../../../test/helpers/dialects.js';
import { nameDocument, namingRuleOf } from './naming.js';
import { seriesTableStatement } from './naming-series.js';

const registry = createFieldTypeRegistry();
const title: DocField = { fieldname: 'title', label: 'Title', fieldtype: 'Data' };

function meta(name: string, extra: Partial<DocTypeDef> = {}, fields: DocField[] = [title]): Meta {
  return new Meta({ name, fields, ...extra }, registry);
}

const HASH = /^[0-9a-v]{10}$/;

describe('namingRuleOf', () => {
  test('reads autoname keywords and prefixes in any case', () => {
    assert.deepEqual(namingRuleOf(meta('A', { autoname: 'Prompt' })), { kind: 'prompt' });
    assert.deepEqual(namingRuleOf(meta('A', { autoname: 'HASH' })), { kind: 'hash' });
    assert.deepEqual(namingRuleOf(meta('A', { autoname: 'uuid' })), { kind: 'uuid' });
    assert.deepEqual(namingRuleOf(meta('A', { autoname: 'Field: title ' })), { kind: 'field', fieldname: 'title' });
    assert.deepEqual(namingRuleOf(meta('A', { autoname: 'format:X-{####}' })), { kind: 'format', template: 'X-{####}' });
    assert.deepEqual(namingRuleOf(meta('A', { autoname: 'TASK-.####' })), { kind: 'series', pattern: 'TASK-.####' });
  });

  test('falls back on naming_rule when autoname is empty, and on hash when neither decides', () => {
    assert.deepEqual(namingRuleOf(meta('A', { naming_rule: 'Set by user' })), { kind: 'prompt' });
    assert.deepEqual(namingRuleOf(meta('A', { naming_rule: 'Autoincrement' })), { kind: 'autoincrement' });
    assert.deepEqual(namingRuleOf(meta('A', { naming_rule: 'Random' })), { kind: 'hash' });
    assert.deepEqual(namingRuleOf(meta('A', { naming_rule: 'UUID' })), { kind: 'uuid' });
    assert.deepEqual(namingRuleOf(meta('A', { naming_rule: 'By "Naming Series" field' })), { kind: 'naming_series' });
    assert.deepEqual(namingRuleOf(meta('A', { naming_rule: 'By fieldname' })), { kind: 'hash' });
    assert.deepEqual(namingRuleOf(meta('A')), { kind: 'hash' });
    assert.deepEqual(namingRuleOf(meta('A', { autoname: 'no counter here' })), { kind: 'hash' });
  });

  test('lets autoname win over naming_rule', () => {
    assert.deepEqual(namingRuleOf(meta('A', { autoname: 'hash', naming_rule: 'Set by user' })), { kind: 'hash' });
  });
});

for (const dialect of testDialects()) {
  describe(`nameDocument (${dialect.name})`, () => {
    let db: Database;
    let drop: () => Promise<void>;

    before(async () => {
      ({ db, drop } = await openTestDatabase(dialect));
      await db.transaction(async (q) => {
        await q.run(seriesTableStatement(db.dialect));
        await q.run(
          db.dialect.builder.schema
            .createTable('tabInvoice')
            .addColumn('name', sql.raw(db.dialect.columnType({ kind: 'varchar', length: 140 })), (c) => c.primaryKey())
            .addColumn('amended_from', sql.raw(db.dialect.columnType({ kind: 'varchar', length: 140 })))
            .compile(),
        );
      });
    });
    after(() => drop());

    const name = (m: Meta, doc: Doc = {}, opts: { clientName?: unknown; keepClientName?: boolean } = {}) =>
      db.transaction((q) => nameDocument(m, doc, { q, dialect: db.dialect, timeZone: 'UTC' }, opts));

    test('names a single after its DocType whatever the client sent', async () => {
      assert.equal(await name(meta('System Settings', { issingle: 1, autoname: 'Prompt' }), {}, { clientName: 'x' }), 'System Settings');
    });

    test('gives child rows a hash name even when their DocType has another rule', async () => {
      assert.match(await name(meta('Item Row', { istable: 1, autoname: 'field:title' }), { title: 't' }, { clientName: 'x' }), HASH);
    });

    test('makes a hash name by default and ignores a client name', async () => {
      assert.match(await name(meta('Note'), {}, { clientName: 'mine' }), HASH);
      assert.match(await name(meta('Note', { autoname: 'hash' })), HASH);
      assert.match(await name(meta('Note', { naming_rule: 'Random' })), HASH);
    });

    test('keeps the client name of a v2 insert whatever the rule, trimmed', async () => {
      assert.equal(await name(meta('Note'), {}, { clientName: ' mine ', keepClientName: true }), 'mine');
      assert.equal(await name(meta('Doc', { autoname: 'TASK-.####' }), {}, { clientName: 'own', keepClientName: true }), 'own');
    });

    test('falls back on the rule when a v2 insert sends no name', async () => {
      assert.match(await name(meta('Note'), {}, { clientName: '', keepClientName: true }), HASH);
    });

    test('numbers autoincrement documents with decimal strings per DocType', async () => {
      const counter = meta('Counter', { autoname: 'autoincrement' });
      assert.equal(await name(counter), '1');
      assert.equal(await name(counter, {}, { clientName: '77' }), '2');
      assert.equal(await name(meta('Counter B', { naming_rule: 'Autoincrement' })), '1');
    });

    test('continues an autoincrement count after a number a v2 insert chose', async () => {
      const counter = meta('Ticket', { autoname: 'autoincrement' });
      assert.equal(await name(counter, {}, { clientName: 100, keepClientName: true }), '100');
      assert.equal(await name(counter), '101');
    });

    test('takes the trimmed value of the naming field and ignores a client name', async () => {
      const byField = meta('Tag', { autoname: 'field:title' });
      assert.equal(await name(byField, { title: '  urgent  ' }, { clientName: 'other' }), 'urgent');
      const numeric = meta('Code', { autoname: 'field:code' }, [{ fieldname: 'code', label: 'Code', fieldtype: 'Int' }]);
      assert.equal(await name(numeric, { code: 12 }), '12');
    });

    test('refuses an empty naming field with MandatoryError 417 naming its label', async () => {
      const byField = meta('Tag', { autoname: 'field:title' });
      for (const doc of [{}, { title: '   ' }, { title: null }]) {
        await assert.rejects(name(byField, doc), (err: unknown) => {
          assert.ok(err instanceof MandatoryError);
          assert.equal(err.status, 417);
          assert.equal(err.message, 'Title is required');
          return true;
        });
      }
    });

    const seriesField: DocField = {
      fieldname: 'naming_series',
      label: 'Series',
      fieldtype: 'Select',
      options: '\nNS-.YYYY.-\nOTHER-',
    };

    test("names by the document's naming_series with a five-digit counter", async () => {
      const m = meta('Order', { autoname: 'naming_series:' }, [seriesField]);
      const year = new Date().getUTCFullYear();
      const first = await name(m, { naming_series: 'NS-.YYYY.-' });
      assert.ok([`NS-${year}-00001`, `NS-${year + 1}-00001`].includes(first), first);
      assert.equal(await name(m, { naming_series: 'OTHER-' }), 'OTHER-00001');
      assert.equal(await name(m, { naming_series: 'OTHER-' }), 'OTHER-00002');
    });

    test('uses a naming_series that carries its own counter as it is', async () => {
      const m = meta('Order', { autoname: 'naming_series:' }, [seriesField]);
      assert.equal(await name(m, { naming_series: 'OWN-.##' }), 'OWN-01');
    });

    test('falls back on the first series option and records it in the document', async () => {
      const m = meta('Order', { autoname: 'naming_series:' }, [{ ...seriesField, options: '\nDEF-\nOTHER-' }]);
      const doc: Doc = {};
      assert.equal(await name(m, doc), 'DEF-00001');
      assert.equal(doc.naming_series, 'DEF-');
    });

    test('refuses naming_series naming without any series with MandatoryError', async () => {
      const m = meta('Order', { autoname: 'naming_series:' }, [{ ...seriesField, options: '' }]);
      await assert.rejects(name(m, {}), (err: unknown) => err instanceof MandatoryError && err.message === 'Naming Series mandatory');
    });

    test('takes a prompt name from the client, trimmed, and numbers as text', async () => {
      const m = meta('Project', { autoname: 'Prompt' });
      assert.equal(await name(m, {}, { clientName: '  Apollo / 11  ' }), 'Apollo / 11');
      assert.equal(await name(m, {}, { clientName: 42 }), '42');
      assert.equal(await name(meta('Project', { naming_rule: 'Set by user' }), {}, { clientName: 'x' }), 'x');
    });

    test('refuses prompt naming without a name with ValidationError 417', async () => {
      const m = meta('Project', { autoname: 'prompt' });
      for (const clientName of [undefined, null, '', '   ']) {
        await assert.rejects(name(m, {}, { clientName }), (err: unknown) => {
          assert.ok(err instanceof ValidationError);
          assert.equal(err.status, 417);
          assert.equal(err.message, 'Please set the document name');
          return true;
        });
      }
    });

    test('refuses a prompt name that is not text or a number with NameError', async () => {
      await assert.rejects(name(meta('Project', { autoname: 'prompt' }), {}, { clientName: { a: 1 } }), NameError);
    });

    test('validates the name it decides: a prompt name with < is NameError 409', async () => {
      await assert.rejects(name(meta('Project', { autoname: 'prompt' }), {}, { clientName: '<b>x</b>' }), NameError);
      await assert.rejects(name(meta('Project', { autoname: 'prompt' }), {}, { clientName: 'Project' }), NameError);
    });

    test('fills a format: template with fields, date parts and a counter keyed by the text before it', async () => {
      const m = meta('Log', { autoname: 'format:LOG-{title}-{YY}-{###}' });
      const yy = String(new Date().getUTCFullYear() % 100).padStart(2, '0');
      const a = await name(m, { title: 'db' });
      const b = await name(m, { title: 'db' });
      const c = await name(m, { title: 'web' });
      assert.match(a, /^LOG-db-\d\d-001$/);
      assert.ok(a.slice(7, 9) === yy || Number(a.slice(7, 9)) === (Number(yy) + 1) % 100, a);
      assert.match(b, /^LOG-db-\d\d-002$/);
      assert.match(c, /^LOG-web-\d\d-001$/);
    });

    test('makes UUIDv7 names for UUID DocTypes', async () => {
      const m = meta('Event', { autoname: 'UUID' });
      assert.match(await name(m), /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      assert.match(await name(meta('Event', { naming_rule: 'UUID' })), /^[0-9a-f]{8}-[0-9a-f]{4}-7/);
      assert.match(await name(m, {}, { clientName: '  ' }), /^[0-9a-f]{8}-[0-9a-f]{4}-7/);
    });

    test('keeps a client UUID of any version in lower case', async () => {
      const m = meta('Event', { autoname: 'UUID' });
      assert.equal(await name(m, {}, { clientName: '6BA7B810-9DAD-11D1-80B4-00C04FD430C8' }), '6ba7b810-9dad-11d1-80b4-00c04fd430c8');
    });

    test('refuses a client value that is not a UUID with InvalidUUIDValue 417, on v2 inserts too', async () => {
      const m = meta('Event', { autoname: 'UUID' });
      for (const keepClientName of [false, true]) {
        await assert.rejects(name(m, {}, { clientName: 'not-a-uuid', keepClientName }), (err: unknown) => {
          assert.ok(err instanceof InvalidUUIDValue);
          assert.equal(err.status, 417);
          return true;
        });
      }
    });

    test('expands a series expression and shares its counter with every DocType using the prefix', async () => {
      const task = meta('Task', { autoname: 'SHARED-.#####' });
      const issue = meta('Issue', { autoname: 'SHARED-.#####' });
      assert.equal(await name(task, {}, { clientName: 'ignored' }), 'SHARED-00001');
      assert.equal(await name(issue), 'SHARED-00002');
      assert.equal(await name(task), 'SHARED-00003');
    });

    test('resolves the date parts of a series expression into the prefix', async () => {
      const year = new Date().getUTCFullYear();
      const n = await name(meta('Booking', { autoname: 'BK-.YYYY.-.####' }));
      assert.ok([`BK-${year}-0001`, `BK-${year + 1}-0001`].includes(n), n);
    });

    test('refuses a series expression with characters outside the allowed set', async () => {
      await assert.rejects(name(meta('Bad', { autoname: 'BAD;-.####' })), ValidationError);
    });

    const invoice = meta('Invoice', { is_submittable: 1, autoname: 'INV-.#####' }, [
      { fieldname: 'amended_from', label: 'Amended From', fieldtype: 'Link', options: 'Invoice' },
    ]);

    test('names an amendment of a first document <name>-1', async () => {
      await db.transaction((q) => q.run(db.dialect.builder.insertInto('tabInvoice').values({ name: 'INV-00007', amended_from: null }).compile()));
      assert.equal(await name(invoice, { amended_from: 'INV-00007' }), 'INV-00007-1');
    });

    test('raises the counter when amending an amendment', async () => {
      await db.transaction((q) => q.run(db.dialect.builder.insertInto('tabInvoice').values({ name: 'INV-00008-1', amended_from: 'INV-00008' }).compile()));
      assert.equal(await name(invoice, { amended_from: 'INV-00008-1' }), 'INV-00008-2');
    });
  });
}
