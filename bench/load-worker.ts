// The load generator's process: runs autocannon for each `run` message from the harness and sends
// back what it measured. A separate process so that `taskset` can keep it off the server's core.
import autocannon, { type AutocannonRequest } from 'autocannon';
import type { FromLoadWorker, LoadRun, SliceResult, ToLoadWorker } from './load-protocol.js';

function send(message: FromLoadWorker): void {
  process.send?.(message);
}

/** autocannon requests for a run; placeholders are filled from counters shared by all connections. */
function buildRequests(run: LoadRun, counter: { seq: number; name: number }): AutocannonRequest[] {
  const nextName = () => {
    const name = run.names[counter.name % run.names.length];
    counter.name += 1;
    return encodeURIComponent(name);
  };
  return run.requests.map((spec) => {
    const headers: Record<string, string> = { ...spec.headers };
    if (spec.body !== undefined) headers['content-type'] = 'application/json';
    const request: AutocannonRequest = { method: spec.method, path: spec.path, headers, body: spec.body };
    if (!spec.path.includes('{{') && !spec.body?.includes('{{')) return request;
    request.setupRequest = (req) => {
      counter.seq += 1;
      const name = spec.path.includes('{{name}}') || spec.body?.includes('{{name}}') ? nextName() : '';
      const fill = (text: string) => text.replaceAll('{{seq}}', String(counter.seq)).replaceAll('{{name}}', name);
      return { ...req, path: fill(spec.path), body: spec.body === undefined ? undefined : fill(spec.body) };
    };
    return request;
  });
}

async function runOnce(run: LoadRun): Promise<SliceResult> {
  const counter = { seq: run.seqStart, name: Math.floor(Math.random() * Math.max(1, run.names.length)) };
  const latenciesMs: number[] = [];
  const started = process.hrtime.bigint();
  const instance = autocannon({
    url: run.origin,
    connections: run.connections,
    duration: run.durationSec,
    timeout: 10,
    pipelining: 1,
    // A run ends on a sample tick; the default 1 s would stretch a 0.5 s slice to 1 s.
    sampleInt: 100,
    requests: buildRequests(run, counter),
  });
  instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
    if (statusCode >= 200 && statusCode < 300) latenciesMs.push(responseTime);
  });
  const result = await instance;
  const elapsedSec = Number(process.hrtime.bigint() - started) / 1e9;
  const statusCodes: Record<string, number> = {};
  for (const [code, stat] of Object.entries(result.statusCodeStats)) statusCodes[code] = stat.count;
  return {
    responses: Object.values(statusCodes).reduce((a, b) => a + b, 0),
    // autocannon's own clock covers exactly the sending window; ours adds connection set-up.
    elapsedSec: result.duration > 0 ? result.duration : elapsedSec,
    latenciesMs,
    errors: result.errors,
    non2xx: result.non2xx,
    statusCodes,
    seqEnd: counter.seq,
  };
}

process.on('message', (message: ToLoadWorker) => {
  if (message.type === 'exit') {
    process.disconnect?.();
    return;
  }
  runOnce(message.run).then(
    (result) => send({ type: 'result', id: message.id, result }),
    (err: unknown) => send({ type: 'failed', id: message.id, message: err instanceof Error ? err.message : String(err) }),
  );
});
send({ type: 'ready' });
