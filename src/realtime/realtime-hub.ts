import { quotaKey } from './socketio/client-address.js';
import { EventRing } from './event-ring.js';
import type { AccessChange, BusBatch, DeliveredMessage, ReadableBy, Revocation } from './realtime-message.js';
import type { Delivery, Subscriber, SubscriberTransport } from './subscriber.js';

/** Decides which of `users` may read a document; `cache` lives for one batch, so each user/document pair is judged once. */
export interface ReadDecider {
  allowedUsers(readable: ReadableBy, users: ReadonlySet<string>, cache: Map<string, unknown>): Promise<ReadonlySet<string>>;
}

/**
 * Hears that rights changed (an AccessChange from the bus), before the events of its batch are
 * judged: it forgets what is cached about users and re-judges the subscriptions of `affected`.
 */
export type AccessListener = (affected: readonly Subscriber[]) => void;

/** The hub's limits (site config realtime_*). */
export interface HubLimits {
  readonly maxSubscriptions: number;
  readonly maxBuffered: number;
  readonly resumeEvents: number;
}

/** Where the hub reports what it dropped or could not do. */
export interface HubLog {
  warn(obj: object, msg: string): void;
}

/**
 * The rooms of this process's live clients and the delivery of every event the bus brings
 * (docs/realtime.md). Batches are delivered strictly in bus order; within a batch, the permission
 * checks of all events run together first. An event that names a document reaches only the
 * subscribers whose user may read it. A client that lets more than `maxBuffered` messages pile up is
 * dropped instead of buffered without bound.
 */
export class RealtimeHub {
  readonly #rooms = new Map<string, Set<Subscriber>>();
  readonly #byUser = new Map<string, Set<Subscriber>>();
  /** Live clients per connection-limit key: the user, or for Guests the client's address (client-address.ts). */
  readonly #byQuota = new Map<string, number>();
  /** How many rooms each client was given on connect; those do not count against the subscription limit. */
  readonly #ownRooms = new WeakMap<Subscriber, number>();
  readonly recent: EventRing;
  #queue: Promise<void> = Promise.resolve();
  /** Batches received while earlier ones were being judged: delivered together, in order, by one drain. */
  #waiting: BusBatch[] = [];
  #drain: Promise<void> = Promise.resolve();
  #accessListener: AccessListener | undefined;

  constructor(
    private readonly decider: ReadDecider,
    private readonly limits: HubLimits,
    private readonly log: HubLog,
  ) {
    this.recent = new EventRing(limits.resumeEvents);
  }

  /** Registers a client; it joins `rooms` (its own rooms: user, website, all). */
  add(subscriber: Subscriber, rooms: readonly string[]): void {
    let mine = this.#byUser.get(subscriber.user);
    if (!mine) this.#byUser.set(subscriber.user, (mine = new Set()));
    mine.add(subscriber);
    const key = quotaKey(subscriber.user, subscriber.address);
    this.#byQuota.set(key, (this.#byQuota.get(key) ?? 0) + 1);
    for (const room of rooms) this.#enter(subscriber, room);
    this.#ownRooms.set(subscriber, subscriber.rooms.size);
  }

  /** Forgets a client and its rooms. */
  remove(subscriber: Subscriber): void {
    for (const room of subscriber.rooms) this.#exit(subscriber, room);
    const mine = this.#byUser.get(subscriber.user);
    if (!mine?.delete(subscriber)) return;
    if (mine.size === 0) this.#byUser.delete(subscriber.user);
    const key = quotaKey(subscriber.user, subscriber.address);
    const left = (this.#byQuota.get(key) ?? 1) - 1;
    if (left > 0) this.#byQuota.set(key, left);
    else this.#byQuota.delete(key);
  }

  /** Live clients in this process that count against the limit of `user` connecting from `address` (Guests: per address). */
  countFor(user: string, address: string): number {
    return this.#byQuota.get(quotaKey(user, address)) ?? 0;
  }

  /** Live clients of `user` in this process. */
  clientsOf(user: string): readonly Subscriber[] {
    return [...(this.#byUser.get(user) ?? [])];
  }

  /** Sets who hears of changed rights (one listener). */
  onAccessChange(listener: AccessListener): void {
    this.#accessListener = listener;
  }

  /** Ends every live client (maintenance, shutdown). */
  closeAll(reason: string): void {
    for (const subscriber of [...this.all()]) subscriber.close(reason);
  }

  /** Joins a room; false when the client already holds as many subscriptions as it may. */
  join(subscriber: Subscriber, room: string): boolean {
    if (subscriber.rooms.has(room)) return true;
    if (subscriber.rooms.size - (this.#ownRooms.get(subscriber) ?? 0) >= this.limits.maxSubscriptions) return false;
    this.#enter(subscriber, room);
    return true;
  }

  leave(subscriber: Subscriber, room: string): void {
    if (subscriber.rooms.has(room)) this.#exit(subscriber, room);
  }

  /** The clients in `room`. */
  members(room: string): ReadonlySet<Subscriber> {
    return this.#rooms.get(room) ?? new Set();
  }

  /** Every live client. */
  *all(): Iterable<Subscriber> {
    for (const subscribers of this.#byUser.values()) yield* subscribers;
  }

  #enter(subscriber: Subscriber, room: string): void {
    subscriber.rooms.add(room);
    let members = this.#rooms.get(room);
    if (!members) this.#rooms.set(room, (members = new Set()));
    members.add(subscriber);
  }

  #exit(subscriber: Subscriber, room: string): void {
    subscriber.rooms.delete(room);
    const members = this.#rooms.get(room);
    members?.delete(subscriber);
    if (members?.size === 0) this.#rooms.delete(room);
  }

  /**
   * Takes a batch from the bus; batches are delivered one after another, in the order received.
   * Those that arrive while earlier ones are being judged wait and go out together, so a client
   * gets what they hold for it in one write (docs/benchmarks.md, "Realtime").
   */
  receive(batch: BusBatch): Promise<void> {
    this.#waiting.push(batch);
    if (this.#waiting.length === 1) {
      this.#drain = this.#queue.then(() => this.#deliverWaiting()).catch((err: unknown) => this.log.warn({ err }, 'realtime events could not be delivered'));
      this.#queue = this.#drain;
    }
    return this.#drain;
  }

  /** Runs `work` between two batches (a stream joining and catching up), so no batch is half-seen. */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(work);
    this.#queue = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /** Tells every client that events may have been missed, so it fetches afresh. */
  resync(reason: string): void {
    const message: DeliveredMessage = { kind: 'event', id: `resync-${Date.now()}`, event: 'resync', message: { reason }, room: '*' };
    this.#sendTo([...this.all()], message);
  }

  /** Judges every waiting batch in turn, then sends what they hold in their order; revocations close clients in their place. */
  async #deliverWaiting(): Promise<void> {
    const batches = this.#waiting;
    this.#waiting = [];
    const run: (Delivery | Revocation)[] = [];
    for (const batch of batches) {
      try {
        run.push(...(await this.#judgeBatch(batch)));
      } catch (err) {
        this.log.warn({ err, batch: batch.id }, 'realtime batch could not be delivered');
      }
    }
    let deliveries: Delivery[] = [];
    for (const step of run) {
      if ('kind' in step) {
        this.#sendAll(deliveries);
        deliveries = [];
        this.#revoke(step);
      } else {
        this.recent.push(step.message);
        deliveries.push(step);
      }
    }
    this.#sendAll(deliveries);
  }

  /** The deliveries and revocations of one batch, in its order; rights changed in it are forgotten first. */
  async #judgeBatch(batch: BusBatch): Promise<(Delivery | Revocation)[]> {
    const cache = new Map<string, unknown>();
    // Rights that changed are committed already: forgotten before any event of the batch is judged.
    for (const item of batch.items) if (item.kind === 'access') this.#accessChanged(item);
    const messages: (DeliveredMessage | Revocation | AccessChange)[] = batch.items.map((item, i) =>
      item.kind === 'event' ? { ...item, id: `${batch.id}.${i}` } : item,
    );
    const audiences = await Promise.all(messages.map((m) => (m.kind === 'event' ? this.audience(m, [...this.members(m.room)], cache) : undefined)));
    const run: (Delivery | Revocation)[] = [];
    messages.forEach((m, i) => {
      if (m.kind === 'revoke') run.push(m);
      else if (m.kind === 'event') run.push({ subscribers: audiences[i] ?? [], message: m });
    });
    return run;
  }

  /** Those of `candidates` that may receive `message`: all, unless it names a document they may not read. */
  async audience(message: DeliveredMessage, candidates: readonly Subscriber[], cache: Map<string, unknown>): Promise<Subscriber[]> {
    if (candidates.length === 0 || !message.readableBy) return [...candidates];
    const users = new Set(candidates.map((s) => s.user));
    const allowed = await this.decider.allowedUsers(message.readableBy, users, cache);
    return candidates.filter((s) => allowed.has(s.user));
  }

  /** Sends `message` to `subscribers` as it is, dropping those too slow to take it. */
  sendTo(subscribers: readonly Subscriber[], message: DeliveredMessage): void {
    this.#sendTo(subscribers, message);
  }

  #sendTo(subscribers: readonly Subscriber[], message: DeliveredMessage): void {
    this.#sendAll([{ subscribers, message }]);
  }

  /** Sends each delivery to its subscribers, dropping those too slow to take more; each transport gets the run at once. */
  #sendAll(deliveries: readonly Delivery[]): void {
    const byTransport = new Map<SubscriberTransport, Delivery[]>();
    for (const { subscribers, message } of deliveries) {
      const perTransport = new Map<SubscriberTransport, Subscriber[]>();
      for (const s of subscribers) {
        if (s.backlog() > this.limits.maxBuffered) {
          this.log.warn({ subscriber: s.id, user: s.user }, 'realtime client too slow: dropped');
          s.close('too slow');
          continue;
        }
        const list = perTransport.get(s.transport);
        if (list) list.push(s);
        else perTransport.set(s.transport, [s]);
      }
      for (const [transport, list] of perTransport) {
        const run = byTransport.get(transport);
        if (run) run.push({ subscribers: list, message });
        else byTransport.set(transport, [{ subscribers: list, message }]);
      }
    }
    for (const [transport, run] of byTransport) transport.send(run);
  }

  #revoke(r: Revocation): void {
    const candidates = r.user !== undefined ? this.clientsOf(r.user) : [...this.all()];
    for (const s of candidates) {
      if (r.sid !== undefined && s.sid !== r.sid) continue;
      if (r.exceptSid !== undefined && s.sid === r.exceptSid) continue;
      if (r.tokensOnly && !s.viaToken) continue;
      s.close(r.tokensOnly ? 'credentials revoked' : 'session ended');
    }
  }

  #accessChanged(change: AccessChange): void {
    this.#accessListener?.(change.user !== undefined ? this.clientsOf(change.user) : [...this.all()]);
  }
}
