import { type CpuTime, cpuSince, cpuTime } from './process-cpu.js';
import type { RealtimeClients } from './realtime-clients.js';
import { monotonicMs } from './realtime-protocol.js';

/** The p99 a step must stay under to pass (docs/benchmarks.md, "Realtime"). */
export const P99_GOAL_MS = 50;
/** A step passes only when the server took at least this share of the updates asked of it on time. */
const RATE_KEPT = 0.95;

/** What one step of the realtime bench found. */
export interface StepResult {
  /** Updates per second asked for, and achieved (committed over the sending time). */
  readonly rate: number;
  readonly achievedRate: number;
  readonly seconds: number;
  readonly committed: number;
  readonly failed: number;
  readonly firstFailure: string;
  readonly expected: number;
  readonly received: number;
  readonly lost: number;
  /** Receipts whose update the bench never sent (a sign of reordered commits); counted, not timed. */
  readonly unmatched: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  /** `list_update`s received per second of sending (the step's seconds, or longer when the server fell behind). */
  readonly deliveriesPerSecond: number;
  /** CPU used over the step (its updates, their delivery and the wait for stragglers), in ms; the server's also split. */
  readonly serverCpuMs: number;
  readonly serverCpu: CpuTime;
  readonly clientCpuMs: number;
  readonly windowMs: number;
  readonly passed: boolean;
}

/** Where the updates go and who hears of them; `sends[doc][k]` is when the k-th update of a document was sent. */
export interface StepContext {
  readonly origin: string;
  readonly auth: string;
  readonly names: readonly string[];
  readonly clients: RealtimeClients;
  readonly sockets: number;
  readonly serverPid: number;
  readonly clientPids: readonly number[];
  readonly sends: number[][];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The value below which `p` percent of `sorted` fall (nearest rank). */
function rank(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

async function put(ctx: StepContext, name: string, description: string): Promise<void> {
  const res = await fetch(`${ctx.origin}/api/resource/ToDo/${encodeURIComponent(name)}`, {
    method: 'PUT',
    headers: { authorization: ctx.auth, 'content-type': 'application/json' },
    body: JSON.stringify({ description }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`PUT ${name}: ${res.status} ${text.slice(0, 300)}`);
}

/**
 * Sends `rate` updates a second for `seconds`, cycling through the documents, then collects every
 * client's receipts (waiting up to `drainMs` after the last one came) and times each against its
 * update's send. The send precedes the commit inside that request, so the delay bounds commit ->
 * receipt from above.
 */
export async function runStep(ctx: StepContext, rate: number, seconds: number, drainMs: number): Promise<StepResult> {
  const serverCpu0 = cpuTime([ctx.serverPid]);
  const clientCpu0 = cpuTime(ctx.clientPids);
  const start = monotonicMs();
  const total = Math.round(rate * seconds);
  const interval = 1000 / rate;
  let committed = 0;
  let failed = 0;
  let firstFailure = '';
  const inFlight: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const wait = start + i * interval - monotonicMs();
    if (wait > 0) await sleep(wait);
    const doc = i % ctx.names.length;
    ctx.sends[doc].push(monotonicMs());
    inFlight.push(
      put(ctx, ctx.names[doc], `rt ${rate}/s #${i}`).then(
        () => {
          committed += 1;
        },
        (err: unknown) => {
          failed += 1;
          firstFailure ||= err instanceof Error ? `${err.message} ${String((err.cause as Error | undefined)?.message ?? '')}` : String(err);
        },
      ),
    );
  }
  await Promise.all(inFlight);
  const sendingSeconds = Math.max(seconds, (monotonicMs() - start) / 1000);
  const achievedRate = committed / sendingSeconds;
  const collected = await ctx.clients.collect(committed, drainMs);
  const windowMs = monotonicMs() - start;
  const serverCpu = cpuSince(serverCpu0, cpuTime([ctx.serverPid]));
  const clientCpu = cpuSince(clientCpu0, cpuTime(ctx.clientPids));

  const delays = new Float64Array(collected.count);
  let timed = 0;
  let unmatched = collected.unknown;
  for (const part of collected.parts) {
    for (let i = 0; i < part.count; i++) {
      const sent = ctx.sends[part.doc[i]]?.[part.ordinal[i]];
      if (sent === undefined) unmatched += 1;
      else delays[timed++] = Math.max(0, part.at[i] - sent);
    }
  }
  const sorted = delays.subarray(0, timed).sort();
  const expected = committed * ctx.sockets;
  const received = collected.count;
  const p99 = rank(sorted, 99);
  return {
    rate,
    achievedRate,
    seconds,
    committed,
    failed,
    firstFailure,
    expected,
    received,
    lost: expected - received,
    unmatched,
    p50: rank(sorted, 50),
    p99,
    max: rank(sorted, 100),
    deliveriesPerSecond: received / sendingSeconds,
    serverCpuMs: serverCpu.user + serverCpu.system,
    serverCpu,
    clientCpuMs: clientCpu.user + clientCpu.system,
    windowMs,
    passed: failed === 0 && received === expected && unmatched === 0 && p99 < P99_GOAL_MS && achievedRate >= rate * RATE_KEPT,
  };
}

const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '-');
const int = (n: number) => Math.round(n).toLocaleString('en-US');

/** The steps as a Markdown table: one row each. */
export function stepTable(steps: readonly StepResult[], sockets: number): string {
  const rows = [
    '| updates/s (achieved) | deliveries/s | p50 / p99 / max ms | lost | server CPU | server µs per delivery (user + system) | clients CPU | clients µs per delivery | passed |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const s of steps) {
    const perDelivery = (ms: number) => (s.received > 0 ? (ms * 1000) / s.received : Number.NaN);
    rows.push(
      `| ${s.rate} (${fmt(s.achievedRate)}) x ${sockets} | ${int(s.deliveriesPerSecond)} | ${fmt(s.p50)} / ${fmt(s.p99)} / ${fmt(s.max)} | ${int(s.lost)} of ${int(s.expected)}${s.unmatched ? `, ${s.unmatched} unmatched` : ''}${s.failed ? `, ${s.failed} updates failed` : ''} | ${fmt((s.serverCpuMs / s.windowMs) * 100, 0)}% | ${fmt(perDelivery(s.serverCpuMs))} (${fmt(perDelivery(s.serverCpu.user))} + ${fmt(perDelivery(s.serverCpu.system))}) | ${fmt((s.clientCpuMs / s.windowMs) * 100, 0)}% | ${fmt(perDelivery(s.clientCpuMs))} | ${s.passed ? 'yes' : 'no'} |`,
    );
  }
  return rows.join('\n');
}
