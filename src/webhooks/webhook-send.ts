import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isInternalAddress } from './internal-addresses.js';
import { guardedLookup, literalAddress, RefusedTarget, refusal, urlPort, type TargetPolicy } from './target-guard.js';

/** What one HTTP attempt produced. */
export interface SendResult {
  /** The HTTP status, when an answer came. */
  readonly status?: number;
  readonly headers: IncomingHttpHeaders;
  /** The start of the answer's body (at most {@link MAX_RESPONSE_BYTES}). */
  readonly body: string;
  /** Why no usable answer came: a network error, the timeout, a refused target or redirect. */
  readonly error?: string;
  /** True when retrying cannot help (a refused target, a redirect to another host). */
  readonly fatal?: boolean;
  /** True when the answer came from an internal address (one the operator allowed): its body is not kept. */
  readonly internal?: boolean;
}

/** One request to send. */
export interface SendOptions {
  readonly url: string;
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly timeoutMs: number;
  /** Where the request may connect (site_config.json `webhook_allowed_targets`, target-guard.ts). */
  readonly targets: TargetPolicy;
}

/** The most of an answer's body that is read (and kept on the log): 4 KiB. */
export const MAX_RESPONSE_BYTES = 4 * 1024;
const MAX_REDIRECTS = 3;

/** Kept for callers of the earlier name: true for an internal address (internal-addresses.ts). */
export const isPrivateAddress = isInternalAddress;

/**
 * Sends one webhook request with node:http(s): a hard timeout over the whole exchange, at most
 * {@link MAX_RESPONSE_BYTES} of the answer read, redirects followed only within the same host
 * and port (at most three), and every hop's target judged by the policy: an IP literal before connecting,
 * a host name on its DNS answer at connect time (docs/webhooks.md "Safety").
 */
export async function sendWebhookRequest(options: SendOptions): Promise<SendResult> {
  let url: URL;
  try {
    url = new URL(options.url);
  } catch {
    return { headers: {}, body: '', error: `Invalid URL ${options.url}`, fatal: true };
  }
  const origin = url.host;
  let method = options.method;
  let body: string | undefined = options.body;
  for (let hop = 0; ; hop += 1) {
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      return { headers: {}, body: '', error: `Only http and https URLs are allowed, not ${url.protocol}`, fatal: true };
    const literal = literalAddress(url);
    const refused = literal === undefined ? undefined : refusal(options.targets, literal, literal, urlPort(url));
    if (refused) return { headers: {}, body: '', error: refused, fatal: true };
    const result = await once(url, method, options.headers, body, options.timeoutMs, options.targets);
    const location = result.headers.location;
    if (result.status === undefined || result.status < 300 || result.status >= 400 || result.status === 304 || !location) return result;
    let next: URL;
    try {
      next = new URL(location, url);
    } catch {
      return { ...result, error: `Redirect to an invalid location not followed`, fatal: true };
    }
    if (next.host !== origin) {
      return { ...result, error: `Redirect to another host (${next.host}) not followed`, fatal: true };
    }
    if (hop >= MAX_REDIRECTS) return { ...result, error: 'Too many redirects', fatal: true };
    if (result.status === 303 || ((result.status === 301 || result.status === 302) && method !== 'GET')) {
      method = 'GET';
      body = undefined;
    }
    url = next;
  }
}

function once(
  url: URL,
  method: string,
  headers: Readonly<Record<string, string>>,
  body: string | undefined,
  timeoutMs: number,
  targets: TargetPolicy,
): Promise<SendResult> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: SendResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const payload = body === undefined ? undefined : Buffer.from(body);
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(
      url,
      {
        method,
        headers: { 'User-Agent': 'fw-webhook', ...headers, ...(payload ? { 'Content-Length': String(payload.length) } : {}) },
        lookup: guardedLookup(targets, urlPort(url)),
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          if (size >= MAX_RESPONSE_BYTES) return;
          chunks.push(chunk);
          size += chunk.length;
          if (size >= MAX_RESPONSE_BYTES) res.destroy();
        });
        // Judged on the address actually connected to, whatever the name resolved to.
        const internal = isInternalAddress(res.socket?.remoteAddress ?? req.socket?.remoteAddress ?? '');
        const done = () =>
          finish({
            status: res.statusCode,
            headers: res.headers,
            body: internal ? '' : Buffer.concat(chunks).subarray(0, MAX_RESPONSE_BYTES).toString('utf8'),
            internal,
          });
        res.on('end', done);
        res.on('close', done);
        res.on('error', done);
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      finish({ headers: {}, body: '', error: `Timed out after ${timeoutMs} ms` });
    }, timeoutMs);
    req.on('error', (err) =>
      finish({
        headers: {},
        body: '',
        error: err instanceof RefusedTarget ? err.message : `${(err as NodeJS.ErrnoException).code ?? 'Error'}: ${err.message}`,
        fatal: err instanceof RefusedTarget,
      }),
    );
    req.end(payload);
  });
}
