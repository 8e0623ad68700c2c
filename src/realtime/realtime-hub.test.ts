import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { RealtimeHub, type ReadDecider } from './realtime-hub.js';
import type { Delivery, Subscriber, SubscriberTransport } from './subscriber.js';

/** A subscriber that records what it got; `waiting` is its backlog. */
class FakeSubscriber implements Subscriber {
  readonly rooms = new Set<string>();
  readonly got: string[] = [];
  closed: string | undefined;
  waiting = 0;
  readonly viaToken = false;
  readonly authorization = undefined;
  readonly address = '127.0.0.1';
  constructor(
    readonly id: string,
    readonly user: string,
    readonly transport: SubscriberTransport,
    readonly sid: string | undefined = undefined,
  ) {}
  backlog() {
    return this.waiting;
  }
  close(reason: string) {
    this.closed = reason;
  }
}

const transport: SubscriberTransport = {
  send(deliveries: readonly Delivery[]) {
    for (const { subscribers, message } of deliveries) for (const s of subscribers) (s as FakeSubscriber).got.push(`${message.event}:${message.id}`);
  },
};

/** Lets only `readers` read anything; counts the users it was asked about. */
function decider(readers: string[], asked: string[] = []): ReadDecider {
  return {
    async allowedUsers(_readable, users) {
      asked.push(...users);
      return new Set([...users].filter((u) => readers.includes(u)));
    },
  };
}

const log = { warn: () => undefined };
const limits = { maxSubscriptions: 2, maxBuffered: 10, resumeEvents: 3 };

describe('RealtimeHub', () => {
  test('a document event reaches only the readers in the room, each user judged once per batch', async () => {
    const asked: string[] = [];
    const hub = new RealtimeHub(decider(['ann'], asked), limits, log);
    const ann1 = new FakeSubscriber('a1', 'ann', transport);
    const ann2 = new FakeSubscriber('a2', 'ann', transport);
    const ben = new FakeSubscriber('b', 'ben', transport);
    for (const s of [ann1, ann2, ben]) hub.add(s, ['doctype:ToDo']);
    const readableBy = { doctype: 'ToDo', name: 'x' };
    await hub.receive({ id: 'b1', items: [{ kind: 'event', event: 'list_update', message: {}, room: 'doctype:ToDo', readableBy }] });
    assert.deepEqual([ann1.got, ann2.got, ben.got], [['list_update:b1.0'], ['list_update:b1.0'], []]);
    assert.deepEqual(asked.sort(), ['ann', 'ben']);
  });

  test('a client with too much waiting is dropped instead of sent more', async () => {
    const hub = new RealtimeHub(decider([]), limits, log);
    const slow = new FakeSubscriber('s', 'sam', transport);
    const quick = new FakeSubscriber('q', 'sam', transport);
    hub.add(slow, ['all']);
    hub.add(quick, ['all']);
    slow.waiting = 11;
    await hub.receive({ id: 'b1', items: [{ kind: 'event', event: 'notice', message: 1, room: 'all' }] });
    assert.equal(slow.closed, 'too slow');
    assert.deepEqual(slow.got, []);
    assert.deepEqual(quick.got, ['notice:b1.0']);
  });

  test('subscriptions beyond the limit are refused; the rooms given on connect do not count', () => {
    const hub = new RealtimeHub(decider([]), limits, log);
    const s = new FakeSubscriber('s', 'sam', transport);
    hub.add(s, ['user:sam', 'website', 'all']);
    assert.equal(hub.join(s, 'doctype:A'), true);
    assert.equal(hub.join(s, 'doctype:B'), true);
    assert.equal(hub.join(s, 'doctype:C'), false);
    assert.equal(hub.join(s, 'doctype:A'), true, 'joining a room it holds is no new subscription');
  });

  test('revocations close a session, or all of a user but one session', async () => {
    const hub = new RealtimeHub(decider([]), limits, log);
    const a = new FakeSubscriber('a', 'sam', transport, 's1');
    const b = new FakeSubscriber('b', 'sam', transport, 's2');
    const c = new FakeSubscriber('c', 'sam', transport, undefined);
    for (const s of [a, b, c]) hub.add(s, ['all']);
    await hub.receive({ id: 'b1', items: [{ kind: 'revoke', sid: 's1' }] });
    assert.deepEqual([a.closed, b.closed, c.closed], ['session ended', undefined, undefined]);
    await hub.receive({ id: 'b2', items: [{ kind: 'revoke', user: 'sam', exceptSid: 's2' }] });
    assert.deepEqual([b.closed, c.closed], [undefined, 'session ended']);
  });

  test('batches that arrive while one is being judged go to the transport together, in order, a revocation in its place', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow: ReadDecider = {
      async allowedUsers(_readable, users) {
        await gate;
        return users;
      },
    };
    const runs: string[][] = [];
    const recording: SubscriberTransport = {
      send(deliveries) {
        runs.push(deliveries.map((d) => `${d.message.id}:${d.subscribers.map((s) => s.id).join('+')}`));
      },
    };
    const hub = new RealtimeHub(slow, limits, log);
    const a = new FakeSubscriber('a', 'sam', recording, 's1');
    const b = new FakeSubscriber('b', 'sam', recording, 's2');
    for (const s of [a, b]) hub.add(s, ['all']);
    const readableBy = { doctype: 'ToDo', name: 'x' };
    const first = hub.receive({ id: 'b1', items: [{ kind: 'event', event: 'e', message: 1, room: 'all', readableBy }] });
    await new Promise((resolve) => setImmediate(resolve));
    hub.receive({ id: 'b2', items: [{ kind: 'event', event: 'e', message: 2, room: 'all' }] });
    hub.receive({
      id: 'b3',
      items: [
        { kind: 'event', event: 'e', message: 3, room: 'all' },
        { kind: 'revoke', sid: 's1' },
      ],
    });
    const last = hub.receive({ id: 'b4', items: [{ kind: 'event', event: 'e', message: 4, room: 'all' }] });
    release();
    await Promise.all([first, last]);
    assert.deepEqual(runs, [['b1.0:a+b'], ['b2.0:a+b', 'b3.0:a+b'], ['b4.0:a+b']]);
    assert.equal(a.closed, 'session ended');
  });

  test('recent events are kept for resuming, within the window', async () => {
    const hub = new RealtimeHub(decider([]), limits, log);
    for (const id of ['b1', 'b2', 'b3', 'b4']) await hub.receive({ id, items: [{ kind: 'event', event: 'e', message: id, room: 'all' }] });
    assert.deepEqual(
      hub.recent.after('b2.0')?.map((m) => m.id),
      ['b3.0', 'b4.0'],
    );
    assert.equal(hub.recent.after('b1.0'), undefined, 'left the window of 3');
  });
});
