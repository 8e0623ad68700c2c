import cluster, { type Worker } from 'node:cluster';
import { serveClusterMetrics } from '../metrics/cluster-metrics.js';
import { relayRealtimeBetweenWorkers } from '../realtime/bus/cluster-relay.js';
import type { ProcessLog } from './process-log.js';
import { RestartBackoff } from './restart-backoff.js';

/** Options of runClusterPrimary. */
export interface ClusterPrimaryOptions {
  /** Worker processes to keep running. */
  readonly workers: number;
  readonly log: ProcessLog;
  /** How long workers may take to finish their requests after a stop signal before they are killed; default 30 s. */
  readonly stopTimeoutMs?: number;
  readonly backoff?: RestartBackoff;
  /** Called once, when every first worker listens, with the port they share (the terminal banner). */
  readonly onReady?: (port: number) => void;
}

const STOP_SIGNALS = ['SIGTERM', 'SIGINT'] as const;
const DEFAULT_STOP_TIMEOUT_MS = 30_000;

/** The fields naming a worker in log lines. */
function ids(worker: Worker): Record<string, unknown> {
  return { worker: worker.id, workerPid: worker.process.pid };
}

/** How a worker ended, for the log. */
function describeExit(code: number | null, signal: string | null): string {
  return signal ? `was killed by ${signal}` : `exited with code ${code}`;
}

/**
 * The primary of `fw serve --workers N`. It forks N workers, each of which runs this same command
 * again (cluster.isWorker) and serves on the shared port; node's cluster hands connections out in
 * turn. A worker that dies while the cluster runs is replaced after a backoff; one that dies
 * before every first worker has listened ends the cluster with 1, since the same fault (port taken,
 * database gone) would kill its replacement too. SIGTERM or SIGINT asks every worker to stop
 * gracefully and resolves with 0 once all have exited; a second signal, or the stop timeout,
 * kills them and resolves with 1.
 */
export function runClusterPrimary(options: ClusterPrimaryOptions): Promise<number> {
  const { log } = options;
  const stopTimeoutMs = options.stopTimeoutMs ?? DEFAULT_STOP_TIMEOUT_MS;
  const backoff = options.backoff ?? new RestartBackoff();
  const live = new Map<number, Worker>();
  const starting = new Set<number>();
  const restarts = new Set<NodeJS.Timeout>();
  let startupDone = false;
  let stopping = false;
  let failed = false;
  let stopTimer: NodeJS.Timeout | undefined;

  return new Promise<number>((resolve) => {
    // Realtime events published in one worker reach the clients of every worker (docs/realtime.md).
    const stopRelay = relayRealtimeBetweenWorkers();
    // A scrape of /metrics reaching any worker answers every worker's series (docs/deployment.md "Metrics").
    const stopMetrics = serveClusterMetrics();
    const finish = () => {
      stopRelay();
      stopMetrics();
      for (const s of STOP_SIGNALS) process.off(s, onSignal);
      cluster.off('listening', onListening);
      cluster.off('exit', onExit);
      clearTimeout(stopTimer);
      log.info('all workers stopped', { failed });
      resolve(failed ? 1 : 0);
    };

    const killAll = () => {
      for (const w of live.values()) w.process.kill('SIGKILL');
    };

    const stop = (reason: string) => {
      stopping = true;
      for (const t of restarts) clearTimeout(t);
      restarts.clear();
      if (live.size === 0) return finish();
      log.info(`${reason}: stopping ${live.size} worker(s) after their requests in flight`);
      for (const w of live.values()) w.process.kill('SIGTERM');
      stopTimer = setTimeout(() => {
        log.error(`workers still running ${stopTimeoutMs} ms after the stop: killing them`);
        failed = true;
        killAll();
      }, stopTimeoutMs);
    };

    function onSignal(signal: string) {
      if (!stopping) return stop(signal);
      log.warn(`${signal} again: killing the workers now`);
      failed = true;
      killAll();
    }

    const fork = () => {
      const worker = cluster.fork();
      // A failed signal or IPC send is reported here; unheard, it would crash the primary.
      worker.on('error', (err: Error) => log.error(`worker ${worker.process.pid}: ${err.message}`, ids(worker)));
      live.set(worker.id, worker);
      if (!startupDone) starting.add(worker.id);
      log.info(`worker ${worker.process.pid} starting`, ids(worker));
    };

    function onListening(worker: Worker, address: { address: string | null; port: number }) {
      log.info(`worker ${worker.process.pid} listening on ${address.address ?? '*'}:${address.port}`, ids(worker));
      starting.delete(worker.id);
      if (!startupDone && starting.size === 0) {
        startupDone = true;
        if (!stopping) {
          log.info(`all ${options.workers} workers listening`);
          options.onReady?.(address.port);
        }
      }
    }

    function onExit(worker: Worker, code: number | null, signal: string | null) {
      live.delete(worker.id);
      starting.delete(worker.id);
      const how = describeExit(code, signal);
      if (stopping) {
        if (code !== 0) failed = true;
        log.info(`worker ${worker.process.pid} ${how}`, ids(worker));
        if (live.size === 0) finish();
        return;
      }
      if (!startupDone) {
        log.error(`worker ${worker.process.pid} ${how} while starting: stopping the cluster`, ids(worker));
        failed = true;
        return stop('startup failed');
      }
      const delay = backoff.next(Date.now());
      log.warn(`worker ${worker.process.pid} ${how}: starting a replacement in ${delay} ms`, ids(worker));
      const timer = setTimeout(() => {
        restarts.delete(timer);
        if (!stopping) fork();
      }, delay);
      restarts.add(timer);
    }

    for (const s of STOP_SIGNALS) process.on(s, onSignal);
    cluster.on('listening', onListening);
    cluster.on('exit', onExit);
    for (let i = 0; i < options.workers; i++) fork();
  });
}
