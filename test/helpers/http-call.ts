import { request, type IncomingHttpHeaders } from 'node:http';

/** One answered HTTP request. */
export interface HttpAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
  /** The body parsed as JSON (throws when it is not). */
  json(): Record<string, unknown>;
}

/** What to send. */
export interface HttpCall {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  headers?: Record<string, string>;
  /** Sent as JSON. */
  body?: unknown;
  /** Give up (reject) after this long; default 15 s. */
  timeoutMs?: number;
}

/**
 * Sends one request on a fresh connection that is closed afterwards (no keep-alive agent), so
 * consecutive calls to a cluster are handed to its workers in turn.
 */
export function httpCall(baseUrl: string, call: HttpCall): Promise<HttpAnswer> {
  const payload = call.body === undefined ? undefined : Buffer.from(JSON.stringify(call.body));
  const headers: Record<string, string | number> = { accept: 'application/json', ...call.headers };
  if (payload) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = payload.length;
  }
  return new Promise((resolve, reject) => {
    const req = request(new URL(call.path, baseUrl), { method: call.method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          text,
          json: () => JSON.parse(text) as Record<string, unknown>,
        });
      });
    });
    req.setTimeout(call.timeoutMs ?? 15_000, () => req.destroy(new Error(`${call.method} ${call.path}: no answer in time`)));
    req.on('error', reject);
    req.end(payload);
  });
}
