import type { FastifyRequest } from 'fastify';
import { InvalidRequestBody } from '../errors/index.js';

/** True when the request carried a JSON body (the parser leaves `undefined` for an empty one). */
function hasJsonBody(req: FastifyRequest): boolean {
  const type = req.headers['content-type'] ?? '';
  return /^application\/(.+\+)?json/i.test(type) && req.body !== undefined;
}

/** The first value of each query key (a repeated key keeps its first value, as the reference does). */
export function firstValues(source: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (source === null || typeof source !== 'object') return out;
  for (const [k, v] of Object.entries(source as Record<string, unknown>)) out[k] = Array.isArray(v) ? v[0] : v;
  return out;
}

/**
 * The arguments of a request (docs/api.md "Requests and answers"): a non-empty JSON body replaces the query string
 * (an array body becomes `{data: [...]}`); otherwise query string and form fields merge, form
 * fields winning. `_` (cache buster) and `sid` (it authenticates, see authenticate.ts) are dropped.
 */
export function requestArgs(req: FastifyRequest): Record<string, unknown> {
  let args: Record<string, unknown>;
  if (hasJsonBody(req)) {
    args = Array.isArray(req.body) ? { data: req.body } : { ...(req.body as Record<string, unknown>) };
  } else {
    args = { ...firstValues(req.query), ...firstValues(req.body) };
  }
  delete args._;
  delete args.sid;
  return args;
}

/**
 * The document carried by a resource write: a form field `data` holding JSON (the Python client),
 * a JSON body's `data` object, or the arguments themselves.
 */
export function documentPayload(args: Record<string, unknown>): Record<string, unknown> {
  const data = args.data;
  if (typeof data === 'string') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch {
      throw new InvalidRequestBody('The "data" field must hold a JSON object');
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new InvalidRequestBody('The "data" field must hold a JSON object');
    }
    return parsed as Record<string, unknown>;
  }
  if (data !== null && typeof data === 'object' && !Array.isArray(data)) return data as Record<string, unknown>;
  if (Array.isArray(data)) throw new InvalidRequestBody('A document must be a JSON object, not a list');
  return args;
}
