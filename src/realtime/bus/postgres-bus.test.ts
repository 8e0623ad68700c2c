import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { BroadcastChannel } from '../../storage/database.js';
import { PostgresBus } from './postgres-bus.js';

/** A channel whose open() finishes only when the test says so, recording the order of calls. */
function slowChannel() {
  const calls: string[] = [];
  let finishOpen: () => void = () => undefined;
  const channel: BroadcastChannel = {
    open: () =>
      new Promise<void>((resolve) => {
        calls.push('open');
        finishOpen = () => {
          calls.push('opened');
          resolve();
        };
      }),
    send: async (payload) => void calls.push(`send ${payload}`),
    close: async () => void calls.push('close'),
  };
  return { channel, calls, finishOpen: () => finishOpen() };
}

test('a close while the channel is still opening waits for it, so the listener it opens is closed too', async () => {
  const { channel, calls, finishOpen } = slowChannel();
  const bus = new PostgresBus(channel);
  const started = bus.start({ deliver: () => undefined, resync: () => undefined });
  let closed = false;
  const closing = bus.close().then(() => (closed = true));
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(closed, false, 'close waits while the listener is being opened');
  finishOpen();
  await started;
  await closing;
  assert.deepEqual(calls, ['open', 'opened', 'close']);
});

test('batches published while a send is in flight leave merged, in order, and close waits for them', async () => {
  const { channel, calls, finishOpen } = slowChannel();
  const bus = new PostgresBus(channel);
  const started = bus.start({ deliver: () => undefined, resync: () => undefined });
  bus.publish([{ n: 1 }] as never);
  bus.publish([{ n: 2 }] as never);
  finishOpen();
  await started;
  await bus.close();
  assert.deepEqual(calls, ['open', 'opened', 'send [{"n":1},{"n":2}]', 'close']);
});
