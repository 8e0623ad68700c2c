import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { isAllowedTarget, type AllowedTarget } from './allowed-targets.js';
import { isInternalAddress } from './internal-addresses.js';

/**
 * Where webhooks may connect (docs/webhooks.md "Safety"): by default nowhere internal
 * (internal-addresses.ts) except what the operator allowed in site_config.json.
 */
export interface TargetPolicy {
  /** False only when site_config.json sets `webhook_deny_private_targets: false` (everything is reachable). */
  readonly denyInternal: boolean;
  readonly allowed: readonly AllowedTarget[];
}

/** The default: nothing internal, nothing allowed. */
export const DENY_INTERNAL: TargetPolicy = { denyInternal: true, allowed: [] };

/** A connection the policy refuses; never worth a retry. */
export class RefusedTarget extends Error {}

/** The port a URL connects to. */
export function urlPort(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
}

/** Why `address` (what `host` resolved to) may not be reached on `port`; undefined when it may. */
export function refusal(policy: TargetPolicy, host: string, address: string, port: number): string | undefined {
  if (!policy.denyInternal || !isInternalAddress(address)) return undefined;
  if (isAllowedTarget(policy.allowed, { host, address, port })) return undefined;
  const shown = host.replace(/^\[|\]$/g, '') === address ? address : `${host} (${address})`;
  return `The target ${shown} port ${port} is an internal address (loopback, private, link-local or reserved); allow it in site_config.json webhook_allowed_targets`;
}

/** Judges a whole DNS answer: one internal address not allowed refuses the host, whichever would be used. */
export function refusalOfAnswer(policy: TargetPolicy, host: string, addresses: readonly string[], port: number): string | undefined {
  for (const address of addresses) {
    const why = refusal(policy, host, address, port);
    if (why) return why;
  }
  return undefined;
}

/**
 * A `lookup` for node:http(s) that resolves as usual and then judges every address of the answer,
 * at connect time, so a name that answers differently the second time (DNS rebinding) is judged on
 * the answer actually used. Host names that are IP literals never reach a lookup: the caller
 * judges them with {@link refusal} first.
 */
export function guardedLookup(policy: TargetPolicy, port: number): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, answer) => {
      if (err) return callback(err, '', 4);
      const list = answer as LookupAddress[];
      const why =
        list.length === 0
          ? `${hostname} has no address`
          : refusalOfAnswer(
              policy,
              hostname,
              list.map((a) => a.address),
              port,
            );
      if (why) return callback(new RefusedTarget(why), '', 4);
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  };
}

/** True when a URL's host name is an IP literal (judged before connecting; no lookup runs for it). */
export function literalAddress(url: URL): string | undefined {
  const bare = url.hostname.replace(/^\[|\]$/g, '');
  return isIP(bare) ? bare : undefined;
}
