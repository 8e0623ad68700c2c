import type { IncomingMessage } from 'node:http';
import { isIPv6 } from 'node:net';
import proxyAddr from '@fastify/proxy-addr';
import { GUEST_USER } from '../../auth/principal.js';
import type { TrustProxy } from '../realtime-site.js';

type Trust = (address: string, hop: number) => boolean;

/**
 * `trust_proxy` as the address resolver takes it, the way the HTTP app hands it to Fastify: a
 * number of hops trusts that many nearest hops, a list names the proxies (docs/deployment.md,
 * "Behind a reverse proxy").
 */
export function proxyTrust(trust: TrustProxy): Trust {
  if (trust === false) return () => false;
  if (typeof trust === 'number') return (_address, hop) => hop < trust;
  return proxyAddr.compile([...trust]);
}

/**
 * The client address of a raw request (a Socket.IO handshake, which Fastify never sees): the
 * socket's peer, or behind trusted proxies the address the outermost trusted one reports, exactly
 * as `req.ip` is for HTTP requests.
 */
export function clientAddressOf(req: IncomingMessage, trust: Trust): string {
  try {
    return proxyAddr(req, trust);
  } catch {
    return req.socket.remoteAddress ?? '';
  }
}

/**
 * The group a Guest connection is counted in: its IPv4 address, or the /64 of an IPv6 address,
 * since one IPv6 host usually holds a whole /64 and could otherwise count as billions of clients.
 */
export function addressGroup(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1];
  if (!isIPv6(address)) return address;
  const [head, tail = ''] = address.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === '' ? [] : tail.split(':');
  const groups = address.includes('::') ? [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((g) => g.toLowerCase().replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

/**
 * What the per-user connection limit counts a client under: its user, except Guest, which every
 * anonymous client shares, counted per client address so one client cannot use up the limit of
 * all (docs/realtime.md, "Limits").
 */
export function quotaKey(user: string, address: string): string {
  return user === GUEST_USER ? `${GUEST_USER}@${addressGroup(address)}` : user;
}
