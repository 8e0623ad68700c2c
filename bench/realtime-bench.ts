// `npm run bench -- --realtime`: live events under load (docs/benchmarks.md, "Realtime").
// One fw server pinned to its own core; Socket.IO clients in separate processes pinned to the
// other, so the figures are the server's. The update rate steps up until the p99 delay from an
// update to each client's receipt passes 50 ms; reports each step, the server's CPU per delivered
// event, and memory per idle socket.
import { mkdtemp, rm } from 'node:fs/promises';
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { BENCH_USER } from './fw-auth.js';
import { resolveFwEntry } from './fw-entry.js';
import { createFwSite, startFw } from './fw-process.js';
import { pinThisProcess, planPinning } from './pinning.js';
import { RealtimeClients } from './realtime-clients.js';
import { monotonicMs, type RealtimeClientKind } from './realtime-protocol.js';
import { P99_GOAL_MS, runStep, type StepContext, type StepResult, stepTable } from './realtime-steps.js';

/** What the realtime scenario can be told. */
export interface RealtimeBenchOptions {
  readonly sockets: number;
  /** Updates per second of each step, in order; `--rate` alone is one step. */
  readonly steps: readonly number[];
  /** Seconds of each step. */
  readonly seconds: number;
  readonly documents: number;
  readonly clientProcesses: number;
  /** The clients: the bench's light one, or socket.io-client (`--client`). */
  readonly client: RealtimeClientKind;
  /** Run every step, not only up to the first that fails. */
  readonly allSteps: boolean;
  /** Where the server writes a CPU profile of the run (`node --cpu-prof`), when given. */
  readonly cpuProf: string | undefined;
}

export const REALTIME_USAGE =
  'npm run bench -- --realtime [--sockets 1000] [--steps 5,10,20,40,80,160] [--rate N] [--seconds 5] [--documents 100] [--client-processes 4] [--client lean|socketio] [--all-steps] [--cpu-prof DIR]';

const DEFAULT_STEPS = [5, 10, 20, 40, 80, 160];

/** Parses the flags of the realtime scenario. */
export function parseRealtimeOptions(argv: string[]): RealtimeBenchOptions {
  const { values } = parseArgs({
    args: argv.filter((a) => a !== '--realtime'),
    options: {
      sockets: { type: 'string' },
      rate: { type: 'string' },
      steps: { type: 'string' },
      seconds: { type: 'string' },
      documents: { type: 'string' },
      'client-processes': { type: 'string' },
      client: { type: 'string' },
      'all-steps': { type: 'boolean' },
      'cpu-prof': { type: 'string' },
    },
  });
  const num = (text: string | undefined, fallback: number, flag: string) => {
    const value = text === undefined ? fallback : Number(text);
    if (!Number.isInteger(value) || value < 1) throw new Error(`--${flag} takes a whole number above 0; got "${text}"`);
    return value;
  };
  const client = values.client ?? 'lean';
  if (client !== 'lean' && client !== 'socketio') throw new Error(`--client is lean or socketio; got "${client}"`);
  if (values.rate !== undefined && values.steps !== undefined) throw new Error('--rate and --steps do not go together: --rate is one step');
  const steps =
    values.steps !== undefined
      ? values.steps.split(',').map((s) => num(s.trim(), 0, 'steps'))
      : values.rate !== undefined
        ? [num(values.rate, 0, 'rate')]
        : DEFAULT_STEPS;
  return {
    sockets: num(values.sockets, 1000, 'sockets'),
    steps,
    // One rate alone runs as long as this scenario always did; a ladder of steps, a few seconds each.
    seconds: num(values.seconds, values.rate !== undefined ? 20 : 5, 'seconds'),
    documents: num(values.documents, 100, 'documents'),
    clientProcesses: num(values['client-processes'], 4, 'client-processes'),
    client,
    allSteps: values['all-steps'] === true,
    cpuProf: values['cpu-prof'],
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

/** The highest step that passed, with what its deliveries cost the server. */
function summary(steps: readonly StepResult[], sockets: number): string {
  const passed = steps.filter((s) => s.passed);
  const best = passed[passed.length - 1];
  if (!best) return `no step kept p99 under ${P99_GOAL_MS} ms with no event lost`;
  const perDelivery = (best.serverCpuMs * 1000) / best.received;
  return (
    `sustained: ${Math.round(best.deliveriesPerSecond).toLocaleString('en-US')} deliveries/s (${best.rate} updates/s x ${sockets} sockets) ` +
    `with p99 ${best.p99.toFixed(1)} ms and no event lost; the server spent ${perDelivery.toFixed(2)} µs of CPU per delivery ` +
    `(${((best.serverCpuMs / best.windowMs) * 100).toFixed(0)}% of a core), its update requests included`
  );
}

/** Runs the scenario once and prints its figures; resolves with the exit code. */
export async function runRealtimeBench(argv: string[]): Promise<number> {
  const options = parseRealtimeOptions(argv);
  const log = (line: string) => console.log(line);
  const pinning = planPinning();
  // The bench process sends the updates: on the clients' core, not the server's.
  const selfPinned = pinThisProcess(pinning.load);
  log(`realtime: ${pinning.note}; client processes and this one (${selfPinned ? 'pinned' : 'not pinned'}) on the load core`);
  log(
    `load average at the start: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(', ')}`,
  );
  const entry = resolveFwEntry('auto', log);
  const tmp = await mkdtemp(join(tmpdir(), 'fw-bench-rt-'));
  const site = createFwSite(entry, join(tmp, 'site'), undefined);
  // Every client is the bench user: lift the per-user socket limit (50 by default) above their number.
  const configFile = join(site.dir, 'site_config.json');
  const config = JSON.parse(readFileSync(configFile, 'utf8')) as Record<string, unknown>;
  writeFileSync(configFile, JSON.stringify({ ...config, realtime_max_sockets_per_user: options.sockets + 10 }, null, 2));
  const started = await startFw(entry, site, {
    cores: pinning.server,
    workers: 1,
    logLevel: 'warn',
    nodeFlags: options.cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${resolve(options.cpuProf)}`] : [],
  });
  if ('unsupported' in started) throw new Error(started.unsupported);
  const server = started.server;
  let clients: RealtimeClients | undefined;
  try {
    // The documents: ToDos the bench user owns and is allocated, so every event passes its permission check.
    const names: string[] = [];
    for (let i = 0; i < options.documents; i++) {
      const doc = await api(server.origin, server.auth, 'POST', '/api/resource/ToDo', { description: `rt ${i}`, allocated_to: BENCH_USER });
      names.push(doc.data.name as string);
    }
    clients = await RealtimeClients.start(options.clientProcesses, options.sockets, pinning.load);
    log(`clock check: client processes' monotonic clocks within ${(await clients.clockSkew(monotonicMs)).toFixed(2)} ms of this one's (IPC delay included)`);

    await sleep(1000);
    const before = rssBytes(server.pid);
    await clients.connect(options.client, `${server.origin}/127.0.0.1`, server.auth, 'ToDo', names);
    await sleep(3000);
    const after = rssBytes(server.pid);
    log(
      `${options.sockets} idle sockets (${options.client === 'lean' ? "the bench's light client" : 'socket.io-client'}) in ${clients.pids.length} processes: server RSS ${(before / 2 ** 20).toFixed(1)} -> ${(after / 2 ** 20).toFixed(1)} MB, ` +
        `${((after - before) / options.sockets / 1024).toFixed(1)} KB per socket`,
    );
    await clients.subscribe();

    const ctx: StepContext = {
      origin: server.origin,
      auth: server.auth,
      names,
      clients,
      sockets: options.sockets,
      serverPid: server.pid,
      clientPids: clients.pids,
      sends: names.map(() => []),
    };
    // A short step first, not counted: the server's and the clients' code paths get compiled.
    const warm = await runStep(ctx, Math.min(...options.steps), 2, 5000);
    log(`warm-up (not counted): ${warm.received} of ${warm.expected} events, p99 ${warm.p99.toFixed(1)} ms`);
    const steps: StepResult[] = [];
    for (const rate of options.steps) {
      const step = await runStep(ctx, rate, options.seconds, 5000);
      steps.push(step);
      log(
        `step ${rate} updates/s: ${Math.round(step.deliveriesPerSecond)} deliveries/s, p50 ${step.p50.toFixed(1)} / p99 ${step.p99.toFixed(1)} ms, ` +
          `lost ${step.lost}, server ${((step.serverCpuMs / step.windowMs) * 100).toFixed(0)}% of a core${step.passed ? '' : ' (failed)'}`,
      );
      if (step.failed > 0) log(`first failed update: ${step.firstFailure}`);
      // Past a failed step the ordinals that match receipts to updates may be off, and the load only grows.
      if (!step.passed && !options.allSteps) break;
    }
    log('');
    log(stepTable(steps, options.sockets));
    log('');
    log(summary(steps, options.sockets));
    log(
      `server RSS at the end: ${(rssBytes(server.pid) / 2 ** 20).toFixed(1)} MB; load average at the end: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(', ')}`,
    );
    return steps.every((s) => s.lost === 0 && s.failed === 0) ? 0 : 1;
  } finally {
    await clients?.close();
    await server.stop();
    await rm(tmp, { recursive: true, force: true });
  }
}
