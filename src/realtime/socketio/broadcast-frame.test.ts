import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Encoder, PacketType } from 'socket.io-parser';
import { createRequire } from 'node:module';
import { encodeBroadcast, holdsBinary } from './broadcast-frame.js';

/** ws's frame builder, which socket.io-adapter uses for its broadcasts (the CommonJS entry exports it). */
const { Sender } = createRequire(import.meta.url)('ws') as { Sender: { frame(data: Buffer, options: object): Buffer[] } };

/** What Socket.IO itself puts on the wire for a broadcast (its parser, then ws's frame of the Engine.IO message). */
function socketIoBytes(nsp: string, event: string, payload: unknown): { packet: string; frame: Buffer } {
  const [packet] = new Encoder().encode({ type: PacketType.EVENT, nsp, data: [event, payload] }) as string[];
  const data = Buffer.from(`4${packet}`);
  const parts = Sender.frame(data, {
    readOnly: false,
    mask: false,
    rsv1: false,
    opcode: 1,
    fin: true,
  });
  return { packet, frame: Buffer.concat(parts) };
}

describe('an event encoded once for every socket', () => {
  const payloads: [string, unknown][] = [
    ['a list_update', { doctype: 'ToDo', name: 'abc', user: 'jane@example.com', action: 'update' }],
    ['text with non-ASCII characters', { message: 'Grüße, 東京 ✓' }],
    ['null', null],
    ['a 2-byte length (126 to 65,535 bytes)', { description: 'x'.repeat(500) }],
    ['an 8-byte length (65,536 bytes and more)', { description: 'y'.repeat(70_000) }],
  ];
  for (const [what, payload] of payloads) {
    test(`is byte for byte what Socket.IO sends: ${what}`, () => {
      for (const nsp of ['/site.example.com', '/']) {
        const ours = encodeBroadcast(nsp, 'list_update', [payload]);
        const theirs = socketIoBytes(nsp, 'list_update', payload);
        assert.equal(ours.packet, theirs.packet);
        assert.ok(ours.frame.equals(theirs.frame), `${nsp}: frames differ`);
      }
    });
  }

  test('leaves payloads with bytes in them to Socket.IO, which sends them as attachments', () => {
    assert.equal(holdsBinary({ a: [1, { b: Buffer.from('x') }] }), true);
    assert.equal(holdsBinary(new Uint8Array(2)), true);
    assert.equal(holdsBinary({ a: [1, 'two', { three: null }], d: new Date(0) }), false);
    assert.equal(holdsBinary('text'), false);
  });
});
