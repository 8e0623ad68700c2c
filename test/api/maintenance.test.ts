import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { testDialects } from '../helpers/dialects.js';
import { assertV2Error } from '../helpers/error-envelope.js';
import { assertError, createDocType, dataOf, insertDoc, resourceUrl, storedCount, v2Url } from '../helpers/document-api.js';
import { runBin } from '../helpers/fw-bin.js';
import { eventually } from '../helpers/raw-http.js';
import { callMethod, messageOf } from '../helpers/method-calls.js';
import { ADMIN_PASSWORD, startTestSite, type TestSite } from '../helpers/test-site.js';
import { login, sidOf } from '../helpers/user-sessions.js';

/*
 * docs/configuration.md "Maintenance": site_config.json's maintenance_mode and
 * allow_reads_during_maintenance, looked at again when the site folder reports a change, so a
 * running server follows an edit (or `fw maintenance on|off`) without a restart. Writes answer 503 InReadOnlyMode while reads go on;
 * without reads every request answers 503 SessionStopped.
 */

const NOTE = 'Maint Note';

/** Edits site_config.json as the CLI does: the other keys kept, the file replaced by a rename. */
async function setMaintenance(t: TestSite, keys: Record<string, unknown>): Promise<void> {
  const file = t.site.paths.config;
  const config = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
  delete config.maintenance_mode;
  delete config.allow_reads_during_maintenance;
  await writeFile(`${file}.tmp`, JSON.stringify({ ...config, ...keys }, null, 2));
  await rename(`${file}.tmp`, file);
  await followed(t, keys.maintenance_mode === true);
}

/** The server notices a change of the file through a watch of the site folder: a moment later. */
async function followed(t: TestSite, on: boolean): Promise<void> {
  await eventually(async () => t.site.maintenance.current.on === on, `the running server never saw maintenance ${on ? 'on' : 'off'}`);
}

for (const dialect of testDialects()) {
  describe(`maintenance mode (${dialect.name})`, () => {
    let t: TestSite;
    let kept: string;

    before(async () => {
      t = await startTestSite(dialect);
      await createDocType(t, { name: NOTE, fields: [{ fieldname: 'title', label: 'Title', fieldtype: 'Data' }] });
      kept = String((await insertDoc(t, NOTE, { title: 'before' })).name);
    });
    after(async () => {
      await setMaintenance(t, {});
      await t.close();
    });

    test('with reads allowed: reads (also by POST) and logins go on, every write is a 503 InReadOnlyMode that stores nothing', async () => {
      await setMaintenance(t, { maintenance_mode: true, allow_reads_during_maintenance: true });
      const count = await storedCount(t, NOTE);
      assert.equal(dataOf(await t.request({ method: 'GET', url: resourceUrl(NOTE, kept) })).title, 'before');
      assert.equal(dataOf(await t.request({ method: 'GET', url: v2Url(NOTE) })).length, count);
      assert.equal(messageOf(await callMethod(t, 'POST', 'frappe.client.get_list', { doctype: NOTE })).length, count);
      assertError(await t.request({ method: 'POST', url: resourceUrl(NOTE), body: { title: 'during' } }), 503, 'InReadOnlyMode');
      assertError(await t.request({ method: 'PUT', url: resourceUrl(NOTE, kept), body: { title: 'changed' } }), 503, 'InReadOnlyMode');
      assertError(await t.request({ method: 'DELETE', url: resourceUrl(NOTE, kept) }), 503, 'InReadOnlyMode');
      assertV2Error(await t.request({ method: 'PATCH', url: v2Url(NOTE, kept), body: { title: 'v2' } }), 503, 'InReadOnlyMode');
      assertError(await callMethod(t, 'POST', 'frappe.client.set_value', { doctype: NOTE, name: kept, fieldname: 'title', value: 'x' }), 503, 'InReadOnlyMode');
      assert.equal(await storedCount(t, NOTE), count);
      assert.equal(dataOf(await t.request({ method: 'GET', url: resourceUrl(NOTE, kept) })).title, 'before');
      const session = await login(t.app, 'Administrator', ADMIN_PASSWORD);
      assert.equal(session.statusCode, 200, session.body);
      assert.ok(sidOf(session));
    });

    test('without reads every request is a 503 SessionStopped, login too; off again serves writes at once', async () => {
      await setMaintenance(t, { maintenance_mode: true });
      assertError(await t.request({ method: 'GET', url: resourceUrl(NOTE, kept) }), 503, 'SessionStopped');
      assertV2Error(await t.request({ method: 'GET', url: v2Url(NOTE, kept) }), 503, 'SessionStopped');
      assertError(await login(t.app, 'Administrator', ADMIN_PASSWORD), 503, 'SessionStopped');
      assertError(await t.request({ method: 'POST', url: resourceUrl(NOTE), body: { title: 'x' } }), 503, 'SessionStopped');
      await setMaintenance(t, {});
      assert.equal(dataOf(await t.request({ method: 'POST', url: resourceUrl(NOTE), body: { title: 'after' } })).title, 'after');
    });

    test('fw maintenance on|off edits site_config.json, keeps its other keys, and the running server follows', async () => {
      const dir = t.site.paths.root;
      const before = JSON.parse(await readFile(t.site.paths.config, 'utf8')) as Record<string, unknown>;
      const on = await runBin(['maintenance', 'on', '--allow-reads', '--site', dir]);
      assert.equal(on.code, 0, on.stderr);
      assert.match(on.stdout, /writes answer 503/);
      const edited = JSON.parse(await readFile(t.site.paths.config, 'utf8')) as Record<string, unknown>;
      assert.deepEqual(edited, { ...before, maintenance_mode: true, allow_reads_during_maintenance: true });
      await followed(t, true);
      assertError(await t.request({ method: 'POST', url: resourceUrl(NOTE), body: { title: 'cli' } }), 503, 'InReadOnlyMode');
      const status = await runBin(['maintenance', 'status', '--site', dir]);
      assert.match(status.stdout, /maintenance on/);
      const off = await runBin(['maintenance', 'off', '--site', dir]);
      assert.equal(off.code, 0, off.stderr);
      assert.deepEqual(JSON.parse(await readFile(t.site.paths.config, 'utf8')), before);
      await followed(t, false);
      assert.equal(dataOf(await t.request({ method: 'POST', url: resourceUrl(NOTE), body: { title: 'cli' } })).title, 'cli');
      const bad = await runBin(['maintenance', 'sideways', '--site', dir]);
      assert.equal(bad.code, 2);
      assert.equal((await runBin(['maintenance', 'off', '--allow-reads', '--site', dir])).code, 2);
    });
  });
}
