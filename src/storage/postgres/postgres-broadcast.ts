import pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BroadcastChannel, BroadcastHandlers, Queryable, SqlStatement } from '../database.js';
import { isConnectionFailure } from './postgres-errors.js';

/** The table that keeps recent messages: big payloads travel through it, and listeners replay from it after an outage. */
const TABLE = '"__fw_broadcast"';
const CHANNEL = 'fw_broadcast';
/** NOTIFY payloads must stay under 8000 bytes; bigger messages are announced by id and read from the table. */
const INLINE_LIMIT = 7000;
/** How long rows are kept, and so how long an outage can be bridged by replaying them. */
const RETENTION_SECONDS = 300;
const CLEANUP_INTERVAL_MS = 60_000;
/** Ids are taken before commit, so one may become visible after a higher one: replays look this far back. */
const REORDER_MARGIN = 256;
const SEEN_KEPT = 4096;
/** A message: its row and, in the same statement, its notification (inline when small enough). */
const SEND_SQL =
  `with e as (insert into ${TABLE} (payload) values ($1::text) returning id) ` +
  `select pg_notify('${CHANNEL}', case when octet_length($1::text) <= ${INLINE_LIMIT} then id::text || ' ' || $1::text else id::text end) from e`;
const MAX_BACKOFF_MS = 5_000;

/** How the channel writes through the pool. */
export interface BroadcastWrites {
  /** Runs statements on a pooled connection, in a transaction of their own (they write). */
  transaction<T>(work: (q: Queryable) => Promise<T>): Promise<T>;
  /** One statement as a transaction of its own in one round trip, its COMMIT not waiting for the disk. */
  writeAlone(statement: SqlStatement): Promise<void>;
}

interface Row {
  id: string;
  payload: string;
}

/**
 * PostgreSQL's LISTEN/NOTIFY as a broadcast channel (docs/realtime.md, "Across processes"). A
 * message is one row and one notification, written by one statement in a transaction of its own,
 * so it is announced exactly when it is stored. That transaction travels in one round trip and
 * its COMMIT does not wait for the disk: a message is worth nothing after a crash of the server
 * (listeners report the outage as a gap), and a synchronous COMMIT per write of a document would
 * double the disk flushes of every insert (docs/architecture.md "The first message"). One dedicated connection per process listens, and sends
 * while it is up (never a pooled one: a transaction-mode pooler cannot LISTEN); when it drops it is reopened with backoff and the rows
 * stored meanwhile are replayed in id order, skipping those already seen. An outage longer than
 * the retention window is reported as a gap.
 */
export class PostgresBroadcast implements BroadcastChannel {
  #client: pg.Client | undefined;
  #handlers: BroadcastHandlers | undefined;
  #closed = false;
  #lastId = 0n;
  readonly #seen = new Set<string>();
  #deliveries: Promise<void> = Promise.resolve();
  #cleanup: NodeJS.Timeout | undefined;

  constructor(
    private readonly connectionString: string,
    private readonly writes: BroadcastWrites,
  ) {}

  async open(handlers: BroadcastHandlers): Promise<void> {
    this.#handlers = handlers;
    await this.#ensureTable();
    await this.#listen();
    // Rows stored before this process listened are not its to replay.
    const rows = await this.writes.transaction((q) => q.all<{ id: string }>({ sql: `select coalesce(max(id), 0)::text as id from ${TABLE}`, parameters: [] }));
    this.#lastId = BigInt(rows[0]?.id ?? '0');
    this.#cleanup = setInterval(() => void this.#purge(), CLEANUP_INTERVAL_MS);
    this.#cleanup.unref();
  }

  /**
   * On the listening connection while it is up: one statement, its own transaction, parsed once
   * per connection, its COMMIT not waiting for the disk (the session's `synchronous_commit` is
   * off), and no pooled connection taken from the requests (docs/benchmarks.md "Realtime sends on
   * PostgreSQL"). While that connection is being reopened, through the pool as a transaction of
   * its own.
   */
  async send(payload: string): Promise<void> {
    const client = this.#client;
    if (client) {
      try {
        await client.query({ name: 'fw_broadcast_send', text: SEND_SQL, values: [payload] });
        return;
      } catch (err) {
        // Lost with its connection, perhaps after its commit: sent again through the pool, as a
        // message told twice only makes clients fetch twice, and one never told leaves them stale.
        if (!isConnectionFailure(err)) throw err;
      }
    }
    await this.writes.writeAlone({ sql: SEND_SQL, parameters: [payload] });
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#cleanup);
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => undefined);
    await this.#deliveries;
  }

  async #ensureTable(): Promise<void> {
    const ddl = `create table if not exists ${TABLE} (id bigserial primary key, payload text not null, created timestamptz not null default now())`;
    try {
      await this.writes.transaction((q) => q.run({ sql: ddl, parameters: [] }));
    } catch {
      // Two processes creating it at once: one wins, the other's statement fails; the table is there.
      await this.writes.transaction((q) => q.run({ sql: ddl, parameters: [] }));
    }
  }

  /** Opens the listening connection; resolves once LISTEN is in place. */
  async #listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.connectionString, application_name: 'fw-listen', keepAlive: true });
    client.on('notification', (n) => {
      if (n.channel === CHANNEL && n.payload !== undefined) this.#announce(n.payload);
    });
    client.on('error', () => undefined);
    client.on('end', () => {
      if (this.#client === client && !this.#closed) void this.#reconnect(Date.now());
    });
    await client.connect();
    // The connection also sends (see send): a message is worth nothing after a crash of the server.
    await client.query('set synchronous_commit to off');
    await client.query(`listen ${CHANNEL}`);
    // Closed while this connection was being opened: nobody else would end it, and it would keep the process alive.
    if (this.#closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.#client = client;
  }

  async #reconnect(lostAt: number): Promise<void> {
    this.#client = undefined;
    for (let attempt = 0; !this.#closed; attempt++) {
      await sleep(Math.min(MAX_BACKOFF_MS, 100 * 2 ** attempt));
      if (this.#closed) return;
      try {
        await this.#listen();
      } catch {
        continue;
      }
      if ((Date.now() - lostAt) / 1000 > RETENTION_SECONDS / 2) {
        this.#handlers?.gap('the realtime listener was disconnected for too long');
      }
      await this.#replay().catch(() => this.#handlers?.gap('the realtime listener could not catch up'));
      return;
    }
  }

  /** A notification: `<id> <payload>`, or `<id>` alone when the payload must be read from the table. */
  #announce(text: string): void {
    const space = text.indexOf(' ');
    const id = space < 0 ? text : text.slice(0, space);
    const inline = space < 0 ? undefined : text.slice(space + 1);
    const payload = inline !== undefined ? Promise.resolve(inline) : this.#fetch(id);
    // Delivered one after another in notification order, whether or not a payload had to be read.
    this.#deliveries = this.#deliveries.then(async () => this.#deliver(id, await payload)).catch(() => undefined);
  }

  async #fetch(id: string): Promise<string | undefined> {
    const rows = await this.writes.transaction((q) => q.all<Row>({ sql: `select payload from ${TABLE} where id = $1`, parameters: [id] }));
    return rows[0]?.payload;
  }

  #deliver(id: string, payload: string | undefined): void {
    if (payload === undefined || this.#seen.has(id)) return;
    this.#seen.add(id);
    if (this.#seen.size > SEEN_KEPT) this.#seen.delete(this.#seen.values().next().value as string);
    const numeric = BigInt(id);
    if (numeric > this.#lastId) this.#lastId = numeric;
    this.#handlers?.message(id, payload);
  }

  /** Rows stored while not listening, oldest first; those already delivered are skipped. */
  async #replay(): Promise<void> {
    const from = this.#lastId > BigInt(REORDER_MARGIN) ? this.#lastId - BigInt(REORDER_MARGIN) : 0n;
    const rows = await this.writes.transaction((q) =>
      q.all<Row>({ sql: `select id::text as id, payload from ${TABLE} where id > $1 order by id`, parameters: [from.toString()] }),
    );
    this.#deliveries = this.#deliveries.then(() => {
      for (const row of rows) this.#deliver(row.id, row.payload);
    });
    await this.#deliveries;
  }

  async #purge(): Promise<void> {
    await this.writes
      .transaction((q) => q.run({ sql: `delete from ${TABLE} where created < now() - interval '${RETENTION_SECONDS} seconds'`, parameters: [] }))
      .catch(() => undefined);
  }
}
