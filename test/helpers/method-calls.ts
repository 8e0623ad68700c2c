import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import type { TestSite } from './test-site.js';

/** Verbs a whitelisted method may be called with. */
export type Verb = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';

/**
 * Calls `/api/method/<path>`: GET and DELETE send the arguments in the query string (objects
 * JSON-encoded, as frappe-js-sdk does), other verbs as a JSON body. `auth` replaces the
 * Administrator's token (an `Authorization` value).
 */
export function callMethod(t: TestSite, verb: Verb, path: string, args: Record<string, unknown> = {}, auth?: string): Promise<LightMyRequestResponse> {
  const headers = auth ? { authorization: auth } : undefined;
  if (verb === 'GET' || verb === 'DELETE') {
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(args)) {
      if (v !== undefined && v !== null) query.set(k, typeof v === 'object' ? JSON.stringify(v) : String(v));
    }
    const qs = query.toString();
    return t.request({ method: verb, url: `/api/method/${path}${qs ? `?${qs}` : ''}`, headers });
  }
  return t.request({ method: verb, url: `/api/method/${path}`, body: args, headers });
}

/** The `message` of a 200 answer, failing with the body otherwise. */
export function messageOf(res: LightMyRequestResponse): any {
  assert.equal(res.statusCode, 200, res.body);
  return res.json().message;
}
