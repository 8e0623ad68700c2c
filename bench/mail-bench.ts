// The mail part of `npm run bench` (docs/mail.md, docs/benchmarks.md "Mail"): mails delivered per
// second from the queue to a local SMTP sink (10,000 queued; 1,000 with --quick), and the insert
// rate of a DocType with one matching Email Notification over the rate with it disabled (target:
// at least 0.8). In process, per dialect; the sink runs in a process of its own.
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadPrincipal } from '../src/auth/principal.js';
import { startSiteWorker } from '../src/site/site-jobs.js';
import { insertRate, median, openInProcessSite, type InProcessSite } from './in-process-site.js';
import { benchDatabase, type ThrowawayDatabase } from './postgres-admin.js';

export interface MailBenchOptions {
  readonly dialects: readonly ('sqlite' | 'postgres')[];
  readonly postgresRequired: boolean;
  readonly pgUrl: string;
  readonly quick: boolean;
}

/** The sink process and the number of messages it accepted so far. */
interface Sink {
  readonly port: number;
  count(): number;
  /** Resolves once the sink accepted `n` messages in all, or rejects after `timeoutMs`. */
  reach(n: number, timeoutMs: number): Promise<void>;
  stop(): void;
}

async function startSink(): Promise<Sink> {
  const child: ChildProcess = fork(join(dirname(fileURLToPath(import.meta.url)), 'smtp-sink-main.ts'), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let count = 0;
  let waiter: { n: number; resolve: () => void } | undefined;
  const port = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the SMTP sink exited with ${code} before listening`)));
    child.on('message', (m: { port?: number; count?: number }) => {
      if (m.port !== undefined) resolve(m.port);
      if (m.count !== undefined) {
        count = m.count;
        if (waiter && count >= waiter.n) waiter.resolve();
      }
    });
  });
  return {
    port,
    count: () => count,
    reach(n, timeoutMs) {
      if (count >= n) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`the sink received ${count} of ${n} mails in ${timeoutMs / 1000} s`)), timeoutMs);
        waiter = {
          n,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        };
      });
    },
    stop: () => child.disconnect(),
  };
}

/** Queues `total` mails, 500 per transaction, as the Administrator (api.mail.send's path). */
async function queueMails(bench: InProcessSite, total: number): Promise<void> {
  const { site } = bench;
  const admin = await site.db.read((q) => loadPrincipal(q, site.db.dialect, 'Administrator'));
  if (!admin || !site.mail) throw new Error('the site has no Administrator or no mail service');
  const mail = site.mail;
  for (let from = 0; from < total; from += 500) {
    await site.write(admin, async (ctx) => {
      for (let i = from; i < Math.min(total, from + 500); i++) {
        await mail.send(ctx, {
          recipients: [`reader${i % 50}@example.com`],
          subject: `Bench mail ${i}`,
          message: `<p>Mail number <b>${i}</b> of the bench, with a paragraph of text long enough to look like a notification.</p>`,
        });
      }
    });
  }
}

/** Delivery rate: the worker starts on a full queue and the clock stops at the sink's last message. */
async function deliveryBench(bench: InProcessSite, sink: Sink, dialect: string, total: number, log: (line: string) => void): Promise<void> {
  let t0 = performance.now();
  await queueMails(bench, total);
  log(`  ${dialect}: queued ${total} mails in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const before = sink.count();
  t0 = performance.now();
  const jobs = startSiteWorker(bench.site, { concurrency: 4 });
  try {
    await sink.reach(before + total, 600_000);
  } finally {
    await jobs.stop();
  }
  const seconds = (performance.now() - t0) / 1000;
  log(`  ${dialect}: delivered ${total} queued mails to a local SMTP sink in ${seconds.toFixed(1)} s: ${(total / seconds).toFixed(0)} mails/s`);
}

/** Insert rate with one matching Email Notification over the same DocType's rate with it disabled. */
async function notificationBench(bench: InProcessSite, dialect: string, quick: boolean, log: (line: string) => void): Promise<void> {
  await bench.call('POST', '/api/resource/DocType', {
    name: 'Bench Note',
    fields: [
      { fieldname: 'title', label: 'Title', fieldtype: 'Data' },
      { fieldname: 'notes', label: 'Notes', fieldtype: 'Small Text' },
    ],
    permissions: [{ role: 'System Manager', read: 1, write: 1, create: 1 }],
  });
  await bench.call('POST', '/api/resource/Notification', {
    name: 'Bench new note',
    document_type: 'Bench Note',
    event: 'New',
    channel: 'Email',
    enabled: 0,
    subject: 'New note: {{ doc.title }}',
    message: '<p>{{ doc.title }} was written: {{ doc.notes }}</p>',
    recipients: [{ receiver_by_role: 'System Manager' }, { cc: 'watcher@example.com' }],
  });
  const toggle = (enabled: 0 | 1) => bench.call('PUT', '/api/resource/Notification/Bench new note', { enabled });
  const body = (n: number) => ({ title: `note ${n}`, notes: 'some notes' });
  const seconds = quick ? 0.5 : 3;
  await insertRate(bench, 'Bench Note', seconds / 2, body);
  const without: number[] = [];
  const withMail: number[] = [];
  for (let pair = 0; pair < (quick ? 1 : 3); pair++) {
    await toggle(0);
    without.push(await insertRate(bench, 'Bench Note', seconds, body));
    await toggle(1);
    withMail.push(await insertRate(bench, 'Bench Note', seconds, body));
  }
  const queued = await bench.call('GET', '/api/method/frappe.client.get_count?doctype=Email%20Queue');
  const a = median(without);
  const b = median(withMail);
  log(
    `  ${dialect}: inserts ${a.toFixed(0)}/s without a Notification, ${b.toFixed(0)}/s with one matching Email Notification (ratio ${(b / a).toFixed(2)}, target >= 0.8; ${queued.message} mails queued)`,
  );
}

/** Runs the mail bench on each dialect asked for (PostgreSQL skipped when unreachable unless required). */
export async function runMailBench(options: MailBenchOptions, log: (line: string) => void): Promise<void> {
  const sink = await startSink();
  try {
    for (const dialect of options.dialects) {
      const dir = await mkdtemp(join(tmpdir(), 'fw-bench-mail-'));
      let db: ThrowawayDatabase | undefined;
      try {
        const found = await benchDatabase(dialect, options, log);
        if (found === 'skip') continue;
        db = found;
        const bench = await openInProcessSite(dir, db?.url);
        try {
          await bench.call('POST', '/api/resource/Email Account', {
            email_account_name: 'Bench sink',
            email_id: 'robot@example.com',
            enable_outgoing: 1,
            default_outgoing: 1,
            smtp_server: '127.0.0.1',
            smtp_port: sink.port,
            no_smtp_authentication: 1,
          });
          await deliveryBench(bench, sink, dialect, options.quick ? 1000 : 10_000, log);
          await notificationBench(bench, dialect, options.quick, log);
        } finally {
          await bench.close();
        }
      } finally {
        await db?.drop();
        await rm(dir, { recursive: true, force: true });
      }
    }
  } finally {
    sink.stop();
  }
}
