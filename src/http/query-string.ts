import { parse } from 'fast-querystring';

/**
 * Query strings as Fastify's router reads them (find-my-way's default parser, given to Fastify
 * explicitly in app.ts) and as the fast lane reads them (document-fast-lane.ts): one parser, so a
 * request's arguments are the same whichever way it is answered.
 */
export function parseQueryString(query: string): Record<string, unknown> {
  return query.length === 0 ? {} : parse(query);
}
