import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSite, openSite } from '../../src/site/open-site.js';
import type { Site } from '../../src/site/site.js';
import { ScratchApps } from '../apps/app-site.js';
import { testDialects } from '../helpers/dialects.js';
import { startFw, type FwProcess } from '../helpers/fw-process.js';
import { ADMIN_PASSWORD } from '../helpers/test-site.js';

/** An app whose job records which process ran it, as a ToDo. */
const RECORDER_APP = `
export default {
  name: 'jobrec',
  register(api) {
    api.jobs.register('jobrec.record', async (args, run) => {
      await run.write((ctx) => api.documents.insert(ctx, 'ToDo', { description: args.tag + '@' + process.pid }));
    });
    api.jobs.schedule('*/2 * * * * *', 'jobrec.every_two_seconds', async (_args, run) => {
      await run.write((ctx) => api.documents.insert(ctx, 'ToDo', { description: 'tick@' + process.pid }));
    });
  },
};
`;

const postgres = testDialects().find((d) => d.name === 'postgres');

describe('fw worker processes sharing one PostgreSQL database', { skip: postgres ? false : 'PostgreSQL not in FW_TEST_DIALECTS' }, () => {
  let dir: string;
  let dbUrl: { url: string; drop(): Promise<void> };
  let apps: ScratchApps;
  let site: Site;
  let workers: FwProcess[] = [];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fw-jobs-proc-'));
    dbUrl = await postgres!.createUrl();
    apps = new ScratchApps();
    const app = await apps.write(RECORDER_APP);
    await createSite(dir, { dbUrl: dbUrl.url, adminPassword: ADMIN_PASSWORD });
    // The site lists the app, so this process and the worker processes all load its handler.
    const config = join(dir, 'site_config.json');
    await writeFile(config, JSON.stringify({ ...JSON.parse(await readFile(config, 'utf8')), apps: [app] }), { mode: 0o600 });
    site = await openSite(dir);
    workers = [0, 1].map(() => startFw(['worker', '--site', dir, '--concurrency', '3'], { FW_SCHEDULER_TICK_MS: '150' }));
    await Promise.all(workers.map((w) => w.waitFor(/worker running jobs/, 180_000)));
  });
  after(async () => {
    await Promise.all(workers.map((w) => w.stop('SIGKILL')));
    await site?.close();
    await dbUrl.drop();
    await apps.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  test('two worker processes run each of 40 jobs exactly once, and stop cleanly on SIGTERM', async () => {
    const tags = Array.from({ length: 40 }, (_, i) => `job-${i}`);
    for (const tag of tags) await site.jobs.enqueue('jobrec.record', { tag });
    const deadline = Date.now() + 60_000;
    let rows: { description: string }[] = [];
    while (Date.now() < deadline) {
      rows = await site.db.read((q) =>
        q.all<{ description: string }>({ sql: `select description from "tabToDo" where description like 'job-%'`, parameters: [] }),
      );
      if (rows.length >= tags.length) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    // Give a duplicate run (the failure this test looks for) time to show up.
    await new Promise((r) => setTimeout(r, 1500));
    rows = await site.db.read((q) =>
      q.all<{ description: string }>({ sql: `select description from "tabToDo" where description like 'job-%'`, parameters: [] }),
    );
    const ran = rows.map((r) => r.description.split('@')[0]).sort();
    assert.deepEqual(ran, [...tags].sort(), 'every job ran, none twice');
    const pids = new Set(rows.map((r) => Number(r.description.split('@')[1])));
    for (const pid of pids)
      assert.ok(
        workers.some((w) => w.child.pid === pid),
        'only the worker processes ran jobs',
      );
    // The schedule both workers watch keeps enqueuing its own runs; only the recorded jobs must be gone.
    const left = await site.db.read((q) => q.all({ sql: `select name from "__fw_job" where handler = 'jobrec.record'`, parameters: [] }));
    assert.deepEqual(left, [], 'every finished job left the queue');
  });

  test('each slot of a schedule both processes watch runs once, recorded in the Scheduled Job Log', async () => {
    const count = async (sql: string) => (await site.db.read((q) => q.all<{ n: number }>({ sql, parameters: [] })))[0].n;
    const deadline = Date.now() + 60_000;
    // fw's own schedules (e.g. the four-minute "all") log their slots too: only the app's are counted.
    const ours = `"tabScheduled Job Log" where scheduled_job_type = 'jobrec.every_two_seconds'`;
    while (Date.now() < deadline && Number(await count(`select count(*) as n from ${ours} and status = 'Complete'`)) < 4) {
      await new Promise((r) => setTimeout(r, 200));
    }
    for (const w of workers) assert.equal(await w.stop('SIGTERM'), 0, w.output());
    const slots = await site.db.read((q) =>
      q.all<{ slot: string; n: number }>({ sql: `select slot, count(*) as n from ${ours} group by slot`, parameters: [] }),
    );
    assert.ok(slots.length >= 4, `several slots ran: ${JSON.stringify(slots)}`);
    assert.ok(
      slots.every((s) => Number(s.n) === 1),
      `no slot twice: ${JSON.stringify(slots)}`,
    );
    const ticks = Number(await count(`select count(*) as n from "tabToDo" where description like 'tick@%'`));
    const complete = Number(await count(`select count(*) as n from ${ours} and status = 'Complete'`));
    assert.equal(ticks, complete, 'each completed slot ran its handler once');
  });
});
