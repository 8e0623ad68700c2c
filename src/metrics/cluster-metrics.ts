import cluster, { type Worker } from 'node:cluster';
import { randomUUID } from 'node:crypto';
import { AggregatorRegistry, type Registry } from 'prom-client';

/** A worker asking the primary for every worker's metrics, and the primary's answer. */
interface MetricsMessage {
  readonly fwMetrics: 'ask' | 'answer';
  readonly id: string;
  readonly text?: string;
}

function isMetricsMessage(message: unknown): message is MetricsMessage {
  const m = message as Partial<MetricsMessage> | null;
  return typeof m === 'object' && m !== null && (m.fwMetrics === 'ask' || m.fwMetrics === 'answer') && typeof m.id === 'string';
}

/** How long a worker waits for the primary's answer before it answers its own numbers alone. */
const ASK_TIMEOUT_MS = 6_000;

/**
 * The primary's part of `/metrics` under `fw serve --workers N` (docs/deployment.md "Metrics"): a
 * worker serving a scrape asks here, and prom-client's AggregatorRegistry collects every live
 * worker's registry over the cluster's IPC channel; the text goes back to the asking worker. Each
 * series keeps its `worker` label, so one scrape shows every worker. Returns the function that
 * stops answering.
 */
export function serveClusterMetrics(): () => void {
  const aggregator = new AggregatorRegistry();
  const onMessage = (worker: Worker, message: unknown) => {
    if (!isMetricsMessage(message) || message.fwMetrics !== 'ask') return;
    // A failed collection (a worker that did not answer in time) is answered with no text: the
    // asking worker then answers its own numbers rather than none.
    void aggregator
      .clusterMetrics()
      .then(
        (text) => text,
        () => undefined,
      )
      .then((text) => {
        const answer: MetricsMessage = { fwMetrics: 'answer', id: message.id, ...(text === undefined ? {} : { text }) };
        if (worker.isConnected()) worker.send(answer, undefined, () => undefined);
      });
  };
  cluster.on('message', onMessage);
  return () => cluster.off('message', onMessage);
}

let enrolled = false;

/**
 * In a cluster worker, offers `registry` to the primary's collections (prom-client answers the
 * primary's requests itself once an AggregatorRegistry exists in the process). Outside a cluster it
 * does nothing. A process serves one site, so the latest registry is the one offered.
 */
export function offerToCluster(registry: Registry): void {
  if (!cluster.isWorker) return;
  if (!enrolled) {
    new AggregatorRegistry();
    enrolled = true;
  }
  AggregatorRegistry.setRegistries([registry]);
}

/**
 * Every worker's metrics as one text, asked of the primary; undefined when this process is no
 * cluster worker, the primary is gone, or it did not answer in time (the caller answers its own).
 */
export function clusterMetricsText(): Promise<string | undefined> {
  if (!cluster.isWorker || !process.connected || !process.send) return Promise.resolve(undefined);
  const id = randomUUID();
  return new Promise((resolve) => {
    const done = (text: string | undefined) => {
      clearTimeout(timer);
      process.off('message', onMessage);
      resolve(text);
    };
    const onMessage = (message: unknown) => {
      if (isMetricsMessage(message) && message.fwMetrics === 'answer' && message.id === id) done(message.text);
    };
    const timer = setTimeout(() => done(undefined), ASK_TIMEOUT_MS);
    process.on('message', onMessage);
    const ask: MetricsMessage = { fwMetrics: 'ask', id };
    process.send!(ask, undefined, undefined, (err) => {
      if (err) done(undefined);
    });
  });
}
