import { spawn, type ChildProcess } from 'node:child_process';
import { pinned } from './pinning.js';

const OUTPUT_KEPT = 16_000;

/** A server running as a child process of the harness. */
export interface ServerProcess {
  readonly name: string;
  readonly pid: number;
  readonly origin: string;
  /** The tail of what the process printed, for error reports. */
  output(): string;
  /** Resolves with the exit code (or signal name) once the process has ended. */
  readonly exited: Promise<number | string>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process has ended. */
  stop(graceMs?: number): Promise<void>;
}

/** How to start a server process. */
export interface ServerSpawn {
  readonly name: string;
  /** The program to run; node (this harness's) unless given. */
  readonly command?: string;
  readonly args: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
  readonly cores: string | undefined;
  readonly port: number;
  readonly cwd?: string;
}

/** Starts `node <args>` (or `<command> <args>`; pinned to `cores` when given); its output is kept, not shown. */
export function spawnServer(options: ServerSpawn): ServerProcess {
  const [command, args] = pinned(options.cores, options.command ?? process.execPath, options.args);
  const child: ChildProcess = spawn(command, args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-OUTPUT_KEPT);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => resolve(signal ?? code ?? 'unknown'));
    child.once('error', (err) => {
      keep(Buffer.from(`\n${err.message}\n`));
      resolve('spawn failed');
    });
  });
  let ended = false;
  void exited.then(() => {
    ended = true;
  });
  return {
    name: options.name,
    pid: child.pid ?? -1,
    origin: `http://127.0.0.1:${options.port}`,
    output: () => output,
    exited,
    async stop(graceMs = 15_000) {
      if (ended) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * Waits until `GET <origin><path>` answers 200, failing early with the process's output when it
 * exits first, or after `timeoutMs`.
 */
export async function waitUntilServing(server: ServerProcess, path: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exit: number | string | undefined;
  void server.exited.then((code) => {
    exit = code;
  });
  for (;;) {
    if (exit !== undefined) {
      throw new Error(`${server.name} exited (${exit}) before serving; its output:\n${server.output().trim()}`);
    }
    try {
      const res = await fetch(server.origin + path, { signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      throw new Error(`${server.name} did not answer ${path} within ${timeoutMs / 1000} s; its output:\n${server.output()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
