import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import { testDialects } from '../helpers/dialects.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';
import { createUser, sessionFor } from '../helpers/user-sessions.js';

/*
 * fw as an OAuth2 / OpenID Connect provider (docs/identity.md "fw as an OAuth2 / OpenID Connect
 * provider"), driven by a standard relying party (openid-client) over real HTTP on 127.0.0.1.
 */

const PASSWORD = 'Oauth-Test-Secret-42';
const CALLBACK = 'https://rp.example/callback';
const AUTHORIZE = '/api/method/frappe.integrations.oauth2.authorize';
const APPROVE = '/api/method/fw.integrations.oauth2.approve';

interface Client {
  readonly clientId: string;
  readonly secret: string;
}

for (const dialect of testDialects()) {
  describe(`OAuth provider (${dialect.name})`, () => {
    let t: TestSite;
    let base: string;
    let sid: string;
    let confidential: Client;
    let publicClient: Client;

    /** Registers an OAuth Client as the Administrator; the answer is the only one that shows the secret. */
    async function register(values: Record<string, unknown>): Promise<Client & { doc: Record<string, unknown> }> {
      const res = await t.request({
        method: 'POST',
        url: '/api/resource/OAuth Client',
        body: { app_name: 'Relying Party', redirect_uris: CALLBACK, default_redirect_uri: CALLBACK, scopes: 'all openid', ...values },
      });
      assert.equal(res.statusCode, 200, res.body);
      const doc = res.json().data as Record<string, unknown>;
      return { clientId: String(doc.name), secret: String(doc.client_secret ?? ''), doc };
    }

    /** The relying party's configuration, found by discovery. */
    async function relyingParty(client: Client): Promise<oidc.Configuration> {
      const auth = client.secret ? oidc.ClientSecretBasic(client.secret) : oidc.None();
      return oidc.discovery(new URL(base), client.clientId, undefined, auth, { execute: [oidc.allowInsecureRequests] });
    }

    /** Counts the rows of a DocType (as the Administrator). */
    async function count(doctype: string, filters: unknown[] = []): Promise<number> {
      const url = `/api/resource/${encodeURIComponent(doctype)}?limit_page_length=0&filters=${encodeURIComponent(JSON.stringify(filters))}`;
      const res = await t.request({ method: 'GET', url });
      assert.equal(res.statusCode, 200, res.body);
      return (res.json().data as unknown[]).length;
    }

    /** The user's browser: authorize with the session cookie, then approve as the consent page does; answers the redirect URL. */
    async function consent(params: Record<string, string>, allow = true): Promise<URL> {
      const query = new URLSearchParams(params).toString();
      const first = await fetch(`${base}${AUTHORIZE}?${query}`, { headers: { cookie: `sid=${sid}` }, redirect: 'manual' });
      assert.equal(first.status, 302, await first.text());
      const location = first.headers.get('location') ?? '';
      if (!location.startsWith('/app/oauth/authorize')) return new URL(location);
      const approved = await fetch(`${base}${APPROVE}`, {
        method: 'POST',
        headers: { cookie: `sid=${sid}`, 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ ...params, allow: allow ? 1 : 0 }),
      });
      assert.equal(approved.status, 200, await approved.clone().text());
      return new URL(((await approved.json()) as { redirect_to: string }).redirect_to);
    }

    /** A full PKCE code flow; answers the tokens and what the flow used. */
    async function codeFlow(config: oidc.Configuration, extra: Record<string, string> = {}) {
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
        ...extra,
      };
      const url = oidc.buildAuthorizationUrl(config, params);
      assert.equal(url.pathname, AUTHORIZE);
      const callback = await consent(params);
      const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce });
      return { tokens, callback, verifier };
    }

    async function api(token: string, url = '/api/resource/User'): Promise<number> {
      return (await fetch(`${base}${url}`, { headers: { authorization: `Bearer ${token}` } })).status;
    }

    async function tokenRequest(form: Record<string, string>, client: Client): Promise<{ status: number; body: Record<string, unknown> }> {
      const res = await fetch(`${base}/api/method/fw.integrations.oauth2.get_token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          ...(client.secret ? { authorization: `Basic ${Buffer.from(`${client.clientId}:${client.secret}`).toString('base64')}` } : {}),
        },
        body: new URLSearchParams(client.secret ? form : { ...form, client_id: client.clientId }).toString(),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    }

    before(async () => {
      t = await startTestSite(dialect);
      await t.app.listen({ host: '127.0.0.1', port: 0 });
      const address = t.app.server.address();
      base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
      await createUser(t, { email: 'jo@oauth.test', password: PASSWORD, roles: ['System Manager'], firstName: 'Jo' });
      sid = await sessionFor(t.app, 'jo@oauth.test', PASSWORD);
      confidential = await register({});
      publicClient = await register({ app_name: 'Browser App', token_endpoint_auth_method: 'None' });
    });
    after(() => t?.close());

    test('the secret has 32 random bytes, shows only in the creating answer, and is stored as a hash', async () => {
      assert.match(confidential.secret, /^[A-Za-z0-9_-]{43}$/);
      const again = await t.request({ method: 'GET', url: `/api/resource/OAuth Client/${confidential.clientId}` });
      const stored = String(again.json().data.client_secret);
      assert.match(stored, /^[0-9a-f]{64}$/);
      assert.notEqual(stored, confidential.secret);
      assert.ok(!JSON.stringify(again.json()).includes(confidential.secret));
      assert.equal(publicClient.secret, '');
      // A save cannot set the secret.
      const edit = await t.request({
        method: 'PUT',
        url: `/api/resource/OAuth Client/${confidential.clientId}`,
        body: { client_secret: 'chosen', app_name: 'Renamed' },
      });
      assert.equal(edit.statusCode, 200, edit.body);
      assert.equal(edit.json().data.client_secret, stored);
    });

    test('discovery names the endpoints, S256 only and a JWKS', async () => {
      const config = await relyingParty(confidential);
      const meta = config.serverMetadata();
      assert.equal(meta.issuer, base);
      assert.deepEqual(meta.code_challenge_methods_supported, ['S256']);
      assert.equal(meta.jwks_uri, `${base}/.well-known/jwks.json`);
      const rfc8414 = (await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
      assert.equal(rfc8414.token_endpoint, meta.token_endpoint);
    });

    test('PKCE code flow: id_token verified through the JWKS, userinfo, the API as the user', async () => {
      const config = await relyingParty(confidential);
      oidc.enableNonRepudiationChecks(config);
      const { tokens } = await codeFlow(config);
      const claims = tokens.claims();
      assert.equal(claims?.sub, 'jo@oauth.test');
      assert.equal(claims?.aud, confidential.clientId);
      const idToken = tokens.id_token as string;
      assert.equal(decodeProtectedHeader(idToken).alg, 'RS256');
      const verified = await jwtVerify(idToken, createRemoteJWKSet(new URL(`${base}/.well-known/jwks.json`)), {
        issuer: base,
        audience: confidential.clientId,
      });
      assert.equal(verified.payload.email, 'jo@oauth.test');
      const info = await oidc.fetchUserInfo(config, tokens.access_token, 'jo@oauth.test');
      assert.equal(info.email, 'jo@oauth.test');
      assert.equal(info.given_name, 'Jo');
      assert.equal(await api(tokens.access_token), 200);
      const me = await fetch(`${base}/api/method/frappe.auth.get_logged_user`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
      assert.equal(((await me.json()) as { message: string }).message, 'jo@oauth.test');
    });

    test('a public client: PKCE with the bare client_id; without a challenge it is refused', async () => {
      const config = await relyingParty(publicClient);
      const { tokens } = await codeFlow(config);
      assert.equal(await api(tokens.access_token), 200);
      const before = await count('OAuth Authorization Code');
      const refused = await consent({ client_id: publicClient.clientId, redirect_uri: CALLBACK, response_type: 'code', scope: 'openid', state: 's1' });
      assert.equal(refused.searchParams.get('error'), 'invalid_request');
      assert.equal(refused.searchParams.get('state'), 's1');
      assert.equal(await count('OAuth Authorization Code'), before);
    });

    test('refresh rotates the pair; reusing the old refresh token revokes the new pair too', async () => {
      const config = await relyingParty(confidential);
      const { tokens } = await codeFlow(config);
      const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token as string);
      assert.notEqual(refreshed.access_token, tokens.access_token);
      assert.notEqual(refreshed.refresh_token, tokens.refresh_token);
      assert.equal(await api(tokens.access_token), 401);
      assert.equal(await api(refreshed.access_token), 200);
      await assert.rejects(oidc.refreshTokenGrant(config, tokens.refresh_token as string), (err: oidc.ResponseBodyError) => err.error === 'invalid_grant');
      assert.equal(await api(refreshed.access_token), 401);
      await assert.rejects(oidc.refreshTokenGrant(config, refreshed.refresh_token as string), (err: oidc.ResponseBodyError) => err.error === 'invalid_grant');
    });

    test('revocation ends the token: 401 on /api/resource/User, introspection inactive', async () => {
      const config = await relyingParty(confidential);
      const { tokens } = await codeFlow(config);
      const live = await oidc.tokenIntrospection(config, tokens.access_token);
      assert.equal(live.active, true);
      assert.equal(live.sub, 'jo@oauth.test');
      await oidc.tokenRevocation(config, tokens.access_token);
      const res = await fetch(`${base}/api/resource/User`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
      assert.equal(res.status, 401);
      assert.equal(((await res.json()) as { exc_type: string }).exc_type, 'AuthenticationError');
      const dead = await oidc.tokenIntrospection(config, tokens.access_token);
      assert.deepEqual(dead, { active: false });
    });

    test('plain PKCE is refused and stores no code', async () => {
      const before = await count('OAuth Authorization Code');
      const refused = await consent({
        client_id: confidential.clientId,
        redirect_uri: CALLBACK,
        response_type: 'code',
        scope: 'openid',
        code_challenge: 'a'.repeat(43),
        code_challenge_method: 'plain',
      });
      assert.equal(refused.origin + refused.pathname, CALLBACK);
      assert.equal(refused.searchParams.get('error'), 'invalid_request');
      assert.equal(refused.searchParams.get('code'), null);
      assert.equal(await count('OAuth Authorization Code'), before);
    });

    test('a wrong verifier is refused and issues nothing; the code still works with the right one', async () => {
      const config = await relyingParty(confidential);
      const verifier = oidc.randomPKCECodeVerifier();
      const params = {
        client_id: confidential.clientId,
        redirect_uri: CALLBACK,
        response_type: 'code',
        scope: 'all openid',
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      };
      const code = (await consent(params)).searchParams.get('code') as string;
      const tokensBefore = await count('OAuth Bearer Token');
      const wrong = await tokenRequest(
        { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: oidc.randomPKCECodeVerifier() },
        confidential,
      );
      assert.equal(wrong.status, 400);
      assert.equal(wrong.body.error, 'invalid_grant');
      assert.equal(wrong.body.exc_type, 'ValidationError');
      assert.equal(await count('OAuth Bearer Token'), tokensBefore);
      const none = await tokenRequest({ grant_type: 'authorization_code', code, redirect_uri: CALLBACK }, confidential);
      assert.equal(none.body.error, 'invalid_grant');
      const right = await tokenRequest({ grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: verifier }, confidential);
      assert.equal(right.status, 200, JSON.stringify(right.body));
      void config;
    });

    test('a redirect URI not registered is refused at authorize, never redirected to', async () => {
      const before = await count('OAuth Authorization Code');
      const res = await fetch(
        `${base}${AUTHORIZE}?${new URLSearchParams({ client_id: confidential.clientId, redirect_uri: 'https://evil.example/callback', response_type: 'code', code_challenge: 'a'.repeat(43), code_challenge_method: 'S256' })}`,
        { headers: { cookie: `sid=${sid}` }, redirect: 'manual' },
      );
      assert.equal(res.status, 400);
      const body = (await res.json()) as Record<string, unknown>;
      assert.equal(body.error, 'invalid_request');
      assert.equal(body.exc_type, 'DataError');
      assert.equal(res.headers.get('location'), null);
      // A prefix of a registered URI, or one with a different path, is no match either.
      const prefix = await fetch(
        `${base}${AUTHORIZE}?${new URLSearchParams({ client_id: confidential.clientId, redirect_uri: `${CALLBACK}/x`, response_type: 'code' })}`,
        {
          headers: { cookie: `sid=${sid}` },
          redirect: 'manual',
        },
      );
      assert.equal(prefix.status, 400);
      assert.equal(await count('OAuth Authorization Code'), before);
    });

    test('a code used twice is refused, and the tokens it gave are revoked', async () => {
      const config = await relyingParty(confidential);
      const { tokens, callback, verifier } = await codeFlow(config);
      const code = callback.searchParams.get('code') as string;
      const again = await tokenRequest({ grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: verifier }, confidential);
      assert.equal(again.status, 400);
      assert.equal(again.body.error, 'invalid_grant');
      assert.equal(await api(tokens.access_token), 401);
    });

    test('an expired code and an expired access token are refused', async () => {
      const config = await relyingParty(confidential);
      const verifier = oidc.randomPKCECodeVerifier();
      const params = {
        client_id: confidential.clientId,
        redirect_uri: CALLBACK,
        response_type: 'code',
        scope: 'all openid',
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      };
      const code = (await consent(params)).searchParams.get('code') as string;
      // Ten minutes and a second later, as far as the stored expiry is concerned.
      await backdate('OAuth Authorization Code', 601);
      const late = await tokenRequest({ grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: verifier }, confidential);
      assert.equal(late.status, 400);
      assert.equal(late.body.error, 'invalid_grant');
      const { tokens } = await codeFlow(config);
      assert.equal(await api(tokens.access_token), 200);
      await backdate('OAuth Bearer Token', 3601);
      assert.equal(await api(tokens.access_token), 401);
    });

    /** Moves every stored expiry of `doctype` `seconds` into the past. */
    async function backdate(doctype: string, seconds: number): Promise<void> {
      const table = t.site.metas.get(doctype).tableName;
      await t.site.db.transaction(async (q) => {
        const rows = await q.all<{ name: string; expires_at: number }>(t.site.db.dialect.builder.selectFrom(table).select(['name', 'expires_at']).compile());
        for (const row of rows) {
          await q.run(
            t.site.db.dialect.builder
              .updateTable(table)
              .set({ expires_at: Number(row.expires_at) - seconds })
              .where('name', '=', row.name)
              .compile(),
          );
        }
      });
    }

    test('a code is bound to its client and to the redirect URI of its request', async () => {
      const other = await register({ app_name: 'Other' });
      const verifier = oidc.randomPKCECodeVerifier();
      const params = {
        client_id: confidential.clientId,
        redirect_uri: CALLBACK,
        response_type: 'code',
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      };
      const code = (await consent(params)).searchParams.get('code') as string;
      const tokensBefore = await count('OAuth Bearer Token');
      const stolen = await tokenRequest({ grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: verifier }, other);
      assert.equal(stolen.body.error, 'invalid_grant');
      const moved = await tokenRequest(
        { grant_type: 'authorization_code', code, redirect_uri: 'https://rp.example/other', code_verifier: verifier },
        confidential,
      );
      assert.equal(moved.body.error, 'invalid_grant');
      assert.equal(await count('OAuth Bearer Token'), tokensBefore);
    });

    test('client authentication: a wrong secret is 401 invalid_client, and repeated failures are rate limited', async () => {
      const victim = await register({ app_name: 'Victim' });
      const tokensBefore = await count('OAuth Bearer Token');
      const wrong = await tokenRequest({ grant_type: 'refresh_token', refresh_token: 'x' }, { clientId: victim.clientId, secret: 'not-the-secret' });
      assert.equal(wrong.status, 401);
      assert.equal(wrong.body.error, 'invalid_client');
      assert.equal(wrong.body.exc_type, 'AuthenticationError');
      let status = 0;
      for (let i = 0; i < 12 && status !== 429; i++) {
        status = (await tokenRequest({ grant_type: 'refresh_token', refresh_token: 'x' }, { clientId: victim.clientId, secret: `guess-${i}` })).status;
      }
      assert.equal(status, 429);
      // Even the right secret waits out the limit.
      const right = await tokenRequest({ grant_type: 'refresh_token', refresh_token: 'x' }, victim);
      assert.equal(right.status, 429);
      assert.equal(right.body.error, 'slow_down');
      assert.equal(await count('OAuth Bearer Token'), tokensBefore);
    });

    test('scopes limit access: a token of `openid` alone reads its profile but not the API', async () => {
      const narrow = await register({ app_name: 'Profile Only', scopes: 'openid' });
      const config = await relyingParty(narrow);
      const { tokens } = await codeFlow(config, { scope: 'openid' });
      assert.equal(tokens.scope, 'openid');
      const res = await fetch(`${base}/api/resource/User`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
      assert.equal(res.status, 403);
      assert.equal(((await res.json()) as { exc_type: string }).exc_type, 'PermissionError');
      const info = await oidc.fetchUserInfo(config, tokens.access_token, 'jo@oauth.test');
      assert.equal(info.sub, 'jo@oauth.test');
      // Asking for more than the client may is refused back to the client.
      const refused = await consent({
        client_id: narrow.clientId,
        redirect_uri: CALLBACK,
        response_type: 'code',
        scope: 'openid all',
        code_challenge: 'a'.repeat(43),
        code_challenge_method: 'S256',
      });
      assert.equal(refused.searchParams.get('error'), 'invalid_scope');
    });

    test('denying at the consent page sends access_denied back and stores no code', async () => {
      const before = await count('OAuth Authorization Code');
      const denied = await consent(
        {
          client_id: confidential.clientId,
          redirect_uri: CALLBACK,
          response_type: 'code',
          code_challenge: 'a'.repeat(43),
          code_challenge_method: 'S256',
          state: 'st',
        },
        false,
      );
      assert.equal(denied.searchParams.get('error'), 'access_denied');
      assert.equal(denied.searchParams.get('state'), 'st');
      assert.equal(await count('OAuth Authorization Code'), before);
    });

    test('approve needs the session, and refuses a page of another site (CSRF)', async () => {
      const before = await count('OAuth Authorization Code');
      const params = {
        client_id: confidential.clientId,
        redirect_uri: CALLBACK,
        response_type: 'code',
        code_challenge: 'a'.repeat(43),
        code_challenge_method: 'S256',
      };
      const forged = await fetch(`${base}${APPROVE}`, {
        method: 'POST',
        headers: { cookie: `sid=${sid}`, 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
        body: new URLSearchParams(params).toString(),
        redirect: 'manual',
      });
      assert.equal(forged.status, 400);
      assert.equal(((await forged.json()) as { exc_type: string }).exc_type, 'CSRFTokenError');
      const guest = await fetch(`${base}${APPROVE}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(params) });
      assert.equal(guest.status, 403);
      assert.equal(await count('OAuth Authorization Code'), before);
    });

    test('a Guest is sent to log in, and comes back to the consent page', async () => {
      const query = new URLSearchParams({
        client_id: confidential.clientId,
        response_type: 'code',
        code_challenge: 'a'.repeat(43),
        code_challenge_method: 'S256',
      });
      const res = await fetch(`${base}${AUTHORIZE}?${query}`, { redirect: 'manual' });
      assert.equal(res.status, 302);
      const location = new URL(res.headers.get('location') ?? '', base);
      assert.equal(location.pathname, '/login');
      assert.equal(location.searchParams.get('redirect'), `/app/oauth/authorize?${query}`);
    });

    test('loopback redirect URIs match on any port (RFC 8252), nothing else does', async () => {
      const native = await register({
        app_name: 'Native',
        token_endpoint_auth_method: 'None',
        redirect_uris: 'http://127.0.0.1/cb',
        default_redirect_uri: 'http://127.0.0.1/cb',
      });
      const params = { client_id: native.clientId, response_type: 'code', code_challenge: 'a'.repeat(43), code_challenge_method: 'S256' };
      const ok = await consent({ ...params, redirect_uri: 'http://127.0.0.1:49152/cb' });
      assert.equal(ok.port, '49152');
      assert.ok(ok.searchParams.get('code'));
      const other = await fetch(`${base}${AUTHORIZE}?${new URLSearchParams({ ...params, redirect_uri: 'http://127.0.0.1:49152/other' })}`, {
        headers: { cookie: `sid=${sid}` },
        redirect: 'manual',
      });
      assert.equal(other.status, 400);
    });

    test('the signing key rotates; the old key stays in the JWKS so its id_tokens still verify', async () => {
      const config = await relyingParty(confidential);
      const { tokens } = await codeFlow(config);
      const oldKid = decodeProtectedHeader(tokens.id_token as string).kid;
      const rotate = await t.request({ method: 'POST', url: '/api/method/fw.integrations.oauth2.rotate_signing_key', body: {} });
      assert.equal(rotate.statusCode, 200, rotate.body);
      const jwks = (await (await fetch(`${base}/.well-known/jwks.json`)).json()) as { keys: Array<{ kid: string; d?: string }> };
      assert.ok(jwks.keys.some((k) => k.kid === oldKid));
      assert.ok(
        jwks.keys.every((k) => k.d === undefined),
        'no private part is published',
      );
      await jwtVerify(tokens.id_token as string, createRemoteJWKSet(new URL(`${base}/.well-known/jwks.json`)), { issuer: base });
      const next = await codeFlow(config);
      assert.notEqual(decodeProtectedHeader(next.tokens.id_token as string).kid, oldKid);
      // Only a System Manager rotates.
      const jo = await fetch(`${base}/api/method/fw.integrations.oauth2.rotate_signing_key`, {
        method: 'POST',
        headers: { authorization: `Bearer ${next.tokens.access_token}` },
      });
      assert.equal(jo.status, 200, 'jo is a System Manager in this suite');
    });

    test('a user sees the applications they authorised and revokes one', async () => {
      const config = await relyingParty(confidential);
      const { tokens } = await codeFlow(config);
      const headers = { cookie: `sid=${sid}` };
      const listed = await fetch(`${base}/api/method/fw.integrations.oauth2.authorized_apps`, { headers });
      const apps = ((await listed.json()) as { message: Array<{ client_id: string }> }).message;
      assert.ok(apps.some((a) => a.client_id === confidential.clientId));
      const revoked = await fetch(`${base}/api/method/fw.integrations.oauth2.revoke_app`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ client_id: confidential.clientId }),
      });
      assert.equal(revoked.status, 200, await revoked.clone().text());
      assert.equal(await api(tokens.access_token), 401);
    });
  });
}
