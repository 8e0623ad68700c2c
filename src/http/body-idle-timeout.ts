import type { FastifyRequest } from 'fastify';
import type { RequestStep } from './request-pipeline.js';

/** How long a request body may go without a byte arriving before the request is given up. */
export const DEFAULT_BODY_IDLE_TIMEOUT_MS = 60_000;

/** True when the request announces a body (a length above zero, or a chunked one). */
export function announcesBody(req: FastifyRequest): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * Sets the idle timeout of the request's connection (0: none). Injected requests (tests) have a
 * stand-in socket without timeouts, so they are left alone.
 */
export function setConnectionTimeout(req: FastifyRequest, ms: number): boolean {
  const socket = req.raw.socket as { setTimeout?: unknown } | undefined;
  if (typeof socket?.setTimeout !== 'function') return false;
  req.raw.socket.setTimeout(ms);
  return true;
}

/**
 * An idle timeout on request bodies: while a body is being received, a connection on which no byte
 * arrives for `idleMs` is closed (Node destroys a socket whose timeout nobody handles), so a client
 * that stops sending cannot hold a request, and whatever it was writing, forever. Multipart
 * staging listens for the same timeout and answers 408 instead (see multipart-uploads.ts). The
 * timeout ends once the body is read (`end`, a preHandler step), so slow handlers and slow
 * responses are never cut off. No steps when `idleMs` is 0.
 */
export function bodyIdleTimeout(idleMs: number): { start?: RequestStep; end?: RequestStep } {
  if (idleMs <= 0) return {};
  return {
    start: (req) => {
      if (announcesBody(req)) setConnectionTimeout(req, idleMs);
      return undefined;
    },
    // A request answered before its body was read (an error) keeps the timeout only until Node
    // replaces it with the keep-alive timeout as the answer finishes, which must not be undone
    // by a reset here.
    end: (req) => {
      if (announcesBody(req)) setConnectionTimeout(req, 0);
      return undefined;
    },
  };
}
