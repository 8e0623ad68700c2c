import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server, type Socket } from 'socket.io';
import { io, type Socket as ClientSocket } from 'socket.io-client';
import type { DeliveredMessage } from '../realtime-message.js';
import { SocketSubscriber, SocketTransport } from './socket-transport.js';

const message = (id: string, payload: unknown): DeliveredMessage => ({ kind: 'event', id, event: 'seq', message: payload, room: 'all' });

describe('SocketTransport', () => {
  const http = createServer();
  const server = new Server(http);
  const transport = new SocketTransport();
  const connected: Socket[] = [];
  let url = '';

  before(async () => {
    server.of('/site').on('connection', (socket) => connected.push(socket));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/site`;
  });
  after(async () => {
    await server.close();
  });

  for (const transports of [['websocket'], ['polling']] as const) {
    test(`a run of events reaches a ${transports[0]} client in order, after the packets Engine.IO holds, binary payloads among them`, async () => {
      const client: ClientSocket = io(url, { transports: [...transports], reconnection: false, forceNew: true });
      const got: unknown[] = [];
      client.onAny((_event, payload: unknown) => got.push(Buffer.isBuffer(payload) ? 'bytes' : payload));
      await new Promise<void>((resolve) => client.once('connect', () => resolve()));
      const socket = connected[connected.length - 1];
      const subscriber = new SocketSubscriber(socket, 'sam', undefined, false, undefined, '127.0.0.1', transport);
      // The second emit waits in Engine.IO's queue while the first is written: what follows must not overtake it.
      socket.emit('seq', 'queued 1');
      socket.emit('seq', 'queued 2');
      transport.send([
        { subscribers: [subscriber], message: message('1', 'a') },
        { subscribers: [subscriber], message: message('2', Buffer.from([1, 2])) },
        { subscribers: [subscriber], message: message('3', 'b') },
      ]);
      transport.send([{ subscribers: [subscriber], message: message('4', 'c') }]);
      const expected = ['queued 1', 'queued 2', 'a', 'bytes', 'b', 'c'];
      for (let waited = 0; got.length < expected.length && waited < 5000; waited += 10) await new Promise((r) => setTimeout(r, 10));
      client.disconnect();
      assert.deepEqual(got, expected);
    });
  }
});
