// The admin UI part of `npm run bench` (docs/admin-ui.md "Lists", docs/benchmarks.md "Admin UI"):
// Debian's chromium, driven by playwright-core, on a list of 10,000 documents served by `fw serve`:
// the first row after opening the list cold, the next page, a typed filter, the group-by counts, the
// jump to the last page and select-all across pages, each timed from the click to what it shows.
// Timings are reported here and never asserted by tests.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import Database from 'better-sqlite3';
import { chromium, type Page } from 'playwright-core';
import { createFwSite, startFw } from './fw-process.js';
import type { FwEntry } from './fw-entry.js';
import { benchDatabase, type ThrowawayDatabase } from './postgres-admin.js';

export interface UiBenchOptions {
  readonly dialects: readonly ('sqlite' | 'postgres')[];
  readonly postgresRequired: boolean;
  readonly pgUrl: string;
}

const ROWS = 10_000;
const DOCTYPE = 'Bench Task';
const STATUSES = ['Open', 'Working', 'Closed', 'Cancelled'];
const CHROMIUM = [process.env.FW_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p): p is string => !!p && existsSync(p));

/** Writes the 10,000 documents straight into the table (the API would take minutes on a loaded machine). */
async function fillTasks(engine: 'sqlite' | 'postgres', dbFile: string | undefined, dbUrl: string | undefined): Promise<void> {
  const table = `tab${DOCTYPE}`;
  const statuses = STATUSES.map((s) => `'${s}'`);
  if (engine === 'sqlite') {
    const db = new Database(dbFile!);
    db.pragma('busy_timeout = 10000');
    db.prepare(
      `insert into "${table}" (name, owner, creation, modified, modified_by, docstatus, idx, subject, status, hours, due)
       with recursive s(i) as (select 1 union all select i + 1 from s where i < ?)
       select printf('TASK-%06d', i), 'Administrator', strftime('%Y-%m-%d %H:%M:%S', '2025-01-01', '+' || i || ' minutes') || '.000000',
              strftime('%Y-%m-%d %H:%M:%S', '2025-01-01', '+' || i || ' minutes') || '.000000', 'Administrator', 0, 0,
              'Task ' || i || ' of the bench', (case i % 4 ${statuses.map((s, k) => `when ${k} then ${s}`).join(' ')} end), i % 97 * 13,
              date('2025-01-01', '+' || (i % 365) || ' days') from s`,
    ).run(ROWS);
    db.close();
    return;
  }
  const client = new pg.Client({ connectionString: dbUrl });
  await client.connect();
  try {
    await client.query(
      `insert into "${table}" (name, owner, creation, modified, modified_by, docstatus, idx, subject, status, hours, due)
       select 'TASK-' || lpad(i::text, 6, '0'), 'Administrator', timestamp '2025-01-01' + i * interval '1 minute',
              timestamp '2025-01-01' + i * interval '1 minute', 'Administrator', 0, 0,
              'Task ' || i || ' of the bench', (array[${statuses.join(',')}])[i % 4 + 1], i % 97 * 13, date '2025-01-01' + (i % 365)
       from generate_series(1, $1::int) as i`,
      [ROWS],
    );
  } finally {
    await client.end();
  }
}

/** Milliseconds from `act` to `done` resolving. */
async function timed(act: () => Promise<unknown>, done: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await act();
  await done();
  return performance.now() - t0;
}

async function driveList(page: Page, origin: string, password: string, log: (line: string) => void, dialect: string): Promise<void> {
  page.setDefaultTimeout(60_000);
  await page.goto(`${origin}/login`);
  await page.getByLabel('Email or user name').fill('Administrator');
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/app$/);
  const total = page.locator('[data-total]');
  // Cold: the list's chunk, its metadata and its settings are fetched for the first time.
  const firstRow = await timed(
    () => page.goto(`${origin}/app/bench-task?limit=20`),
    () => page.locator('tbody tr').first().waitFor(),
  );
  await total.filter({ hasText: 'of 10,000' }).waitFor();
  const groups = await timed(
    async () => undefined,
    () => page.locator('[data-group]').first().waitFor(),
  );
  const nextPage = await timed(
    () => page.getByRole('button', { name: 'Next' }).click(),
    () => total.filter({ hasText: '21–40 of 10,000' }).waitFor(),
  );
  const lastPage = await timed(
    () => page.getByRole('button', { name: 'Last page, 500' }).click(),
    () => total.filter({ hasText: '9,981–10,000 of 10,000' }).waitFor(),
  );
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.getByLabel('Field of filter 1').selectOption('status');
  await page.getByLabel('Value of filter 1').selectOption('Closed');
  const filter = await timed(
    () => page.getByRole('button', { name: 'Apply filters' }).click(),
    () => total.filter({ hasText: '1–20 of 2,500' }).waitFor(),
  );
  const filteredGroups = await timed(
    async () => undefined,
    () => page.locator('[data-group]', { hasText: /Closed\s*2,500/ }).waitFor(),
  );
  await page.getByLabel('Select all rows').check();
  const selectAll = await timed(
    () => page.locator('[data-select-all-matching]').click(),
    () => page.locator('[data-selected-count]', { hasText: '2,500 selected' }).waitFor(),
  );
  const ms = (n: number) => `${n.toFixed(0)} ms`;
  log(
    `  ${dialect}: ${ROWS.toLocaleString('en-US')}-row list in chromium: first row (cold) ${ms(firstRow)}, group-by counts ${ms(groups)} after it, next page ${ms(nextPage)}, ` +
      `last page ${ms(lastPage)}, typed filter (Status = Closed, 2,500 rows) ${ms(filter)} (its group-by counts ${ms(filteredGroups)} after), select-all across pages ${ms(selectAll)}`,
  );
}

/** Runs the UI bench on each dialect asked for; skipped with a notice without chromium or a built UI. */
export async function runUiBench(entry: FwEntry, options: UiBenchOptions, log: (line: string) => void): Promise<void> {
  if (!CHROMIUM) {
    log('  skipped: no chromium found (apt-get install chromium, or set FW_CHROMIUM)');
    return;
  }
  for (const dialect of options.dialects) {
    let db: ThrowawayDatabase | undefined;
    const dir = await mkdtemp(join(tmpdir(), 'fw-bench-ui-'));
    try {
      const found = await benchDatabase(dialect, options, log);
      if (found === 'skip') continue;
      db = found;
      const site = createFwSite(entry, dir, db?.url);
      const started = await startFw(entry, site, { cores: undefined, workers: 1, logLevel: 'warn' });
      if ('unsupported' in started) throw new Error(started.unsupported);
      const { server } = started;
      const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'] });
      try {
        const login = await fetch(`${server.origin}/api/method/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ usr: 'Administrator', pwd: site.adminPassword }),
        });
        const cookie = (login.headers.getSetCookie().find((c) => c.startsWith('sid=')) ?? '').split(';')[0]!;
        const csrf = ((await (await fetch(`${server.origin}/api/method/fw.auth.get_csrf_token`, { headers: { cookie } })).json()) as { message: string })
          .message;
        const res = await fetch(`${server.origin}/api/resource/DocType`, {
          method: 'POST',
          headers: { cookie, 'content-type': 'application/json', 'x-frappe-csrf-token': csrf, origin: server.origin },
          body: JSON.stringify({
            name: DOCTYPE,
            module: 'Desk',
            title_field: 'subject',
            fields: [
              { fieldname: 'subject', label: 'Subject', fieldtype: 'Data' },
              { fieldname: 'status', label: 'Status', fieldtype: 'Select', options: STATUSES.join('\n'), in_list_view: 1, in_standard_filter: 1 },
              { fieldname: 'hours', label: 'Hours', fieldtype: 'Int', in_list_view: 1 },
              { fieldname: 'due', label: 'Due', fieldtype: 'Date', in_list_view: 1 },
            ],
            permissions: [{ role: 'System Manager', read: 1, write: 1, create: 1, delete: 1 }],
          }),
        });
        if (res.status !== 200) throw new Error(`DocType: ${res.status} ${await res.text()}`);
        await fillTasks(dialect, db ? undefined : join(dir, 'site.db'), db?.url);
        const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
        await driveList(await context.newPage(), server.origin, site.adminPassword, log, dialect);
        await context.close();
      } finally {
        await browser.close();
        await server.stop();
      }
    } finally {
      await db?.drop();
      await rm(dir, { recursive: true, force: true });
    }
  }
}
