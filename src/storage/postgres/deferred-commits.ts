/** What the deferral needs of a pooled client. */
export interface CommittableClient {
  query(config: { text: string }): Promise<unknown>;
}

/**
 * How long an idle connection may keep a finished read unit's transaction open. It holds that
 * unit's snapshot and its tables' ACCESS SHARE locks, so a DocType change (ALTER TABLE) waits for
 * at most this long.
 */
const IDLE_COMMIT_MS = 50;

/**
 * The COMMIT of finished read units, deferred to the next message on the same connection
 * (docs/architecture.md, "Read units"): whoever takes the connection next sends the COMMIT in
 * its first message, so a read unit costs no message beyond its statements (a GET: one). A read-only transaction has nothing to lose, so the only cost of the delay is the
 * snapshot and locks it holds: connections nobody takes are committed by a timer.
 */
export class DeferredCommits {
  readonly #pending = new Set<CommittableClient>();
  #timer: NodeJS.Timeout | undefined;

  /** The client goes back to the pool with its read transaction still open. */
  defer(client: CommittableClient): void {
    this.#pending.add(client);
    if (this.#timer) return;
    this.#timer = setTimeout(() => this.#flush(), IDLE_COMMIT_MS);
    this.#timer.unref();
  }

  /** True when the client's previous user left a transaction to commit: the caller sends it first. */
  take(client: CommittableClient): boolean {
    return this.#pending.delete(client);
  }

  /** Commits every transaction still waiting (the timer, and at close). */
  flushAll(): void {
    clearTimeout(this.#timer);
    this.#flush();
  }

  #flush(): void {
    this.#timer = undefined;
    for (const client of this.#pending) {
      // Queued on the client before anything its next user sends; a failure means a lost
      // connection, which that user meets and reports.
      client.query({ text: 'COMMIT' }).catch(() => {});
    }
    this.#pending.clear();
  }
}
