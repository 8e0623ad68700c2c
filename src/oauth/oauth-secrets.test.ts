import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { hashSecret, newSecret, pkceMatches, s256Challenge, secretMatches } from './oauth-secrets.js';

describe('OAuth secrets', () => {
  test('a new secret has 32 random bytes, base64url', () => {
    const a = newSecret();
    assert.match(a, /^[A-Za-z0-9_-]{43}$/);
    assert.notEqual(a, newSecret());
  });

  test('a secret matches only its own hash, whatever the stored text', () => {
    const s = newSecret();
    assert.equal(secretMatches(s, hashSecret(s)), true);
    assert.equal(secretMatches(`${s}x`, hashSecret(s)), false);
    assert.equal(secretMatches(s, ''), false);
    assert.equal(secretMatches(s, hashSecret(s).slice(0, 63)), false);
    assert.equal(secretMatches('', hashSecret('')), true);
  });

  test('PKCE S256 as RFC 7636 appendix B computes it', () => {
    const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
    assert.equal(s256Challenge(verifier), 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
    assert.equal(pkceMatches(verifier, 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'), true);
    assert.equal(pkceMatches(`${verifier}x`, 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'), false);
    // A verifier shorter than 43 characters is malformed, even when it would hash right.
    assert.equal(pkceMatches('short', s256Challenge('short')), false);
  });
});
