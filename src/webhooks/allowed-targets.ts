import { BlockList, isIP } from 'node:net';
import { embeddedIpv4 } from './internal-addresses.js';

/**
 * One entry of site_config.json `webhook_allowed_targets` (docs/configuration.md): a host name,
 * or an address or CIDR range, each with an optional port. An operator's setting: it lives in the
 * site's config file, which no API call writes.
 */
export type AllowedTarget =
  | { readonly kind: 'host'; readonly host: string; readonly port?: number; readonly text: string }
  | { readonly kind: 'range'; readonly range: BlockList; readonly port?: number; readonly text: string };

const HOST = /^(?=.{1,253}$)[a-z0-9_]([a-z0-9_-]{0,62})(\.[a-z0-9_]([a-z0-9_-]{0,62}))*$/;

function parsePort(text: string | undefined, entry: string): number | undefined {
  if (text === undefined) return undefined;
  const port = Number(text);
  if (!/^\d{1,5}$/.test(text) || port < 1 || port > 65535) throw new Error(`"${entry}": the port must be 1 to 65535`);
  return port;
}

function rangeOf(spec: string, entry: string): BlockList | undefined {
  const [address, bits, extra] = spec.split('/');
  const family = isIP(address ?? '');
  if (family === 0 || extra !== undefined) return undefined;
  const max = family === 4 ? 32 : 128;
  const prefix = bits === undefined ? max : Number(bits);
  if (bits !== undefined && (!/^\d{1,3}$/.test(bits) || prefix > max)) throw new Error(`"${entry}": the prefix length must be 0 to ${max}`);
  const list = new BlockList();
  list.addSubnet(address!, prefix, family === 4 ? 'ipv4' : 'ipv6');
  return list;
}

/** Parses one entry; throws an Error that names the entry and what is wrong with it. */
export function parseAllowedTarget(entry: string): AllowedTarget {
  const text = entry.trim();
  // [v6 address or range] with an optional :port
  const bracketed = /^\[([^\]]+)\](?::(\d*))?$/.exec(text);
  if (bracketed) {
    const range = rangeOf(bracketed[1]!, text);
    if (!range || isIP(bracketed[1]!.split('/')[0]!) !== 6) throw new Error(`"${text}": brackets hold an IPv6 address or range`);
    return { kind: 'range', range, port: parsePort(bracketed[2], text), text };
  }
  // A bare IPv6 address or range: no port (its colons would be ambiguous).
  if ((text.match(/:/g) ?? []).length > 1) {
    const range = rangeOf(text, text);
    if (!range) throw new Error(`"${text}": not an IPv6 address or range (write [address]:port for a port)`);
    return { kind: 'range', range, text };
  }
  const [spec, port, extra] = text.split(':');
  if (extra !== undefined || spec === undefined || spec === '')
    throw new Error(`"${text}": expected a host name, address or CIDR range with an optional :port`);
  const range = rangeOf(spec, text);
  if (range) return { kind: 'range', range, port: parsePort(port, text), text };
  const host = spec.toLowerCase().replace(/\.$/, '');
  if (!HOST.test(host)) throw new Error(`"${text}": not a host name, address or CIDR range`);
  return { kind: 'host', host, port: parsePort(port, text), text };
}

/** Parses the config value: absent means none; anything but a list of strings is refused. */
export function parseAllowedTargets(value: unknown): readonly AllowedTarget[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
    throw new Error('must be a list of host names, addresses or CIDR ranges, each with an optional :port');
  }
  return value.map((v: string) => parseAllowedTarget(v));
}

/** Where a connection goes: the URL's host name, the address it resolved to, and the port. */
export interface TargetEndpoint {
  readonly host: string;
  readonly address: string;
  readonly port: number;
}

function inRange(range: BlockList, address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 4) return range.check(bare, 'ipv4');
  if (family !== 6) return false;
  // An IPv4-mapped (or NAT64, 6to4) form matches the IPv4 entries too.
  const v4 = embeddedIpv4(bare);
  return range.check(bare, 'ipv6') || (v4 !== undefined && range.check(v4, 'ipv4'));
}

/** True when an entry allows this endpoint: the host name (any address it resolves to), or the address. */
export function isAllowedTarget(allowed: readonly AllowedTarget[], endpoint: TargetEndpoint): boolean {
  const host = endpoint.host
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  return allowed.some((entry) => {
    if (entry.port !== undefined && entry.port !== endpoint.port) return false;
    return entry.kind === 'host' ? entry.host === host : inRange(entry.range, endpoint.address);
  });
}
