import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { FromLoadWorker, LoadRun, SliceResult, ToLoadWorker } from './load-protocol.js';
import { pinned } from './pinning.js';

const WORKER = fileURLToPath(new URL('./load-worker.ts', import.meta.url));

/** The harness's handle on the load worker process: one run at a time. */
export class LoadGenerator {
  readonly #child: ChildProcess;
  readonly #pending = new Map<number, { resolve(r: SliceResult): void; reject(e: Error): void }>();
  #nextId = 1;
  #exited = false;

  private constructor(child: ChildProcess) {
    this.#child = child;
    child.on('message', (message: FromLoadWorker) => {
      if (message.type === 'ready') return;
      const waiter = this.#pending.get(message.id);
      if (!waiter) return;
      this.#pending.delete(message.id);
      if (message.type === 'result') waiter.resolve(message.result);
      else waiter.reject(new Error(`load generator: ${message.message}`));
    });
    child.on('exit', (code, signal) => {
      this.#exited = true;
      for (const waiter of this.#pending.values()) {
        waiter.reject(new Error(`load generator exited (${signal ?? code}) during a run`));
      }
      this.#pending.clear();
    });
  }

  /** Starts the worker on `cores` (through taskset) and waits until it is ready for runs. */
  static async start(cores: string | undefined): Promise<LoadGenerator> {
    const [command, args] = pinned(cores, process.execPath, ['--import', 'tsx', WORKER]);
    const child = spawn(command, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    await new Promise<void>((resolve, reject) => {
      const onMessage = (message: FromLoadWorker) => {
        if (message.type !== 'ready') return;
        child.off('exit', onExit);
        child.off('message', onMessage);
        resolve();
      };
      const onExit = (code: number | null) => reject(new Error(`load generator failed to start (exit ${code})`));
      child.on('message', onMessage);
      child.once('exit', onExit);
      child.once('error', reject);
    });
    return new LoadGenerator(child);
  }

  /** Runs one load run and resolves with what it measured. */
  run(run: LoadRun): Promise<SliceResult> {
    if (this.#exited) return Promise.reject(new Error('load generator has exited'));
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      const message: ToLoadWorker = { type: 'run', id, run };
      this.#child.send(message);
    });
  }

  /** Ends the worker process. */
  async close(): Promise<void> {
    if (this.#exited) return;
    const exited = new Promise<void>((resolve) => this.#child.once('exit', () => resolve()));
    const message: ToLoadWorker = { type: 'exit' };
    this.#child.send(message);
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }
}
