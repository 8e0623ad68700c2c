import { Socket } from 'node:net';
import type { FastifyRequest } from 'fastify';

/** At most this many more bytes of an unread body are read (and dropped) after an early answer. */
export const LINGER_MAX_BYTES = 32 * 1024 * 1024;
/** At most this long is the connection kept open for them. */
export const LINGER_MAX_MS = 10_000;

/** How often the bytes read while lingering are counted (the HTTP parser reads the socket itself). */
const COUNT_EVERY_MS = 50;

const lingering = new WeakSet<Socket>();

/**
 * Lets a client that writes its whole body before reading (Node's http module, curl without
 * `Expect`) read an answer sent before that body was read: a 413 on the declared length, a refused
 * upload. Closing at once would leave unread bytes in the kernel, which makes it reset the
 * connection, and the client then sees EPIPE or ECONNRESET instead of the answer. So once the
 * answer is written the connection is half-closed (the answer, then FIN), the rest of the body is
 * read and dropped, and the socket is closed when the body is complete, when the client closes its
 * side, or past LINGER_MAX_BYTES or LINGER_MAX_MS, whichever comes first (docs/api.md "Requests
 * and answers"). Call it for an answer that carries `Connection: close`; injected requests are
 * left alone.
 */
export function lingerAfterAnswer(req: FastifyRequest, limits = { bytes: LINGER_MAX_BYTES, ms: LINGER_MAX_MS }): void {
  const raw = req.raw;
  const socket = raw.socket;
  if (!(socket instanceof Socket) || socket.destroyed || lingering.has(socket)) return;
  lingering.add(socket);
  // Node's server ends a `Connection: close` exchange with destroySoon(): flush, then destroy.
  socket.destroySoon = function lingeringClose(this: Socket) {
    if (this.writable) this.end();
    const start = this.bytesRead;
    const stop = () => {
      clearTimeout(timer);
      clearInterval(counter);
    };
    // Done reading: close once the answer is flushed, as Node would have.
    const close = () => {
      stop();
      if (this.writableFinished) this.destroy();
      else this.once('finish', () => this.destroy());
    };
    // Past a limit: close now, flushed or not (a client that reads nothing must not hold it).
    const cut = () => {
      stop();
      this.destroy();
    };
    const timer = setTimeout(cut, limits.ms);
    const counter = setInterval(() => {
      if (this.bytesRead - start > limits.bytes) cut();
    }, COUNT_EVERY_MS);
    timer.unref();
    counter.unref();
    this.once('close', stop);
    this.once('end', close);
    if (raw.complete) return close();
    raw.once('end', close);
    // Whatever was reading the body (a multipart parser) has given up: the bytes go nowhere now.
    raw.unpipe();
    raw.resume();
  };
}
