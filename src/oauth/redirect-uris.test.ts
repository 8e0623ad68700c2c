import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRedirectUris, redirectUriAllowed, redirectUriProblem } from './redirect-uris.js';

describe('redirect URIs', () => {
  test('are separated by spaces or lines', () => {
    assert.deepEqual(parseRedirectUris(' https://a.example/cb\nhttps://b.example/cb  http://127.0.0.1/cb \r\n'), [
      'https://a.example/cb',
      'https://b.example/cb',
      'http://127.0.0.1/cb',
    ]);
    assert.deepEqual(parseRedirectUris(undefined), []);
  });

  const registered = ['https://rp.example/callback', 'http://127.0.0.1/cb', 'http://[::1]:8080/cb?x=1'];
  const cases: Array<[string, boolean]> = [
    ['https://rp.example/callback', true],
    ['https://rp.example/callback/', false],
    ['https://rp.example/callback?x=1', false],
    ['https://RP.example/callback', false],
    ['https://rp.example:443/callback', false],
    ['https://rp.example/callbackx', false],
    ['http://rp.example/callback', false],
    ['http://127.0.0.1/cb', true],
    ['http://127.0.0.1:51234/cb', true],
    ['http://127.0.0.1:51234/cb/', false],
    ['http://127.0.0.1:51234/other', false],
    ['http://user@127.0.0.1:51234/cb', false],
    ['http://127.0.0.1:51234/cb#x', false],
    ['https://127.0.0.1:51234/cb', false],
    ['http://localhost:51234/cb', false],
    ['http://[::1]:9/cb?x=1', true],
    ['http://[::1]:9/cb', false],
    ['not a uri', false],
  ];
  for (const [uri, allowed] of cases) {
    test(`${uri} is ${allowed ? 'allowed' : 'refused'}`, () => assert.equal(redirectUriAllowed(registered, uri), allowed));
  }

  test('registration refuses relative URIs, fragments, plain http beyond loopback and script schemes', () => {
    assert.equal(redirectUriProblem('https://rp.example/cb'), undefined);
    assert.equal(redirectUriProblem('http://127.0.0.1/cb'), undefined);
    assert.equal(redirectUriProblem('com.example.app:/oauth'), undefined);
    assert.match(redirectUriProblem('/cb') ?? '', /absolute/);
    assert.match(redirectUriProblem('https://rp.example/cb#f') ?? '', /fragment/);
    assert.match(redirectUriProblem('http://rp.example/cb') ?? '', /loopback/);
    assert.match(redirectUriProblem('javascript:alert(1)') ?? '', /forbidden/);
  });
});
