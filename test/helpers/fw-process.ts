import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

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
  const listeners = new Set<() => void>();
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
    waitFor(pattern, timeoutMs) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!pattern.test(out)) return;
          done();
          resolve();
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`fw ${args[0]}: no output matching ${pattern} within ${timeoutMs} ms\n${out}`));
        }, timeoutMs);
        const onExit = () => {
          done();
          reject(new Error(`fw ${args[0]} exited before printing ${pattern}\n${out}`));
        };
        const done = () => {
          clearTimeout(timer);
          listeners.delete(check);
          child.off('exit', onExit);
        };
        listeners.add(check);
        child.once('exit', onExit);
        check();
      });
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
