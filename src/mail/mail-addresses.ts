import { InvalidEmailAddressError } from '../errors/index.js';

// The reference's address pattern (as src/meta/field-types/data-options.ts checks Email fields).
const EMAIL = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/i;
const NAMED = /^[^<>\r\n]*<([^<>]+)>$/;

/** True for a bare address such as `ann@example.com`. */
export function isEmailAddress(text: string): boolean {
  return text.length <= 254 && EMAIL.test(text);
}

/**
 * The bare addresses of a recipients argument: a list, or text separated by commas, semicolons or
 * new lines; `Name <address>` keeps the address. Throws InvalidEmailAddressError naming the first
 * part that is not an address. Duplicates (in any case) are dropped, the first spelling kept.
 */
export function parseAddressList(value: unknown, what: string): string[] {
  if (value === undefined || value === null || value === '') return [];
  const parts = Array.isArray(value) ? value : [value];
  const out: string[] = [];
  const seen = new Set<string>();
  for (const part of parts) {
    if (typeof part !== 'string') throw new InvalidEmailAddressError(`${what}: every recipient must be an email address, got ${JSON.stringify(part)}`);
    for (const piece of part.split(/[,;\n]/)) {
      const trimmed = piece.trim();
      if (trimmed === '') continue;
      const address = NAMED.exec(trimmed)?.[1]?.trim() ?? trimmed;
      if (!isEmailAddress(address)) throw new InvalidEmailAddressError(`${what}: ${trimmed} is not a valid Email Address`);
      const key = address.toLowerCase();
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(address);
    }
  }
  return out;
}
