import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { redirectHost, scopeText } from './oauth-scopes';

describe('oauth scopes', () => {
  test('known scopes are described, others named', () => {
    assert.match(scopeText('all'), /Act as you/);
    assert.match(scopeText('openid'), /Know who you are/);
    assert.equal(scopeText('x'), 'The scope "x".');
  });
  test('the host of a redirect URI, or the text itself when it is no URL', () => {
    assert.equal(redirectHost('https://rp.example:8443/cb?x=1'), 'rp.example:8443');
    assert.equal(redirectHost('not a url'), 'not a url');
  });
});
