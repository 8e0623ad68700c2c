import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { pinned } from './pinning.js';
import type { FromRealtimeClient, RealtimeClientKind, Receipts, ToRealtimeClient } from './realtime-protocol.js';

const CLIENT_MAIN = fileURLToPath(new URL('./realtime-client-main.ts', import.meta.url));

type Answer<T extends FromRealtimeClient['type']> = Extract<FromRealtimeClient, { type: T }>;

/** One client process of the realtime bench, asked one thing at a time. */
class ClientProcess {
  readonly #child: ChildProcess;
  #waiter: { type: string; resolve(m: FromRealtimeClient): void; reject(e: Error): void } | undefined;
  #ended: string | undefined;

  constructor(cores: string | undefined) {
    const [command, args] = pinned(cores, process.execPath, ['--import', 'tsx', CLIENT_MAIN]);
    this.#child = spawn(command, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], serialization: 'advanced' });
    this.#child.on('message', (m: FromRealtimeClient) => {
      const waiter = this.#waiter;
      if (m.type === 'error') {
        this.#waiter = undefined;
        waiter?.reject(new Error(`realtime client process: ${m.message}`));
      } else if (waiter?.type === m.type) {
        this.#waiter = undefined;
        waiter.resolve(m);
      }
    });
    this.#child.once('exit', (code, signal) => {
      this.#ended = `exited (${signal ?? code})`;
      this.#waiter?.reject(new Error(`realtime client process ${this.#ended}`));
      this.#waiter = undefined;
    });
  }

  get pid(): number {
    return this.#child.pid ?? -1;
  }

  /** Waits for the next answer of `type`, sending `message` first when given. */
  ask<T extends FromRealtimeClient['type']>(type: T, message?: ToRealtimeClient): Promise<Answer<T>> {
    if (this.#ended) return Promise.reject(new Error(`realtime client process ${this.#ended}`));
    return new Promise((resolve, reject) => {
      this.#waiter = { type, resolve: (m) => resolve(m as Answer<T>), reject };
      if (message) this.#child.send(message);
    });
  }

  async close(): Promise<void> {
    if (this.#ended) return;
    const exited = new Promise<void>((resolve) => this.#child.once('exit', () => resolve()));
    this.#child.send({ type: 'exit' } satisfies ToRealtimeClient);
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }
}

/** Receipts from every client process, merged. */
export interface CollectedReceipts {
  readonly parts: readonly Receipts[];
  readonly count: number;
  /** Events for documents the bench did not update (none expected). */
  readonly unknown: number;
}

/** The Socket.IO clients of the realtime bench, spread over `processes` processes pinned to `cores`. */
export class RealtimeClients {
  private constructor(
    private readonly processes: readonly ClientProcess[],
    private readonly shares: readonly number[],
  ) {}

  /** Starts the processes and waits until each is ready. */
  static async start(processes: number, sockets: number, cores: string | undefined): Promise<RealtimeClients> {
    const count = Math.min(processes, sockets);
    const shares = Array.from({ length: count }, (_, i) => Math.floor(sockets / count) + (i < sockets % count ? 1 : 0));
    const children = shares.map(() => new ClientProcess(cores));
    const clients = new RealtimeClients(children, shares);
    try {
      await Promise.all(children.map((c) => c.ask('ready')));
    } catch (err) {
      await clients.close();
      throw err;
    }
    return clients;
  }

  get pids(): number[] {
    return this.processes.map((p) => p.pid);
  }

  /** Connects every process's share of the sockets (one process after another, so the server admits them steadily). */
  async connect(client: RealtimeClientKind, url: string, auth: string, doctype: string, names: readonly string[]): Promise<void> {
    for (const [i, p] of this.processes.entries()) await p.ask('connected', { type: 'connect', client, url, auth, sockets: this.shares[i], doctype, names });
  }

  async subscribe(): Promise<void> {
    for (const p of this.processes) await p.ask('subscribed', { type: 'subscribe' });
  }

  /** The largest difference between a client process's monotonic clock and `now()` at the moment it was sent (IPC delay included). */
  async clockSkew(now: () => number): Promise<number> {
    let worst = 0;
    for (const p of this.processes) {
      const answer = await p.ask('clock', { type: 'clock', sentAt: now() });
      worst = Math.max(worst, Math.abs(answer.skewMs));
    }
    return worst;
  }

  /** Every receipt since the last collect, once `perSocket` events reached each socket or they went quiet for `timeoutMs`. */
  async collect(perSocket: number, timeoutMs: number): Promise<CollectedReceipts> {
    const answers = await Promise.all(this.processes.map((p, i) => p.ask('receipts', { type: 'collect', expected: perSocket * this.shares[i], timeoutMs })));
    return {
      parts: answers.map((a) => a.receipts),
      count: answers.reduce((sum, a) => sum + a.receipts.count, 0),
      unknown: answers.reduce((sum, a) => sum + a.unknown, 0),
    };
  }

  async close(): Promise<void> {
    await Promise.all(this.processes.map((p) => p.close()));
  }
}
