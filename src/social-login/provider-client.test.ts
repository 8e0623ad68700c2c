import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AuthenticationError } from '../errors/index.js';
import { ProviderClients, redeemCode } from './provider-client.js';
import type { SocialLoginKey } from './social-login-key-row.js';

/*
 * The id_token's signature is checked against the issuer's JWKS, not trusted from the token
 * endpoint: a provider stand-in on 127.0.0.1 publishes one key and signs with the one the test picks.
 */

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

function jwt(claims: Record<string, unknown>, key: KeyObject, kid: string): string {
  const head = `${b64({ alg: 'RS256', typ: 'JWT', kid })}.${b64(claims)}`;
  return `${head}.${sign('sha256', Buffer.from(head), key).toString('base64url')}`;
}

describe('redeemCode checks the id_token against the JWKS', () => {
  const published = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const forged = generateKeyPairSync('rsa', { modulusLength: 2048 });
  let server: Server;
  let issuer: string;
  let signWith: KeyObject = published.privateKey;
  const checks = { state: 's'.repeat(43), nonce: 'n'.repeat(43), codeVerifier: 'v'.repeat(43) };

  before(async () => {
    server = createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      if (req.url === '/.well-known/openid-configuration') {
        return res.end(
          JSON.stringify({
            issuer,
            authorization_endpoint: `${issuer}/auth`,
            token_endpoint: `${issuer}/token`,
            jwks_uri: `${issuer}/jwks`,
            response_types_supported: ['code'],
            subject_types_supported: ['public'],
            id_token_signing_alg_values_supported: ['RS256'],
          }),
        );
      }
      if (req.url === '/jwks')
        return res.end(JSON.stringify({ keys: [{ ...published.publicKey.export({ format: 'jwk' }), kid: 'k1', alg: 'RS256', use: 'sig' }] }));
      if (req.url === '/token') {
        const now = Math.floor(Date.now() / 1000);
        const claims = { iss: issuer, aud: 'fw', sub: 'user-1', nonce: checks.nonce, iat: now, exp: now + 300, email: 'u@example.com', email_verified: true };
        return res.end(JSON.stringify({ access_token: 'at', token_type: 'Bearer', expires_in: 300, id_token: jwt(claims, signWith, 'k1') }));
      }
      res.statusCode = 404;
      res.end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const key = (): SocialLoginKey => ({
    name: 'Stand-in',
    slug: 'stand_in',
    preset: 'OpenID Connect',
    protocol: 'oidc',
    enabled: true,
    clientId: 'fw',
    baseUrl: issuer,
    openidConfiguration: '',
    authorizeUrl: '',
    accessTokenUrl: '',
    apiEndpoint: '',
    authParams: { scope: 'openid email' },
    userIdProperty: 'sub',
    signUps: '',
    icon: '',
    redirectPath: '/cb',
    modified: '1',
  });
  const callback = () => new URL(`http://127.0.0.1/cb?code=c&state=${checks.state}`);

  test('a token signed with the published key gives the identity', async () => {
    signWith = published.privateKey;
    const config = await new ProviderClients().configuration(key(), 'secret');
    const identity = await redeemCode(config, key(), callback(), checks);
    assert.deepEqual(
      { subject: identity.subject, email: identity.email, verified: identity.emailVerified },
      { subject: 'user-1', email: 'u@example.com', verified: true },
    );
  });

  test('a token signed with any other key is refused', async () => {
    signWith = forged.privateKey;
    const config = await new ProviderClients().configuration(key(), 'secret');
    await assert.rejects(redeemCode(config, key(), callback(), checks), (err: unknown) => err instanceof AuthenticationError && /signature/i.test(err.message));
  });
});
