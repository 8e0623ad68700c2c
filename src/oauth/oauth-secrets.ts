import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A new secret (client secret, code, token): 32 random bytes, base64url (docs/security.md "OAuth provider secrets and keys"). */
export function newSecret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** What is stored of a secret: its SHA-256, hex. Secrets are random, so no salt or slow hash is needed. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** True when `given` hashes to `storedHash`, compared in constant time whatever the lengths. */
export function secretMatches(given: string, storedHash: string): boolean {
  const a = Buffer.from(hashSecret(given), 'hex');
  const b = Buffer.from(storedHash.padEnd(64, '0').slice(0, 64), 'hex');
  return a.length === b.length && timingSafeEqual(a, b) && storedHash.length === 64;
}

/** The S256 code challenge of a PKCE verifier (RFC 7636 4.2). */
export function s256Challenge(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** True when `verifier` is a well-formed PKCE verifier whose S256 challenge is `challenge`, compared in constant time. */
export function pkceMatches(verifier: string, challenge: string): boolean {
  if (!/^[A-Za-z0-9\-._~]{43,128}$/.test(verifier)) return false;
  const a = Buffer.from(s256Challenge(verifier));
  const b = Buffer.from(challenge);
  return a.length === b.length && timingSafeEqual(a, b);
}
