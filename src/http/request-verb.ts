import type { FastifyRequest } from 'fastify';

/**
 * The verb a route acts on: `HEAD` is served as `GET` (RFC 9110: the same answer without its
 * body; Node never writes a body for HEAD, and Fastify's HEAD routes drop it), so every resource
 * or method that answers GET answers HEAD with the same status and headers.
 */
export function requestVerb(req: FastifyRequest): string {
  return req.method === 'HEAD' ? 'GET' : req.method;
}
