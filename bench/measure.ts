import type { LoadGenerator } from './load-generator.js';
import type { RequestSpec, SliceResult } from './load-protocol.js';
import { waitUntilIdle } from './process-cpu.js';
import { peakRssBytes, resetPeakRss } from './process-memory.js';
import type { ScenarioResult, SideResult, StreamResult } from './report-types.js';
import { LIST_PATH, STREAM_PATH, type Scenario } from './scenarios.js';
import { percentile, spread } from './stats.js';

/** A server under measurement. */
export interface Target {
  readonly origin: string;
  readonly pid: number;
  /** Authorization header value (fw only). */
  readonly auth?: string;
}

/** How long and how hard to measure. */
export interface MeasureSettings {
  readonly connections: number;
  readonly sliceSeconds: number;
  readonly warmupSeconds: number;
  /** Measured slices per server; they alternate fw, baseline, fw, baseline, ... */
  readonly pairs: number;
  /** The longest wait for a server to go idle after a write slice (short in quick mode, where figures mean nothing). */
  readonly idleWaitMs: number;
}

/** Keeps `{{seq}}` values unique over the whole bench run. */
export interface SeqCounter {
  next: number;
}

const MB = 1024 * 1024;
const BUSY_RETRIES = 5;

function withAuth(specs: readonly RequestSpec[], auth: string | undefined): RequestSpec[] {
  return specs.map((s) => (auth ? { ...s, headers: { ...s.headers, authorization: auth } } : s));
}

/** Sends each request of the scenario once with fetch and waits for it; returns the first failure, if any. */
async function check(target: Target, specs: readonly RequestSpec[], names: readonly string[], seq: SeqCounter): Promise<string | undefined> {
  for (const spec of specs) {
    seq.next += 1;
    const fill = (text: string) => text.replaceAll('{{seq}}', String(seq.next)).replaceAll('{{name}}', encodeURIComponent(names[0]));
    const headers: Record<string, string> = { ...spec.headers };
    if (target.auth) headers.authorization = target.auth;
    if (spec.body !== undefined) headers['content-type'] = 'application/json';
    const send = async () => {
      const res = await fetch(target.origin + fill(spec.path), {
        method: spec.method,
        headers,
        body: spec.body === undefined ? undefined : fill(spec.body),
      });
      return { status: res.status, text: await res.text() };
    };
    let res = await send();
    // This request comes on top of the load's connections while the server may still work through
    // requests the load generator abandoned; a server that sheds it with 503 is asked again, as
    // a client would be told to. A 503 during the load itself counts as an error.
    for (let retry = 0; res.status === 503 && retry < BUSY_RETRIES; retry++) {
      await new Promise((r) => setTimeout(r, 1000));
      res = await send();
    }
    if (res.status < 200 || res.status > 299) return `${spec.method} ${spec.path.split('?')[0]} -> ${res.status} ${res.text.slice(0, 300)}`;
  }
  return undefined;
}

function side(slices: SliceResult[], warmups: SliceResult[], peak: number | undefined, failedChecks: string[]): SideResult {
  const rates = slices.map((s) => s.responses / s.elapsedSec);
  const latencies = slices.flatMap((s) => s.latenciesMs);
  const statusCodes: Record<string, number> = {};
  for (const s of [...warmups, ...slices]) {
    for (const [code, n] of Object.entries(s.statusCodes)) statusCodes[code] = (statusCodes[code] ?? 0) + n;
  }
  const errors = [...warmups, ...slices].reduce((n, s) => n + s.errors + s.non2xx, 0) + failedChecks.length;
  return {
    reqPerSecSlices: rates.map((r) => Math.round(r * 10) / 10),
    reqPerSec: spread(rates),
    latencyMs: { p50: percentile(latencies, 50), p99: percentile(latencies, 99) },
    responses: slices.reduce((n, s) => n + s.responses, 0),
    errors,
    statusCodes,
    peakRssMB: peak === undefined ? undefined : peak / MB,
    ...(failedChecks.length ? { sampleError: failedChecks[0] } : {}),
  };
}

/**
 * Measures one scenario on both servers: a warm-up each, then `pairs` short slices alternating fw
 * and baseline, so that drift in the machine's speed hits both alike. The ratio is taken per pair
 * (fw slice / the baseline slice right after it). After every slice the same requests are sent
 * again, once per connection, and awaited: a server answers them only after the requests it had
 * already accepted, so its backlog (queued writes above all, which would also hold the SQLite write
 * lock) never spills into the other server's slice; after a write scenario's slice the harness
 * also waits until the server's CPU is idle, for the work it does after answering (on PostgreSQL
 * each write's realtime message).
 * Those answers double as a check that the scenario works.
 */
export async function measureScenario(
  load: LoadGenerator,
  fw: Target,
  baseline: Target,
  scenario: Scenario,
  names: readonly string[],
  settings: MeasureSettings,
  seq: SeqCounter,
): Promise<ScenarioResult> {
  const failed = new Map<Target, string[]>([
    [fw, []],
    [baseline, []],
  ]);
  const slice = async (target: Target, durationSec: number) => {
    const result = await load.run({
      origin: target.origin,
      connections: settings.connections,
      durationSec,
      requests: withAuth(scenario.requests, target.auth),
      names,
      seqStart: seq.next,
    });
    seq.next = result.seqEnd + 1;
    // As many checks as connections: on PostgreSQL abandoned requests run side by side on the
    // pool rather than in a queue, so only when every check has had its turn are they all done.
    const checks = Array.from({ length: settings.connections }, () => check(target, scenario.requests, names, seq));
    const problem = (await Promise.all(checks)).find((p) => p !== undefined);
    if (problem) failed.get(target)?.push(problem);
    // Work a server does after answering a write (its realtime message) is not done yet either.
    if (scenario.writes) await waitUntilIdle(target.pid, { maxMs: settings.idleWaitMs });
    return result;
  };
  resetPeakRss(fw.pid);
  resetPeakRss(baseline.pid);
  const warmups = [await slice(fw, settings.warmupSeconds), await slice(baseline, settings.warmupSeconds)];
  const fwSlices: SliceResult[] = [];
  const baseSlices: SliceResult[] = [];
  for (let i = 0; i < settings.pairs; i++) {
    fwSlices.push(await slice(fw, settings.sliceSeconds));
    baseSlices.push(await slice(baseline, settings.sliceSeconds));
  }
  const fwSide = side(fwSlices, [warmups[0]], peakRssBytes(fw.pid), failed.get(fw) ?? []);
  const baseSide = side(baseSlices, [warmups[1]], peakRssBytes(baseline.pid), failed.get(baseline) ?? []);
  const ratios = fwSlices.map((s, i) => s.responses / s.elapsedSec / (baseSlices[i].responses / baseSlices[i].elapsedSec));
  return { id: scenario.id, title: scenario.title, fw: fwSide, baseline: baseSide, ratio: spread(ratios) };
}

/**
 * How many rows the list of scenario (b) gives on each server: both must return the same page, or
 * the two are not doing the same work (a seed field fw refused, a permission rule hiding rows).
 */
export async function listRowCounts(fw: Target, baseline: Target): Promise<{ fw: number; baseline: number }> {
  const rows = async (target: Target) => {
    const res = await fetch(target.origin + LIST_PATH, { headers: target.auth ? { authorization: target.auth } : {} });
    const body = (await res.json()) as { data?: unknown[] };
    return res.ok && Array.isArray(body.data) ? body.data.length : -1;
  };
  return { fw: await rows(fw), baseline: await rows(baseline) };
}

/** Fetches the unlimited list once, reading the body as it arrives; counts rows the first time. */
async function fetchAll(target: Target, countRows: boolean): Promise<{ ms: number; bytes: number; rows?: number; error?: string }> {
  const started = performance.now();
  const res = await fetch(target.origin + STREAM_PATH, { headers: target.auth ? { authorization: target.auth } : {} });
  if (!res.ok || !res.body) return { ms: performance.now() - started, bytes: 0, error: `${res.status} ${(await res.text()).slice(0, 300)}` };
  let bytes = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of res.body) {
    bytes += chunk.byteLength;
    if (countRows) chunks.push(Buffer.from(chunk));
  }
  const ms = performance.now() - started;
  if (!countRows) return { ms, bytes };
  const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data?: unknown[] };
  return { ms, bytes, rows: body.data?.length ?? 0 };
}

/**
 * The unlimited list (`limit_page_length=0`) over every row, `repeats` times per server, one
 * request at a time, with each server's peak RSS over those requests.
 */
export async function measureStream(fw: Target, baseline: Target, repeats: number): Promise<StreamResult> {
  const runs = { fw: [] as number[], baseline: [] as number[] };
  const errors = { fw: 0, baseline: 0 };
  let rows = 0;
  let bytes = 0;
  resetPeakRss(fw.pid);
  resetPeakRss(baseline.pid);
  for (let i = 0; i < repeats; i++) {
    for (const [key, target] of [
      ['fw', fw],
      ['baseline', baseline],
    ] as const) {
      const r = await fetchAll(target, i === 0 && key === 'fw');
      if (r.error) {
        errors[key] += 1;
        process.stderr.write(`stream on ${key}: ${r.error}\n`);
        continue;
      }
      runs[key].push(r.ms);
      if (r.rows !== undefined) rows = r.rows;
      if (key === 'fw') bytes = r.bytes;
    }
  }
  const peak = (pid: number) => {
    const b = peakRssBytes(pid);
    return b === undefined ? undefined : b / MB;
  };
  return {
    rows,
    bytes,
    fw: { ms: spread(runs.fw), peakRssMB: peak(fw.pid), errors: errors.fw },
    baseline: { ms: spread(runs.baseline), peakRssMB: peak(baseline.pid), errors: errors.baseline },
  };
}
