import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeProtectedHeader, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import { AUTH_TABLE } from '../../src/auth/auth-tables.js';
import { testDialects } from '../helpers/dialects.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';
import { createUser, sessionFor } from '../helpers/user-sessions.js';

/*
 * id_tokens signed HS256 with the client secret, for clients that ask for it, and the claims of
 * introspection (docs/identity.md "fw as an OAuth2 / OpenID Connect provider", docs/security.md
 * "OAuth provider secrets and keys"), driven by openid-client over real HTTP on 127.0.0.1.
 */

const PASSWORD = 'Oauth-Hs256-Secret-42';
const CALLBACK = 'https://rp.example/callback';
const AUTHORIZE = '/api/method/frappe.integrations.oauth2.authorize';
const APPROVE = '/api/method/fw.integrations.oauth2.approve';

interface Client {
  readonly clientId: string;
  readonly secret: string;
}

for (const dialect of testDialects()) {
  describe(`OAuth provider, HS256 id_tokens and introspection (${dialect.name})`, () => {
    let t: TestSite;
    let base: string;
    let sid: string;
    let hs256: Client;
    let rs256: Client;

    async function register(values: Record<string, unknown>): Promise<Client> {
      const res = await t.request({
        method: 'POST',
        url: '/api/resource/OAuth Client',
        body: { app_name: 'Relying Party', redirect_uris: CALLBACK, default_redirect_uri: CALLBACK, scopes: 'all openid', ...values },
      });
      assert.equal(res.statusCode, 200, res.body);
      const doc = res.json().data as Record<string, unknown>;
      return { clientId: String(doc.name), secret: String(doc.client_secret ?? '') };
    }

    async function relyingParty(client: Client, alg?: string): Promise<oidc.Configuration> {
      const metadata = alg ? { id_token_signed_response_alg: alg } : undefined;
      return oidc.discovery(new URL(base), client.clientId, metadata, oidc.ClientSecretBasic(client.secret), { execute: [oidc.allowInsecureRequests] });
    }

    async function count(doctype: string): Promise<number> {
      const res = await t.request({ method: 'GET', url: `/api/resource/${encodeURIComponent(doctype)}?limit_page_length=0` });
      assert.equal(res.statusCode, 200, res.body);
      return (res.json().data as unknown[]).length;
    }

    /** The `__Auth` rows of an OAuth Client, read straight from the database. */
    async function authRows(clientId: string): Promise<{ fieldname: string; password: string; encrypted: number }[]> {
      const { builder } = t.site.db.dialect;
      return t.site.db.transaction((q) =>
        q.all<{ fieldname: string; password: string; encrypted: number }>(
          builder
            .selectFrom(AUTH_TABLE)
            .select(['fieldname', 'password', 'encrypted'])
            .where('doctype', '=', 'OAuth Client')
            .where('name', '=', clientId)
            .compile(),
        ),
      );
    }

    /** A full PKCE code flow through the consent page. */
    async function codeFlow(config: oidc.Configuration) {
      const verifier = oidc.randomPKCECodeVerifier();
      const state = oidc.randomState();
      const nonce = oidc.randomNonce();
      const params = {
        client_id: config.clientMetadata().client_id,
        redirect_uri: CALLBACK,
        response_type: 'code',
        scope: 'all openid',
        state,
        nonce,
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      };
      const first = await fetch(`${base}${AUTHORIZE}?${new URLSearchParams(params)}`, { headers: { cookie: `sid=${sid}` }, redirect: 'manual' });
      assert.equal(first.status, 302, await first.text());
      const approved = await fetch(`${base}${APPROVE}`, {
        method: 'POST',
        headers: { cookie: `sid=${sid}`, 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ ...params, allow: 1 }),
      });
      assert.equal(approved.status, 200, await approved.clone().text());
      const callback = new URL(((await approved.json()) as { redirect_to: string }).redirect_to);
      return oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce });
    }

    before(async () => {
      t = await startTestSite(dialect);
      await t.app.listen({ host: '127.0.0.1', port: 0 });
      const address = t.app.server.address();
      base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
      await createUser(t, { email: 'ana@oauth.test', password: PASSWORD, roles: ['System Manager'], firstName: 'Ana' });
      sid = await sessionFor(t.app, 'ana@oauth.test', PASSWORD);
      hs256 = await register({ app_name: 'Legacy RP', id_token_signed_response_alg: 'HS256' });
      rs256 = await register({});
    });
    after(() => t?.close());

    test('discovery lists RS256 and HS256', async () => {
      const meta = (await relyingParty(rs256)).serverMetadata();
      assert.deepEqual(meta.id_token_signing_alg_values_supported, ['RS256', 'HS256']);
    });

    test('an HS256 client: the id_token verifies with its secret and not with another', async () => {
      const tokens = await codeFlow(await relyingParty(hs256, 'HS256'));
      const idToken = tokens.id_token as string;
      const header = decodeProtectedHeader(idToken);
      assert.equal(header.alg, 'HS256');
      assert.equal(header.kid, undefined);
      const key = new TextEncoder().encode(hs256.secret);
      const { payload } = await jwtVerify(idToken, key, { issuer: base, audience: hs256.clientId, algorithms: ['HS256'] });
      assert.equal(payload.sub, 'ana@oauth.test');
      assert.equal(payload.email, 'ana@oauth.test');
      await assert.rejects(jwtVerify(idToken, new TextEncoder().encode(rs256.secret), { algorithms: ['HS256'] }), {
        code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
      });
      // Refreshing keeps the algorithm.
      const refreshed = await oidc.refreshTokenGrant(await relyingParty(hs256, 'HS256'), tokens.refresh_token as string);
      assert.equal(typeof refreshed.id_token, 'string');
      await jwtVerify(refreshed.id_token as string, key, { audience: hs256.clientId, algorithms: ['HS256'] });
    });

    test('an RS256 client is unchanged: signed with the site key named in the JWKS', async () => {
      const tokens = await codeFlow(await relyingParty(rs256));
      const header = decodeProtectedHeader(tokens.id_token as string);
      assert.equal(header.alg, 'RS256');
      const jwks = (await (await fetch(`${base}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] };
      assert.ok(jwks.keys.some((k) => k.kid === header.kid));
      assert.deepEqual(await authRows(rs256.clientId), []);
    });

    test('the secret is never readable through the API; the stored copy is encrypted', async () => {
      const res = await t.request({ method: 'GET', url: `/api/resource/OAuth Client/${hs256.clientId}` });
      assert.equal(res.statusCode, 200, res.body);
      assert.ok(!res.body.includes(hs256.secret));
      assert.match(String(res.json().data.client_secret), /^[0-9a-f]{64}$/);
      assert.equal(res.json().data.id_token_signed_response_alg, 'HS256');
      const list = await t.request({ method: 'GET', url: `/api/resource/OAuth Client?fields=${encodeURIComponent('["*"]')}&limit_page_length=0` });
      assert.ok(!list.body.includes(hs256.secret));
      const rows = await authRows(hs256.clientId);
      assert.equal(rows.length, 1);
      assert.equal(Number(rows[0].encrypted), 1);
      assert.match(rows[0].password, /^gcm1:/);
      assert.ok(!rows[0].password.includes(hs256.secret));
    });

    test('a public client cannot choose HS256: refused, nothing stored', async () => {
      const before = await count('OAuth Client');
      const res = await t.request({
        method: 'POST',
        url: '/api/resource/OAuth Client',
        body: {
          app_name: 'Browser App',
          redirect_uris: CALLBACK,
          default_redirect_uri: CALLBACK,
          scopes: 'openid',
          token_endpoint_auth_method: 'None',
          id_token_signed_response_alg: 'HS256',
        },
      });
      assert.equal(res.statusCode, 417, res.body);
      assert.equal(res.json().exc_type, 'ValidationError');
      assert.match(res.json().exc, /public client/);
      assert.equal(await count('OAuth Client'), before);
      // Nor any algorithm but the two offered: `none` would be an unsigned id_token.
      for (const alg of ['none', 'HS512', 'hs256']) {
        const odd = await t.request({
          method: 'POST',
          url: '/api/resource/OAuth Client',
          body: { app_name: 'Odd', redirect_uris: CALLBACK, default_redirect_uri: CALLBACK, scopes: 'openid', id_token_signed_response_alg: alg },
        });
        assert.equal(odd.statusCode, 417, odd.body);
        assert.equal(odd.json().exc_type, 'ValidationError');
      }
      assert.equal(await count('OAuth Client'), before);
    });

    test('an existing client cannot switch to HS256; an HS256 client switched back forgets the copy', async () => {
      const other = await register({ app_name: 'Switcher' });
      const refused = await t.request({ method: 'PUT', url: `/api/resource/OAuth Client/${other.clientId}`, body: { id_token_signed_response_alg: 'HS256' } });
      assert.equal(refused.statusCode, 417, refused.body);
      assert.equal(refused.json().exc_type, 'ValidationError');
      assert.match(refused.json().exc, /HS256 can only be chosen when the client is registered/);
      const stored = await t.request({ method: 'GET', url: `/api/resource/OAuth Client/${other.clientId}` });
      assert.equal(stored.json().data.id_token_signed_response_alg, 'RS256');
      assert.deepEqual(await authRows(other.clientId), []);

      const legacy = await register({ app_name: 'Leaving HS256', id_token_signed_response_alg: 'HS256' });
      assert.equal((await authRows(legacy.clientId)).length, 1);
      const toPublic = await t.request({ method: 'PUT', url: `/api/resource/OAuth Client/${legacy.clientId}`, body: { token_endpoint_auth_method: 'None' } });
      assert.equal(toPublic.statusCode, 417, toPublic.body);
      assert.equal((await authRows(legacy.clientId)).length, 1);
      const back = await t.request({ method: 'PUT', url: `/api/resource/OAuth Client/${legacy.clientId}`, body: { id_token_signed_response_alg: 'RS256' } });
      assert.equal(back.statusCode, 200, back.body);
      assert.deepEqual(await authRows(legacy.clientId), []);
      const tokens = await codeFlow(await relyingParty(legacy));
      assert.equal(decodeProtectedHeader(tokens.id_token as string).alg, 'RS256');

      const deleted = await register({ app_name: 'Deleted', id_token_signed_response_alg: 'HS256' });
      assert.equal((await t.request({ method: 'DELETE', url: `/api/resource/OAuth Client/${deleted.clientId}` })).statusCode, 202);
      assert.deepEqual(await authRows(deleted.clientId), []);
    });

    test('introspection of an openid token carries the userinfo claims; without openid only the basics', async () => {
      const config = await relyingParty(rs256);
      const tokens = await codeFlow(config);
      const live = await oidc.tokenIntrospection(config, tokens.access_token);
      assert.equal(live.active, true);
      assert.equal(live.sub, 'ana@oauth.test');
      assert.equal(live.email, 'ana@oauth.test');
      assert.equal(live.given_name, 'Ana');
      assert.equal(live.name, 'Ana');
      assert.ok(Array.isArray(live.roles));
      assert.equal(live.iss, base);
      assert.equal(live.client_id, rs256.clientId);
      // A refresh that narrows the scopes to `all` loses the claims.
      const narrowed = await oidc.refreshTokenGrant(config, tokens.refresh_token as string, { scope: 'all' });
      const plain = await oidc.tokenIntrospection(config, narrowed.access_token);
      assert.equal(plain.active, true);
      assert.equal(plain.sub, 'ana@oauth.test');
      assert.equal(plain.email, undefined);
      assert.equal(plain.given_name, undefined);
    });
  });
}
