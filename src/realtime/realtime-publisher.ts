import type { DocContext } from '../documents/doc-context.js';
import { ValidationError } from '../errors/index.js';
import type { RealtimeBus } from './bus/realtime-bus.js';
import type { BusItem, RealtimeMessage } from './realtime-message.js';

/** Where a published event goes (the reference's `publish_realtime` arguments). */
export interface PublishTarget {
  /** A room by its name (`user:jane@x.com`, `doctype:ToDo`, `doc:ToDo/abc`, `task_progress:<id>`, `all`, `website`). */
  readonly room?: string;
  /** The user's own room. */
  readonly user?: string;
  /** With `docname`: the room of one document. */
  readonly doctype?: string;
  readonly docname?: string;
  /** The room of a background task (`task_progress:<id>`). */
  readonly taskId?: string;
  /**
   * Send once the unit of work of `ctx` committed, and never if it rolls back (what document
   * events always do). Without it the event leaves at once.
   */
  readonly afterCommit?: boolean;
  /** The unit of work the event belongs to; needed for `afterCommit`. */
  readonly ctx?: DocContext;
}

/** The payload of a `progress` event. */
export interface ProgressUpdate {
  readonly percent: number;
  readonly title?: string;
  readonly description?: string;
}

/** Events a server must never push: `eval_js` would be a remote-code channel into every browser. */
const FORBIDDEN_EVENTS: ReadonlySet<string> = new Set(['eval_js']);
const EVENT_NAME = /^[A-Za-z0-9_:.-]{1,100}$/;
const MAX_ROOM_LENGTH = 600;

/**
 * The room a target names, as the reference picks it: `list_update` goes to its DocType's room,
 * then an explicit room, a task, a user, a document, and `all` (System Users) when nothing is named.
 */
export function roomFor(event: string, message: unknown, target: PublishTarget): string {
  if (event === 'list_update' && message !== null && typeof message === 'object' && typeof (message as { doctype?: unknown }).doctype === 'string') {
    return `doctype:${(message as { doctype: string }).doctype}`;
  }
  if (target.room) return target.room;
  if (target.taskId) return `task_progress:${target.taskId}`;
  if (target.user) return `user:${target.user}`;
  if (target.doctype && target.docname) return `doc:${target.doctype}/${target.docname}`;
  return 'all';
}

/**
 * This process's way into the realtime bus. Items are collected and handed to the bus once per
 * turn of the event loop, so a transaction that touched many documents becomes one batch (one
 * NOTIFY on PostgreSQL). Until a server attaches a bus (CLI commands never do) nothing is sent.
 */
const HANDED_OVER: Promise<void> = Promise.resolve();

export class RealtimePublisher {
  #bus: RealtimeBus | undefined;
  #pending: BusItem[] = [];
  #scheduled = false;
  #handedOver: Promise<void> = HANDED_OVER;

  constructor(private readonly maxMessageBytes: number) {}

  /** Starts sending through `bus`; undefined stops. */
  attach(bus: RealtimeBus | undefined): void {
    this.#bus = bus;
    if (!bus) this.#pending = [];
  }

  /**
   * Publishes an app's event (`realtime.publish` of docs/apps.md). Refuses `eval_js`, malformed
   * event names and messages over `realtime_max_message_bytes` with a ValidationError.
   */
  publish(event: string, message: unknown, target: PublishTarget = {}): void {
    if (typeof event !== 'string' || !EVENT_NAME.test(event)) throw new ValidationError(`Invalid realtime event name ${JSON.stringify(event)}`);
    if (FORBIDDEN_EVENTS.has(event)) throw new ValidationError(`The realtime event ${event} is not available: fw never pushes code to clients`);
    const room = roomFor(event, message, target);
    if (room.length > MAX_ROOM_LENGTH) throw new ValidationError('Realtime room name too long');
    const size = Buffer.byteLength(JSON.stringify(message ?? null));
    if (size > this.maxMessageBytes) {
      throw new ValidationError(`Realtime message of ${size} bytes is over the limit of ${this.maxMessageBytes} bytes`);
    }
    const item: RealtimeMessage = { kind: 'event', event, message: message ?? null, room };
    if (target.afterCommit) {
      if (!target.ctx) throw new ValidationError('realtime.publish with afterCommit needs the unit of work (ctx)');
      target.ctx.unit.afterCommit(() => this.enqueue(item));
    } else {
      this.enqueue(item);
    }
  }

  /** A `msgprint` for a user (the reference's `msgprint` over realtime): a text or `{message, title, indicator}`. */
  msgprint(user: string, message: string | { message: string; title?: string; indicator?: string }, target: Omit<PublishTarget, 'user' | 'room'> = {}): void {
    this.publish('msgprint', message, { ...target, user });
  }

  /** A `progress` event `{percent, title, description}` to a user, a document or a task room. */
  progress(update: ProgressUpdate, target: PublishTarget): void {
    const percent = Number(update.percent);
    if (!Number.isFinite(percent)) throw new ValidationError('progress needs a numeric percent');
    const message: Record<string, unknown> = { percent, title: update.title ?? null, description: update.description ?? null };
    if (target.taskId) message.task_id = target.taskId;
    this.publish('progress', message, target);
  }

  /** Ends the live connections of a login session once `ctx`'s unit commits (logout). */
  revokeSession(ctx: DocContext, sid: string): void {
    ctx.unit.afterCommit(() => this.enqueue({ kind: 'revoke', sid }));
  }

  /**
   * Ends the live connections `user` opened with an API key and secret once `ctx`'s unit commits
   * (`generate_keys` replaced the secret): in every process, like a logout.
   */
  revokeTokens(ctx: DocContext, user: string): void {
    ctx.unit.afterCommit(() => this.enqueue({ kind: 'revoke', user, tokensOnly: true }));
  }

  /** Queues a bus item for the next flush (document events and revocations come this way, after commit). */
  enqueue(item: BusItem): void {
    if (!this.#bus) return;
    this.#pending.push(item);
    if (this.#scheduled) return;
    this.#scheduled = true;
    // The next turn of the loop, so every item a unit's after-commit callbacks queue leaves in one batch.
    this.#handedOver = new Promise((resolve) => setImmediate(() => resolve(this.#flush())));
  }

  /**
   * Resolves once every item queued so far is in the bus's hands (in the primary's, or NOTIFYed).
   * A write's answer waits for it, so a client's next write, whichever process serves it, cannot
   * overtake the events of the last one (docs/realtime.md, "Across processes"). Never rejects.
   */
  settled(): Promise<void> {
    return this.#handedOver;
  }

  #flush(): Promise<void> {
    this.#scheduled = false;
    const items = this.#pending;
    this.#pending = [];
    return items.length > 0 && this.#bus ? this.#bus.publish(items) : HANDED_OVER;
  }
}
