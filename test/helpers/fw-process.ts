import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { waitForOutput, type OutputWaiters } from './output-wait.js';

const FW_CLI = fileURLToPath(new URL('./fw-cli.ts', import.meta.url));
const CWD = fileURLToPath(new URL('../..', import.meta.url));

/** A long-running `fw <command>` from the sources (such as `fw worker`), with its output kept. */
export interface FwProcess {
  readonly child: ChildProcess;
  /** stdout and stderr so far. */
  output(): string;
  /** Resolves once the output matches `pattern`; rejects when the process exits first or after `timeoutMs`. */
  waitFor(pattern: RegExp, timeoutMs: number): Promise<void>;
  /** Sends `signal` and waits for the exit (SIGKILL after `timeoutMs`). */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<number | null>;
}

/** Starts `fw <args>`. */
export function startFw(args: string[], env: Record<string, string> = {}): FwProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', FW_CLI, ...args], {
    cwd: CWD,
    env: { ...process.env, FW_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const listeners: OutputWaiters = new Set();
  const onData = (c: Buffer) => {
    out += c.toString();
    for (const l of listeners) l();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    output: () => out,
    async waitFor(pattern, timeoutMs) {
      await waitForOutput(
        child,
        listeners,
        () => (pattern.test(out) ? true : undefined),
        timeoutMs,
        () => `fw ${args[0]}: output matching ${pattern}\n${out}`,
      );
    },
    async stop(signal = 'SIGTERM', timeoutMs = 20_000) {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}
