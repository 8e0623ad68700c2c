import { BlockList, isIP } from 'node:net';

/**
 * Addresses that lead inside: this machine, its networks, its cloud's metadata service, or nowhere
 * a webhook has business (docs/webhooks.md "Safety"). IPv4: "this network" 0/8, private 10/8,
 * 172.16/12, 192.168/16, carrier-grade NAT 100.64/10, loopback 127/8, link-local 169.254/16 (cloud
 * metadata at 169.254.169.254), IETF protocol assignments 192.0.0/24, benchmarking 198.18/15,
 * multicast 224/4, reserved 240/4 and broadcast.
 */
const IPV4_RANGES: readonly (readonly [string, number])[] = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];

/**
 * IPv6: unspecified and loopback, discard-only 100::/64, unique-local fc00::/7 (fd00::/8
 * included), link-local fe80::/10, the retired site-local fec0::/10, multicast ff00::/8. IPv6 forms
 * that carry an IPv4 address (mapped ::ffff:0:0/96, compatible ::/96, NAT64 64:ff9b::/96 and
 * 64:ff9b:1::/48, 6to4 2002::/16) are judged by that IPv4 address instead.
 */
const IPV6_RANGES: readonly (readonly [string, number])[] = [
  ['::', 128],
  ['::1', 128],
  ['100::', 64],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
];

const INTERNAL = new BlockList();
for (const [net, prefix] of IPV4_RANGES) INTERNAL.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of IPV6_RANGES) INTERNAL.addSubnet(net, prefix, 'ipv6');

/** The eight 16-bit groups of an IPv6 address (a trailing dotted IPv4 part included). */
export function ipv6Groups(address: string): number[] | undefined {
  if (isIP(address) !== 6) return undefined;
  let text = address.toLowerCase().replace(/%.*$/, '');
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const part = (s: string | undefined) => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const left = part(head);
  const right = part(tail);
  const groups = tail === undefined ? left : [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : undefined;
}

function ipv4Of(high: number, low: number): string {
  return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
}

/**
 * The IPv4 address an IPv6 address stands for, when it is one of the forms that carry one
 * (mapped, compatible, NAT64, 6to4); undefined otherwise.
 */
export function embeddedIpv4(address: string): string | undefined {
  const g = ipv6Groups(address);
  if (!g) return undefined;
  const zero = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zero(0, 5) && g[5] === 0xffff) return ipv4Of(g[6]!, g[7]!);
  // ::a.b.c.d (deprecated "compatible"), but not :: and ::1, which are IPv6's own.
  if (zero(0, 6) && (g[6]! !== 0 || g[7]! > 1)) return ipv4Of(g[6]!, g[7]!);
  if (g[0] === 0x64 && g[1] === 0xff9b && zero(2, 6)) return ipv4Of(g[6]!, g[7]!);
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return ipv4Of(g[6]!, g[7]!);
  if (g[0] === 0x2002) return ipv4Of(g[1]!, g[2]!);
  return undefined;
}

/**
 * True for an address a webhook does not reach unless the operator allowed it
 * (site_config.json `webhook_allowed_targets`). Anything that is not an IP address is not judged
 * here: host names are judged by the addresses they resolve to.
 */
export function isInternalAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  if (family === 4) return INTERNAL.check(bare, 'ipv4');
  if (family !== 6) return false;
  const v4 = embeddedIpv4(bare);
  if (v4 !== undefined) return INTERNAL.check(v4, 'ipv4');
  return INTERNAL.check(bare.replace(/%.*$/, ''), 'ipv6');
}
