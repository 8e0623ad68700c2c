import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { testDialects } from '../helpers/dialects.js';
import { assertBuilt, outputOf, REPO, runBin, stopChild } from '../helpers/fw-bin.js';
import { query } from '../helpers/permission-users.js';

/*
 * A large export is streamed at constant memory (docs/import-export.md "Export"): the server runs
 * as its own process (node bin/fw.js serve, one worker) and its peak resident memory is read from
 * /proc from outside, while a client reads the file slowly at first (so backpressure has to hold
 * the rows back) and then fully. The server's old generation is capped at 64 MiB: V8 otherwise
 * lets garbage lie until the heap grows, and the peak would measure its laziness, not what the
 * export holds; with the cap, an export that held its rows would fail outright. The benchmarks
 * measure the same export without the cap (docs/benchmarks.md "Export, import and search").
 */

const ROWS = 1_000_000;
/** The server's peak resident memory, in MiB, that a streamed export of ROWS rows must stay under. */
const PEAK_RSS_MIB = 150;
const DOCTYPE = 'Big Slip';
const PASSWORD = 'Admin-Secret-42';

for (const dialect of testDialects()) {
  describe(`a ${ROWS}-row export at constant memory (${dialect.name})`, () => {
    let dir: string;
    let db: { url: string; drop(): Promise<void> };
    let server: ChildProcess;
    let base: string;
    let auth: string;
    let serverOutput: ReturnType<typeof outputOf>;

    before(async () => {
      assertBuilt();
      dir = await mkdtemp(join(tmpdir(), 'fw-export-'));
      db = await dialect.createUrl();
      const made = await runBin(['new-site', dir, '--db', db.url, '--admin-password', PASSWORD]);
      assert.equal(made.code, 0, made.stderr);
      server = spawn(
        process.execPath,
        ['--max-semi-space-size=4', '--max-old-space-size=64', join(REPO, 'bin', 'fw.js'), 'serve', '--site', dir, '--port', '0', '--workers', '1'],
        {
          cwd: REPO,
          env: { ...process.env, FW_LOG_FORMAT: 'json' },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      serverOutput = outputOf(server);
      const listening = await serverOutput.waitFor(/Server listening at (http:\/\/127\.0\.0\.1:\d+)/, 60_000);
      base = listening[1];
      const login = await fetch(`${base}/api/method/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ usr: 'Administrator', pwd: PASSWORD }),
      });
      const cookie = login.headers
        .getSetCookie()
        .find((c) => c.startsWith('sid='))!
        .split(';')[0];
      const keys = await fetch(`${base}/api/method/fw.core.doctype.user.user.generate_keys`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/json' },
        body: JSON.stringify({ user: 'Administrator' }),
      });
      const { api_key, api_secret } = ((await keys.json()) as { message: { api_key: string; api_secret: string } }).message;
      auth = `token ${api_key}:${api_secret}`;
      const created = await fetch(`${base}/api/resource/DocType`, {
        method: 'POST',
        headers: { authorization: auth, 'content-type': 'application/json' },
        body: JSON.stringify({
          name: DOCTYPE,
          fields: [
            { fieldname: 'title', label: 'Title', fieldtype: 'Data' },
            { fieldname: 'notes', label: 'Notes', fieldtype: 'Small Text' },
            { fieldname: 'amount', label: 'Amount', fieldtype: 'Currency' },
            { fieldname: 'due', label: 'Due', fieldtype: 'Date' },
          ],
          permissions: [{ role: 'System Manager', read: 1, export: 1 }],
        }),
      });
      assert.equal(created.status, 200, await created.text());
      await fillRows(dialect.name, db.url, dir);
    });
    after(async () => {
      if (server) await stopChild(server, 'SIGTERM');
      await db?.drop();
      await rm(dir, { recursive: true, force: true });
    });

    for (const format of ['CSV', 'Excel'] as const) {
      test(`${format}: every row arrives and the server's peak memory stays under ${PEAK_RSS_MIB} MiB`, async () => {
        const res = await fetch(
          base +
            '/api/method/frappe.desk.reportview.export_query' +
            query({ doctype: DOCTYPE, fields: ['name', 'title', 'notes', 'amount', 'due'], file_format_type: format }),
          { headers: { authorization: auth } },
        ).catch((err: unknown) => {
          // Say what became of the server: a fetch error alone does not tell a crash from a reset.
          const state = `server exit ${server.exitCode ?? '-'} signal ${server.signalCode ?? '-'}`;
          throw new Error(`${state}; its output ends:\n${serverOutput.text().slice(-3000)}`, { cause: err });
        });
        assert.equal(res.status, 200);
        const reader = res.body!.getReader();
        let bytes = 0;
        let newlines = 0;
        // A slow client first: with the socket full, only backpressure keeps rows from piling up.
        for (let i = 0; i < 20; i++) {
          const { value } = await reader.read();
          if (value) bytes += value.length;
          if (value && format === 'CSV') for (const b of value) if (b === 10) newlines++;
          await new Promise((r) => setTimeout(r, 50));
        }
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          bytes += value.length;
          if (format === 'CSV') for (const b of value) if (b === 10) newlines++;
        }
        if (format === 'CSV') assert.ok(newlines >= ROWS - 50, `${newlines} lines`);
        // The file is large next to the bound: holding it (or its rows) would break the bound.
        assert.ok(bytes > 20 * 1024 * 1024 || format === 'Excel', `${bytes} bytes`);
        const peak = peakRssMiB(server.pid!);
        assert.ok(peak < PEAK_RSS_MIB, `peak resident memory ${peak.toFixed(1)} MiB`);
      });
    }

    test('a client that leaves mid-file stops the export; the server carries on reading and writing', async () => {
      const abort = new AbortController();
      const res = await fetch(base + '/api/method/frappe.desk.reportview.export_query' + query({ doctype: DOCTYPE, fields: ['name', 'notes'] }), {
        headers: { authorization: auth },
        signal: abort.signal,
      });
      assert.equal(res.status, 200);
      const reader = res.body!.getReader();
      await reader.read();
      abort.abort();
      await reader.read().catch(() => undefined);
      // A write (it needs the writer, which an abandoned cursor must not hold up) and a new export both work.
      const put = await fetch(`${base}/api/resource/${encodeURIComponent(DOCTYPE)}/BIG-0000001`, {
        method: 'PUT',
        headers: { authorization: auth, 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'after the abort' }),
      });
      assert.equal(put.status, 200, await put.text());
      const again = await fetch(
        base + '/api/method/frappe.desk.reportview.export_query' + query({ doctype: DOCTYPE, fields: ['name', 'title'], selected_items: ['BIG-0000001'] }),
        {
          headers: { authorization: auth },
        },
      );
      assert.equal(again.status, 200);
      assert.match(await again.text(), /BIG-0000001,after the abort/);
    });
  });
}

/** VmHWM: the most memory the process has held resident since it started. */
function peakRssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1]);
  return kib / 1024;
}

/** Writes ROWS documents straight into the table (the API would take minutes), each with ~200 characters of text. */
async function fillRows(engine: 'sqlite' | 'postgres', url: string, siteDir: string): Promise<void> {
  const notes = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore. é漢 '.repeat(2);
  if (engine === 'sqlite') {
    const file = url.slice('sqlite:'.length);
    const sqlite = new Database(file.startsWith('/') ? file : join(siteDir, file));
    sqlite.pragma('busy_timeout = 10000');
    sqlite
      .prepare(
        `insert into "tab${DOCTYPE}" (name, owner, creation, modified, modified_by, docstatus, idx, title, notes, amount, due)
         with recursive s(i) as (select 1 union all select i + 1 from s where i < ?)
         select printf('BIG-%07d', i), 'Administrator', strftime('%Y-%m-%d %H:%M:%S', '2025-01-01', '+' || i || ' seconds') || '.000000',
                strftime('%Y-%m-%d %H:%M:%S', '2025-01-01', '+' || i || ' seconds') || '.000000', 'Administrator', 0, 0,
                '=cmd|' || i, ?, i * 0.25, '2025-02-03' from s`,
      )
      .run(ROWS, notes);
    sqlite.close();
    return;
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(
      `insert into "tab${DOCTYPE}" (name, owner, creation, modified, modified_by, docstatus, idx, title, notes, amount, due)
       select 'BIG-' || lpad(i::text, 7, '0'), 'Administrator', timestamp '2025-01-01' + i * interval '1 second',
              timestamp '2025-01-01' + i * interval '1 second', 'Administrator', 0, 0,
              '=cmd|' || i, $2, i * 0.25, '2025-02-03' from generate_series(1, $1::int) as i`,
      [ROWS, notes],
    );
  } finally {
    await client.end();
  }
}
