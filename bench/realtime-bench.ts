// `npm run bench -- --realtime`: live events under load (docs/benchmarks.md, "Realtime").
// N Socket.IO clients subscribe to ToDo while documents are updated at a fixed rate; reports the
// delay from the update's commit to each client's receipt, events lost, and memory per idle socket.
import { mkdtemp, rm } from 'node:fs/promises';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { io, type Socket } from 'socket.io-client';
import { BENCH_USER } from './fw-auth.js';
import { resolveFwEntry } from './fw-entry.js';
import { createFwSite, startFw } from './fw-process.js';
import { percentile } from './stats.js';

/** What the realtime scenario can be told. */
export interface RealtimeBenchOptions {
  readonly sockets: number;
  readonly rate: number;
  readonly seconds: number;
  readonly documents: number;
}

export const REALTIME_USAGE = `npm run bench -- --realtime [--sockets 1000] [--rate 100] [--seconds 20] [--documents 100]`;

/** Parses the flags of the realtime scenario. */
export function parseRealtimeOptions(argv: string[]): RealtimeBenchOptions {
  const { values } = parseArgs({
    args: argv.filter((a) => a !== '--realtime'),
    options: { sockets: { type: 'string' }, rate: { type: 'string' }, seconds: { type: 'string' }, documents: { type: 'string' } },
  });
  const num = (text: string | undefined, fallback: number, flag: string) => {
    const value = text === undefined ? fallback : Number(text);
    if (!Number.isInteger(value) || value < 1) throw new Error(`--${flag} takes a whole number above 0; got "${text}"`);
    return value;
  };
  return {
    sockets: num(values.sockets, 1000, 'sockets'),
    rate: num(values.rate, 100, 'rate'),
    seconds: num(values.seconds, 20, 'seconds'),
    documents: num(values.documents, 100, 'documents'),
  };
}

/** Resident memory of a process in bytes (VmRSS). */
function rssBytes(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) * 1024 : Number.NaN;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function api(origin: string, auth: string, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(origin + path, {
    method,
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/** Connects `count` sockets as the bench user, `batch` at a time. */
async function connectAll(origin: string, auth: string, count: number): Promise<Socket[]> {
  const sockets: Socket[] = [];
  const batch = 50;
  for (let i = 0; i < count; i += batch) {
    const group = Array.from({ length: Math.min(batch, count - i) }, () =>
      io(`${origin}/127.0.0.1`, { transports: ['websocket'], extraHeaders: { authorization: auth }, reconnection: false, forceNew: true }),
    );
    await Promise.all(
      group.map(
        (s) =>
          new Promise<void>((resolve, reject) => {
            s.once('connect', () => resolve());
            s.once('connect_error', reject);
          }),
      ),
    );
    sockets.push(...group);
  }
  return sockets;
}

/** Runs the scenario once and prints its figures; resolves with the exit code. */
export async function runRealtimeBench(argv: string[]): Promise<number> {
  const options = parseRealtimeOptions(argv);
  const log = (line: string) => console.log(line);
  const entry = resolveFwEntry('auto', log);
  const tmp = await mkdtemp(join(tmpdir(), 'fw-bench-rt-'));
  const site = createFwSite(entry, join(tmp, 'site'), undefined);
  // Every client is the bench user: lift the per-user socket limit (50 by default) above their number.
  const configFile = join(site.dir, 'site_config.json');
  const config = JSON.parse(readFileSync(configFile, 'utf8')) as Record<string, unknown>;
  writeFileSync(configFile, JSON.stringify({ ...config, realtime_max_sockets_per_user: options.sockets + 10 }, null, 2));
  const started = await startFw(entry, site, { cores: undefined, workers: 1, logLevel: 'warn' });
  if ('unsupported' in started) throw new Error(started.unsupported);
  const server = started.server;
  const sockets: Socket[] = [];
  try {
    // The documents: ToDos the bench user owns and is allocated, so every event passes its permission check.
    const names: string[] = [];
    for (let i = 0; i < options.documents; i++) {
      const doc = await api(server.origin, server.auth, 'POST', '/api/resource/ToDo', { description: `rt ${i}`, allocated_to: BENCH_USER });
      names.push(doc.data.name as string);
    }

    await sleep(1000);
    const before = rssBytes(server.pid);
    sockets.push(...(await connectAll(server.origin, server.auth, options.sockets)));
    await sleep(3000);
    const after = rssBytes(server.pid);
    const perSocketKB = (after - before) / options.sockets / 1024;
    log(
      `${options.sockets} idle sockets: server RSS ${(before / 2 ** 20).toFixed(1)} -> ${(after / 2 ** 20).toFixed(1)} MB, ${perSocketKB.toFixed(1)} KB per socket`,
    );

    await Promise.all(sockets.map((s) => s.timeout(30_000).emitWithAck('doctype_subscribe', 'ToDo')));

    // When each document's latest update was sent. The commit happens inside that request, so
    // sent -> receipt bounds commit -> receipt from above (the event often arrives before the
    // response). Each document is updated once per round, so one update of it is in flight.
    const sentAt = new Map<string, number>();
    const latencies: number[] = [];
    let received = 0;
    for (const s of sockets) {
      s.on('list_update', (m: { name: string }) => {
        received += 1;
        const t0 = sentAt.get(m.name);
        if (t0 !== undefined) latencies.push(performance.now() - t0);
      });
    }

    const total = options.rate * options.seconds;
    const interval = 1000 / options.rate;
    const start = performance.now();
    let sent = 0;
    let failed = 0;
    let firstFailure = '';
    const inFlight: Promise<void>[] = [];
    for (let i = 0; i < total; i++) {
      const due = start + i * interval;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      const name = names[i % names.length];
      sentAt.set(name, performance.now());
      inFlight.push(
        api(server.origin, server.auth, 'PUT', `/api/resource/ToDo/${name}`, { description: `rt update ${i}` }).then(
          () => {
            sent += 1;
          },
          (err: unknown) => {
            failed += 1;
            firstFailure ||= err instanceof Error ? `${err.message} ${String((err.cause as Error | undefined)?.message ?? '')}` : String(err);
          },
        ),
      );
    }
    await Promise.all(inFlight);
    const achievedRate = sent / ((performance.now() - start) / 1000);
    await sleep(5000);

    const expected = sent * sockets.length;
    const lost = expected - received;
    const positive = latencies.map((l) => Math.max(0, l));
    if (failed > 0) log(`first failed update: ${firstFailure}`);
    log(`updates: ${sent} committed (${failed} failed) at ${achievedRate.toFixed(1)}/s over ${options.seconds} s, ${sockets.length} subscribed sockets`);
    log(
      `update sent -> receipt (bounds commit -> receipt): p50 ${percentile(positive, 50).toFixed(1)} ms, p99 ${percentile(positive, 99).toFixed(1)} ms, max ${percentile(positive, 100).toFixed(1)} ms`,
    );
    log(`events: expected ${expected}, received ${received}, lost ${lost}`);
    log(`server RSS at the end: ${(rssBytes(server.pid) / 2 ** 20).toFixed(1)} MB`);
    return lost === 0 && failed === 0 ? 0 : 1;
  } finally {
    for (const s of sockets) s.disconnect();
    await server.stop();
    await rm(tmp, { recursive: true, force: true });
  }
}
