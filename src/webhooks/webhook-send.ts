import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';

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
}

/** One request to send. */
export interface SendOptions {
  readonly url: string;
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly timeoutMs: number;
  /** Refuse loopback, private and link-local addresses (site config `webhook_deny_private_targets`). */
  readonly denyPrivate: boolean;
}

export const MAX_RESPONSE_BYTES = 64 * 1024;
const MAX_REDIRECTS = 3;

/** Addresses a webhook may be refused to reach: loopback, private, link-local, unspecified, CGNAT, ULA. */
const PRIVATE = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
] as const) {
  PRIVATE.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
] as const) {
  PRIVATE.addSubnet(net, prefix, 'ipv6');
}

/** True for an address a webhook with private targets denied must not reach (IPv4-mapped IPv6 included). */
export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return PRIVATE.check(mapped[1], 'ipv4');
  const family = isIP(address);
  if (family === 0) return false;
  return PRIVATE.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

class RefusedTarget extends Error {}

/** dns.lookup that refuses private answers, checked at connect time (so DNS rebinding cannot slip past). */
const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, '', 4);
    const list = addresses as LookupAddress[];
    const bad = list.find((a) => isPrivateAddress(a.address));
    if (bad) return callback(new RefusedTarget(`${hostname} resolves to the private address ${bad.address}`), '', 4);
    if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
    callback(null, list[0].address, list[0].family);
  });
};

/**
 * Sends one webhook request with node:http(s): a hard timeout over the whole exchange, at most
 * {@link MAX_RESPONSE_BYTES} of the answer read, redirects followed only within the same host
 * (at most three), and private targets refused when asked (docs/webhooks.md "Safety").
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
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return { headers: {}, body: '', error: `Only http and https URLs are allowed, not ${url.protocol}`, fatal: true };
    const literal = url.hostname.replace(/^\[|\]$/g, '');
    if (options.denyPrivate && (isPrivateAddress(literal) || literal.toLowerCase() === 'localhost')) {
      return { headers: {}, body: '', error: `The target ${url.hostname} is a private or loopback address`, fatal: true };
    }
    const result = await once(url, method, options.headers, body, options.timeoutMs, options.denyPrivate);
    const location = result.headers.location;
    if (result.status === undefined || result.status < 300 || result.status >= 400 || result.status === 304 || !location) return result;
    const next = new URL(location, url);
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
  denyPrivate: boolean,
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
        ...(denyPrivate ? { lookup: guardedLookup } : {}),
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
        const done = () =>
          finish({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).subarray(0, MAX_RESPONSE_BYTES).toString('utf8') });
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
      finish({ headers: {}, body: '', error: err instanceof RefusedTarget ? err.message : `${(err as NodeJS.ErrnoException).code ?? 'Error'}: ${err.message}`, fatal: err instanceof RefusedTarget }),
    );
    req.end(payload);
  });
}
