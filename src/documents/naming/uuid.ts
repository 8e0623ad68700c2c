import { randomBytes } from 'node:crypto';

const HEX32 = /^[0-9a-f]{32}$/;

/** A new UUID version 7 (RFC 9562): 48-bit Unix milliseconds, then 74 random bits. */
export function uuid7(epochMs: number = Date.now()): string {
  const bytes = randomBytes(16);
  let t = epochMs;
  for (let i = 5; i >= 0; i--) {
    bytes[i] = t % 256;
    t = Math.floor(t / 256);
  }
  bytes[6] = 0x70 | (bytes[6] & 0x0f);
  bytes[8] = 0x80 | (bytes[8] & 0x3f);
  return canonical(bytes.toString('hex'));
}

function canonical(hex: string): string {
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The canonical lower-case form of a UUID of any version, or undefined when `value` is not one.
 * Accepts the spellings Python's `uuid.UUID` accepts (the reference validates with it): braces,
 * a `urn:uuid:` prefix, hyphens anywhere, any case.
 */
export function parseUuid(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  let text = value.trim().toLowerCase();
  if (text.startsWith('urn:')) text = text.slice(4);
  if (text.startsWith('uuid:')) text = text.slice(5);
  if (text.startsWith('{') && text.endsWith('}')) text = text.slice(1, -1);
  text = text.replaceAll('-', '');
  return HEX32.test(text) ? canonical(text) : undefined;
}
