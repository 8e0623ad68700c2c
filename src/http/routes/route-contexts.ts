import type { FastifyInstance, RouteOptions } from 'fastify';

/**
 * Where routes are registered: `writes` is the context that reads multipart bodies, `reads` the
 * one that does not (app.ts). A GET never carries an upload, so GET routes go to `reads` and do
 * not pay for the multipart plugin's hooks (docs/benchmarks.md "What keeps the hot path fast").
 */
export interface RouteContexts {
  readonly reads: FastifyInstance;
  readonly writes: FastifyInstance;
}

/**
 * Registers `route` for its verbs: GET (with the HEAD Fastify adds to it) in `reads`, every other
 * verb in `writes`, as one route per context so both keep the same URL and handler.
 */
export function routeByVerb(contexts: RouteContexts, route: RouteOptions): void {
  const verbs = Array.isArray(route.method) ? route.method : [route.method];
  const reads = verbs.filter((v) => v === 'GET');
  const writes = verbs.filter((v) => v !== 'GET');
  if (reads.length > 0) contexts.reads.route({ ...route, method: reads });
  if (writes.length > 0) contexts.writes.route({ ...route, method: writes });
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A 405 filler's verbs served on its URL (resource-routes.ts); describers skip such routes. */
    allow?: string;
    /** The wildcard route that serves document names holding `/` (resource-routes.ts). */
    slashNames?: boolean;
  }
}
