import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { FwError } from '../errors/index.js';

/*
 * Reversible encryption for Password-field values of DocTypes other than User: AES-256-GCM with a
 * key derived from the site's `encryption_key`. GCM authenticates, so a changed ciphertext or the
 * wrong key is detected rather than decrypted into garbage.
 */

const PREFIX = 'gcm1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HKDF_SALT = 'fw';
const HKDF_INFO = 'fw field secrets v1';

const derivedKeys = new Map<string, Buffer>();

/** The 256-bit AES key for a site `encryption_key` string (HKDF-SHA256, cached). */
function aesKey(encryptionKey: string): Buffer {
  if (!encryptionKey) throw new FwError('The site has no encryption_key; set one in site_config.json');
  let key = derivedKeys.get(encryptionKey);
  if (!key) {
    key = Buffer.from(hkdfSync('sha256', encryptionKey, HKDF_SALT, HKDF_INFO, 32));
    // Sites are few; the bound only guards against a caller passing arbitrary strings.
    if (derivedKeys.size >= 64) derivedKeys.clear();
    derivedKeys.set(encryptionKey, key);
  }
  return key;
}

/** Encrypts `plain` as `gcm1:<iv>:<tag>:<ciphertext>` (base64url parts), with a fresh random IV. */
export function encryptSecret(plain: string, encryptionKey: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', aesKey(encryptionKey), iv, { authTagLength: TAG_BYTES });
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  const tag = cipher.getAuthTag();
  return `${PREFIX}:${iv.toString('base64url')}:${tag.toString('base64url')}:${body.toString('base64url')}`;
}

/**
 * Decrypts a value from {@link encryptSecret}. A malformed or altered value, or the wrong key,
 * throws: that is a server-side fault (a changed site key or a tampered row), hence a 500.
 */
export function decryptSecret(text: string, encryptionKey: string): string {
  const parts = text.split(':');
  const unreadable = () => new FwError('Could not decrypt a stored secret: the encryption_key is wrong or the value was altered');
  if (parts.length !== 4 || parts[0] !== PREFIX) throw unreadable();
  const [iv, tag, body] = parts.slice(1).map((p) => Buffer.from(p, 'base64url'));
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw unreadable();
  const decipher = createDecipheriv('aes-256-gcm', aesKey(encryptionKey), iv, { authTagLength: TAG_BYTES });
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
  } catch (err) {
    throw new FwError(unreadable().message, { cause: err });
  }
}
