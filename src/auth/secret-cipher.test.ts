import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FwError } from '../errors/index.js';
import { decryptSecret, encryptSecret } from './secret-cipher.js';

const KEY = 'site-encryption-key-for-tests';

describe('secret cipher', () => {
  test('an encrypted secret decrypts to the original text', () => {
    const text = encryptSecret('smtp pässword ✓', KEY);
    assert.match(text, /^gcm1:[\w-]+:[\w-]+:[\w-]*$/);
    assert.ok(!text.includes('smtp'));
    assert.equal(decryptSecret(text, KEY), 'smtp pässword ✓');
  });

  test('encrypting the same text twice gives different ciphertexts', () => {
    assert.notEqual(encryptSecret('same', KEY), encryptSecret('same', KEY));
  });

  test('an empty secret round-trips', () => {
    assert.equal(decryptSecret(encryptSecret('', KEY), KEY), '');
  });

  test('a ciphertext with one altered bit is refused', () => {
    const [prefix, iv, tag, body] = encryptSecret('do not touch', KEY).split(':');
    const bytes = Buffer.from(body, 'base64url');
    bytes[0] ^= 1;
    const tampered = [prefix, iv, tag, bytes.toString('base64url')].join(':');
    assert.throws(() => decryptSecret(tampered, KEY), FwError);
  });

  test('an altered authentication tag is refused', () => {
    const [prefix, iv, tag, body] = encryptSecret('do not touch', KEY).split(':');
    const bytes = Buffer.from(tag, 'base64url');
    bytes[15] ^= 0x80;
    assert.throws(() => decryptSecret([prefix, iv, bytes.toString('base64url'), body].join(':'), KEY), FwError);
  });

  test('the wrong key is refused', () => {
    assert.throws(() => decryptSecret(encryptSecret('x', KEY), 'another key'), FwError);
  });

  test('malformed values and a missing key are refused', () => {
    assert.throws(() => decryptSecret('not encrypted', KEY), FwError);
    assert.throws(() => decryptSecret('gcm1:AAAA:AAAA:AAAA', KEY), FwError);
    assert.throws(() => encryptSecret('x', ''), FwError);
  });
});
