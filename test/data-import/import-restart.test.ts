import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testDialects } from '../helpers/dialects.js';
import { openEventStream, streamOf } from '../helpers/event-stream.js';
import { httpCall } from '../helpers/http-call.js';
import { startServe, type ServeProcess } from '../helpers/serve-process.js';
import { ADMIN_PASSWORD } from '../helpers/test-site.js';
import { wireAdmin } from '../helpers/wire-admin.js';

const MODULE = 'frappe.core.doctype.data_import.data_import';
const BULK = 'Imp Bulk';
const ROWS = 1500;

/** Waits until `check` answers a value, polling; fails after `timeoutMs`. */
async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

for (const dialect of testDialects()) {
  describe(`an import survives the server being killed in the middle (${dialect.name})`, () => {
    let dir: string;
    let db: { url: string; drop(): Promise<void> };
    const servers: ServeProcess[] = [];
    before(async () => {
      dir = await mkdtemp(join(tmpdir(), 'fw-import-restart-'));
      db = await dialect.createUrl();
    });
    after(async () => {
      for (const s of servers) await s.kill();
      await db.drop();
      await rm(dir, { recursive: true, force: true });
    });

    test('kill -9 mid-import: a new server resumes within the lease and no document is written twice', { timeout: 420_000 }, async () => {
      const env = { FW_ADMIN_PASSWORD: ADMIN_PASSWORD };
      const site = ['--site', join(dir, 'site'), '--db', db.url];
      const first = await startServe(site, { workers: 1, env });
      servers.push(first);
      const admin = await wireAdmin(first.baseUrl, ADMIN_PASSWORD);
      const headers = { authorization: admin.authorization };
      const call = (base: string, method: 'GET' | 'POST', path: string, body?: unknown) => httpCall(base, { method, path, headers, body });

      const created = await call(first.baseUrl, 'POST', '/api/resource/DocType', {
        name: BULK,
        fields: [{ fieldname: 'title', label: 'Title', fieldtype: 'Data', reqd: 1 }],
        permissions: [{ role: 'System Manager' }],
      });
      assert.equal(created.status, 200, created.text);
      const lines = ['Title', ...Array.from({ length: ROWS }, (_, i) => `row-${String(i).padStart(5, '0')}`)];
      const form = new FormData();
      form.set('file', new Blob([lines.join('\n')]), 'bulk.csv');
      form.set('is_private', '1');
      const upload = await fetch(`${first.baseUrl}/api/method/upload_file`, { method: 'POST', headers, body: form });
      assert.equal(upload.status, 200, await upload.clone().text());
      const fileUrl = ((await upload.json()) as { message: { file_url: string } }).message.file_url;
      const made = await call(first.baseUrl, 'POST', '/api/resource/Data Import', {
        reference_doctype: BULK,
        import_type: 'Insert New Records',
        import_file: fileUrl,
      });
      assert.equal(made.status, 200, made.text);
      const name = (made.json().data as { name: string }).name;

      const events = streamOf(await openEventStream(`${first.baseUrl}/api/v2/realtime`, headers));
      await events.next('ready');
      const started = await call(first.baseUrl, 'POST', `/api/method/${MODULE}.form_start_import`, { data_import: name });
      assert.equal(started.json().message, true, started.text);
      const status = async (base: string) =>
        (await call(base, 'GET', `/api/method/${MODULE}.get_import_status?data_import_name=${encodeURIComponent(name)}`)).json().message as Record<string, any>;

      const progress = await events.next('data_import_progress', (d) => d.data_import === name, 30_000);
      assert.equal(progress.data.total, ROWS);
      assert.equal(typeof progress.data.current, 'number');
      assert.equal(progress.data.success, true);
      const again = await call(first.baseUrl, 'POST', `/api/method/${MODULE}.form_start_import`, { data_import: name });
      assert.equal(again.json().message, false, 'a second start while the import runs is refused');
      await eventually(async () => ((await status(first.baseUrl)).success >= 100 ? true : undefined), 60_000, 'some documents written');
      events.close();
      await first.stop('SIGKILL', 10_000);

      const second = await startServe(site, { workers: 1, env });
      servers.push(second);
      const before = await status(second.baseUrl);
      assert.equal(before.status, 'Pending');
      assert.ok(before.success < ROWS, `killed in the middle (${before.success} of ${ROWS} written)`);
      // The killed slice's lease runs out (its 30 s timeout plus the worker's 30 s margin), then the import goes on.
      const done = await eventually(
        async () => {
          const s = await status(second.baseUrl);
          return s.status === 'Pending' ? undefined : s;
        },
        240_000,
        'the import to finish',
      );
      assert.deepEqual(
        { status: done.status, success: done.success, failed: done.failed, total: done.total_records },
        { status: 'Success', success: ROWS, failed: 0, total: ROWS },
      );

      const counted = await call(second.baseUrl, 'GET', `/api/method/frappe.client.get_count?doctype=${encodeURIComponent(BULK)}`);
      assert.equal(counted.json().message, ROWS, 'every row once, none twice');
      const titles = await call(
        second.baseUrl,
        'GET',
        `/api/resource/${encodeURIComponent(BULK)}?fields=${encodeURIComponent('["title"]')}&limit_page_length=0`,
      );
      assert.equal(titles.status, 200, titles.text);
      assert.equal(new Set((titles.json().data as { title: string }[]).map((r) => r.title)).size, ROWS);
      const logs = await call(second.baseUrl, 'GET', `/api/method/frappe.client.get_count?doctype=${encodeURIComponent('Data Import Log')}`);
      assert.equal(logs.json().message, ROWS, 'one log row per document');
      assert.equal((await second.stop('SIGTERM', 20_000)).code, 0);
    });
  });
}
