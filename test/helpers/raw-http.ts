import assert from 'node:assert/strict';
import { connect, type AddressInfo, type Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { assertV1Error } from './error-envelope.js';

/** One answer read off a raw connection. */
export interface RawAnswer {
  readonly statusCode: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** Splits raw HTTP/1.1 text into its answers (each with a Content-Length, as fw always sends). */
export function parseAnswers(text: string): RawAnswer[] {
  const answers: RawAnswer[] = [];
  let rest = text;
  while (rest.startsWith('HTTP/1.1 ')) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) break;
    const [statusLine, ...lines] = rest.slice(0, end).split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) headers[line.slice(0, line.indexOf(':')).toLowerCase()] = line.slice(line.indexOf(':') + 1).trim();
    const length = Number(headers['content-length'] ?? 0);
    answers.push({ statusCode: Number(statusLine.split(' ')[1]), headers, body: rest.slice(end + 4, end + 4 + length) });
    rest = rest.slice(end + 4 + length);
  }
  return answers;
}

/** Opens a connection to a listening app. */
export async function open(app: FastifyInstance): Promise<Socket> {
  const { port } = app.server.address() as AddressInfo;
  const socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  return socket;
}

/** Everything the server sends until it closes the connection (or `ms` pass). */
export function readUntilClosed(socket: Socket, ms = 10_000): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(text);
    }, ms);
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(text);
    });
  });
}

/** Sends `text` on a fresh connection and answers what came back before the server closed it. */
export async function rawExchange(app: FastifyInstance, text: string, ms?: number): Promise<RawAnswer[]> {
  const socket = await open(app);
  const answer = readUntilClosed(socket, ms);
  socket.write(text);
  return parseAnswers(await answer);
}

/** Asserts the v1 envelope on a raw answer. */
export function assertRawError(answer: RawAnswer | undefined, status: number, excType: string): void {
  assert.ok(answer, 'the server answered');
  assertV1Error({ statusCode: answer.statusCode, headers: answer.headers, body: answer.body }, status, excType);
}

/** Waits until `check` holds, polling; fails with `what` after a few seconds. */
export async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(what);
}

/** The first complete answer the server sends on `socket` (it need not close the connection). */
export function firstAnswer(socket: Socket, ms = 10_000): Promise<RawAnswer | undefined> {
  return new Promise((resolve) => {
    let text = '';
    const done = (answer: RawAnswer | undefined) => {
      clearTimeout(timer);
      socket.off('data', onData);
      resolve(answer);
    };
    const timer = setTimeout(() => done(undefined), ms);
    const onData = (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const [answer] = parseAnswers(text);
      if (answer && text.includes('\r\n\r\n') && Buffer.byteLength(answer.body) >= Number(answer.headers['content-length'] ?? 0)) done(answer);
    };
    socket.on('data', onData);
    socket.on('error', () => undefined);
    socket.on('close', () => done(parseAnswers(text)[0]));
  });
}
