import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { waitForOutput, type OutputWaiters } from './output-wait.js';

const FW_CLI = fileURLToPath(new URL('./fw-cli.ts', import.meta.url));
const CWD = fileURLToPath(new URL('../..', import.meta.url));

/** One JSON log line of `fw serve` (the primary's or a worker's). */
export interface LogLine {
  readonly level: number;
  readonly pid: number;
  readonly msg: string;
  readonly workerPid?: number;
  readonly [key: string]: unknown;
}

/** How a process ended. */
export interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** A running `fw serve`, started from the sources. */
export interface ServeProcess {
  readonly child: ChildProcess;
  /** `http://127.0.0.1:<port>` */
  readonly baseUrl: string;
  /** Every JSON line written to stdout so far. */
  logs(): LogLine[];
  /** Everything written to stderr so far. */
  stderr(): string;
  /** Workers that listened and have not exited, by the primary's log. */
  liveWorkerPids(): number[];
  /** Resolves with the first log line (old or new) that `match` accepts; rejects after `timeoutMs`. */
  waitForLog(match: (line: LogLine) => boolean, timeoutMs: number): Promise<LogLine>;
  /** Sends `signal` to the primary and waits for it to exit; kills everything after `timeoutMs`. */
  stop(signal: NodeJS.Signals, timeoutMs: number): Promise<Exit>;
  /** Kills the primary and its running workers unless it has exited (for after() hooks; never throws). */
  kill(): Promise<void>;
}

/** Runs `fw <args>` from the sources to its end; kills it after `timeoutMs`. */
export async function runFw(args: string[], options: { env?: Record<string, string>; timeoutMs?: number } = {}) {
  const child = spawnFw(args, options.env);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
  const exit = await exited(child);
  clearTimeout(timer);
  return { ...exit, stdout, stderr };
}

function spawnFw(args: string[], env: Record<string, string> = {}): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', FW_CLI, ...args], {
    cwd: CWD,
    env: { ...process.env, FW_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

function exited(child: ChildProcess): Promise<Exit> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  }
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

function killQuietly(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/**
 * Starts `fw serve <args> --port 0` and resolves once it serves: with `workers` > 1 once the
 * primary reports all of them listening. Rejects (and kills what started) if it exits first or
 * takes longer than `readyTimeoutMs`.
 */
export async function startServe(
  args: string[],
  options: { workers: number; env?: Record<string, string>; readyTimeoutMs?: number; portFromEnv?: boolean },
): Promise<ServeProcess> {
  // portFromEnv: no --port flag, so FW_PORT in `env` decides (testing the environment forms).
  const port = options.portFromEnv ? [] : ['--port', '0'];
  const child = spawnFw(['serve', ...port, '--workers', String(options.workers), ...args], options.env);
  const lines: LogLine[] = [];
  const waiters: OutputWaiters = new Set();
  let stdoutRest = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    const parts = (stdoutRest + chunk.toString()).split('\n');
    stdoutRest = parts.pop() ?? '';
    for (const part of parts) {
      try {
        lines.push(JSON.parse(part) as LogLine);
      } catch {
        // Plain lines ("No site in ...: creating one") are not log records.
      }
    }
    for (const wake of waiters) wake();
  });
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const exit = exited(child);

  const waitForLog = (match: (line: LogLine) => boolean, timeoutMs: number) =>
    waitForOutput(
      child,
      waiters,
      () => lines.find(match),
      timeoutMs,
      () => `fw serve: a matching log line\n${stderr}`,
    );

  /** Workers the primary started and has not seen exit. */
  const unfinishedWorkers = (listenedOnly: boolean) => {
    const pids = new Set<number>();
    for (const l of lines) {
      if (l.pid !== child.pid || typeof l.workerPid !== 'number') continue;
      if (listenedOnly ? / listening on /.test(l.msg) : / starting$/.test(l.msg)) pids.add(l.workerPid);
      if (/ (exited with code|was killed by) /.test(l.msg)) pids.delete(l.workerPid);
    }
    return [...pids];
  };
  // Only processes still known to run are signalled: an exited one's pid may already belong to another.
  const kill = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const workers = unfinishedWorkers(false);
    killQuietly(child.pid);
    for (const pid of workers) killQuietly(pid);
    await exit;
  };

  const ready =
    options.workers > 1
      ? (l: LogLine) => l.pid === child.pid && /^all \d+ workers listening$/.test(l.msg)
      : (l: LogLine) => /^Server listening at /.test(l.msg);
  try {
    await waitForLog(ready, options.readyTimeoutMs ?? 60_000);
  } catch (err) {
    await kill();
    throw err;
  }
  const address = lines.map((l) => /^Server listening at (http:\/\/\S+)$/.exec(l.msg)?.[1]).find(Boolean);
  if (!address) {
    await kill();
    throw new Error('fw serve: listening, but no address was logged');
  }

  return {
    child,
    baseUrl: address,
    logs: () => [...lines],
    stderr: () => stderr,
    liveWorkerPids: () => unfinishedWorkers(true),
    waitForLog,
    async stop(signal, timeoutMs) {
      child.kill(signal);
      const timer = setTimeout(() => void kill(), timeoutMs);
      const result = await exit;
      clearTimeout(timer);
      return result;
    },
    kill,
  };
}
