import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { testDialects } from '../helpers/dialects.js';
import { CookieBrowser, OidcIdp } from '../helpers/oidc-idp.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';
import { setSystemSettings } from '../helpers/two-factor.js';

const LOGINS = '/api/method/fw.integrations.oauth2_logins';
const CLIENT = { clientId: 'fw-test-client', clientSecret: 'idp-client-secret-0123456789abcdef' };

/*
 * Single sign-on against a real OpenID Connect provider (oidc-provider in a child process), followed
 * through the browser's redirects by a cookie-keeping client: fw → provider → fw → sid
 * (docs/identity.md "Single sign-on"). Each refusal checks that nothing changed: no user, no link,
 * no session.
 */
for (const dialect of testDialects()) {
  describe(`single sign-on (${dialect.name})`, () => {
    let t: TestSite;
    let idp: OidcIdp;
    let fw: string;

    before(async () => {
      t = await startTestSite(dialect);
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      fw = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
      idp = await OidcIdp.start({
        ...CLIENT,
        redirectUris: [`${fw}${LOGINS}.custom/test_idp`, `${fw}${LOGINS}.login_via_keycloak`, `${fw}${LOGINS}.custom/plain_oauth`],
      });
      const key = await t.request({
        method: 'POST',
        url: '/api/resource/Social Login Key',
        body: {
          provider_name: 'Test IdP',
          social_login_provider: 'OpenID Connect',
          enable_social_login: 1,
          client_id: CLIENT.clientId,
          client_secret: CLIENT.clientSecret,
          base_url: idp.issuer,
          sign_ups: 'Allow',
        },
      });
      assert.equal(key.statusCode, 200, key.body);
      for (const [id, claims] of Object.entries({
        'alice-sub': { email: 'alice@example.com', email_verified: true, given_name: 'Alice', family_name: 'Liddell' },
        'bob-sub': { email: 'bob@example.com', email_verified: true, given_name: 'Bob' },
        'carol-sub': { email: 'carol@example.com', email_verified: false, given_name: 'Carol' },
        'dave-sub': { email: 'dave@example.com', email_verified: true, given_name: 'Dave' },
        'erin-sub': { email: 'erin@example.com', email_verified: true, given_name: 'Erin' },
      })) {
        await idp.setAccount(id, claims);
      }
      for (const email of ['bob@example.com', 'carol@example.com']) {
        const res = await t.request({ method: 'POST', url: '/api/resource/User', body: { email, first_name: email.split('@')[0] } });
        assert.equal(res.statusCode, 200, res.body);
      }
    });
    after(async () => {
      await idp?.stop();
      await t?.close();
    });

    /** What a refusal must leave as it was. */
    async function snapshot(): Promise<{ users: number; links: number; sessions: number }> {
      const { db } = t.site;
      const count = async (table: string) =>
        Number(
          (
            await db.read((q) =>
              q.all<{ n: number }>(
                db.dialect.builder
                  .selectFrom(table)
                  .select((eb) => eb.fn.countAll().as('n'))
                  .compile(),
              ),
            )
          )[0]!.n,
        );
      return { users: await count('tabUser'), links: await count('tabUser Social Login'), sessions: await count('__Sessions') };
    }

    const startUrl = (redirectTo = '/app/todo') => `${fw}${LOGINS}.start/test_idp?redirect_to=${encodeURIComponent(redirectTo)}`;
    const isCallback = (next: URL) => next.origin === fw && next.pathname.startsWith(`${LOGINS}.custom/`);

    /** Runs a login up to fw's callback and returns the callback URL unfollowed. */
    async function upToCallback(browser: CookieBrowser, account: string, tamper?: (auth: URL) => void): Promise<string> {
      await idp.loginNextAs(account);
      let first = await browser.follow(startUrl(), (next) => next.origin === idp.issuer);
      assert.ok(first.next, `fw sends the browser to the provider (${first.res.status})`);
      const auth = new URL(first.next);
      tamper?.(auth);
      first = await browser.follow(auth.href, isCallback);
      assert.ok(first.next, `the provider sends the browser back to fw (${first.res.status} ${await first.res.text()})`);
      return first.next;
    }

    async function loggedUser(browser: CookieBrowser): Promise<unknown> {
      const res = await browser.fetch(`${fw}/api/method/fw.auth.get_logged_user`);
      return res.status === 200 ? ((await res.json()) as { message: unknown }).message : res.status;
    }

    async function links(userid: string): Promise<string[]> {
      const res = await t.request({
        method: 'GET',
        url: `/api/resource/User Social Login?fields=["user"]&filters=${encodeURIComponent(JSON.stringify({ userid }))}`,
      });
      return (res.json().data as Array<{ user: string }>).map((r) => r.user);
    }

    test('the provider list is Guest-callable and names login URLs, never ids or secrets', async () => {
      const res = await t.request({ method: 'GET', url: `${LOGINS}.get_login_providers`, anonymous: true });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json().message, [
        { name: 'test_idp', provider_name: 'Test IdP', social_login_provider: 'OpenID Connect', icon: null, login_url: `${LOGINS}.start/test_idp` },
      ]);
      assert.ok(!res.body.includes(CLIENT.clientId) && !res.body.includes(CLIENT.clientSecret));
      const key = await t.request({ method: 'GET', url: '/api/resource/Social Login Key/Test IdP' });
      assert.equal(key.statusCode, 200);
      assert.ok(!key.body.includes(CLIENT.clientSecret), 'the secret is never read back');
      assert.equal(key.json().data.redirect_url, `${LOGINS}.custom/test_idp`);
    });

    test('a new verified account becomes a Website User and is signed in, landing where the login started', async () => {
      const browser = new CookieBrowser();
      const callback = await upToCallback(browser, 'alice-sub');
      const res = await browser.fetch(callback);
      assert.equal(res.status, 302, await res.clone().text());
      assert.equal(res.headers.get('location'), '/app/todo');
      assert.ok(browser.cookie(fw, 'sid'), 'a session cookie');
      assert.equal(browser.cookie(fw, 'fw_sso_state'), undefined, 'the state cookie is spent');
      assert.equal(await loggedUser(browser), 'alice@example.com');
      const user = await t.request({ method: 'GET', url: '/api/resource/User/alice@example.com' });
      assert.equal(user.json().data.user_type, 'Website User');
      assert.equal(user.json().data.last_name, 'Liddell');
      assert.deepEqual(await links('alice-sub'), ['alice@example.com']);
    });

    test('an existing user is linked by a verified email, then found by subject after the email changed', async () => {
      const browser = new CookieBrowser();
      assert.equal((await browser.fetch(await upToCallback(browser, 'bob-sub'))).status, 302);
      assert.equal(await loggedUser(browser), 'bob@example.com');
      assert.deepEqual(await links('bob-sub'), ['bob@example.com']);
      await idp.setAccount('bob-sub', { email: 'robert@example.net', email_verified: true, given_name: 'Robert' });
      const again = new CookieBrowser();
      const before = await snapshot();
      assert.equal((await again.fetch(await upToCallback(again, 'bob-sub'))).status, 302);
      assert.equal(await loggedUser(again), 'bob@example.com');
      const afterwards = await snapshot();
      assert.deepEqual({ ...afterwards, sessions: afterwards.sessions - 1 }, before, 'no new user or link, one session');
    });

    test('an unverified email is never linked to the account that has it', async () => {
      const browser = new CookieBrowser();
      const callback = await upToCallback(browser, 'carol-sub');
      const before = await snapshot();
      const res = await browser.fetch(callback);
      assert.equal(res.status, 401);
      const body = (await res.json()) as { exc_type: string; message: string };
      assert.equal(body.exc_type, 'AuthenticationError');
      assert.match(body.message, /not verified/);
      assert.equal(browser.cookie(fw, 'sid'), undefined);
      assert.deepEqual(await snapshot(), before);
      assert.deepEqual(await links('carol-sub'), []);
    });

    test('a replayed state is refused and starts no session', async () => {
      const browser = new CookieBrowser();
      const callback = await upToCallback(browser, 'alice-sub');
      const pin = browser.cookie(fw, 'fw_sso_state');
      assert.equal((await browser.fetch(callback)).status, 302);
      const replay = new CookieBrowser();
      const before = await snapshot();
      const res = await replay.fetch(callback, { headers: { cookie: `fw_sso_state=${pin}` } });
      assert.equal(res.status, 401);
      assert.match(((await res.json()) as { message: string }).message, /already completed or is unknown/);
      assert.deepEqual(await snapshot(), before);
    });

    test('a callback opened in another browser than the one that started is refused (login CSRF)', async () => {
      const victim = new CookieBrowser();
      const callback = await upToCallback(new CookieBrowser(), 'alice-sub');
      const before = await snapshot();
      const res = await victim.fetch(callback);
      assert.equal(res.status, 401);
      assert.match(((await res.json()) as { message: string }).message, /another browser/);
      assert.equal(await loggedUser(victim), 403, 'the victim stays a Guest');
      assert.deepEqual(await snapshot(), before);
    });

    test('an id_token with another nonce than the login sent is refused', async () => {
      const browser = new CookieBrowser();
      const callback = await upToCallback(browser, 'dave-sub', (auth) => auth.searchParams.set('nonce', 'a-nonce-fw-never-issued-000000'));
      const before = await snapshot();
      const res = await browser.fetch(callback);
      assert.equal(res.status, 401);
      assert.match(((await res.json()) as { message: string }).message, /nonce/);
      assert.deepEqual(await snapshot(), before);
      assert.deepEqual(await links('dave-sub'), []);
    });

    test('with sign-ups denied a new account is refused and no user is made', async () => {
      const deny = await t.request({ method: 'PUT', url: '/api/resource/Social Login Key/Test IdP', body: { sign_ups: 'Deny' } });
      assert.equal(deny.statusCode, 200, deny.body);
      try {
        const browser = new CookieBrowser();
        const callback = await upToCallback(browser, 'erin-sub');
        const before = await snapshot();
        const res = await browser.fetch(callback);
        assert.equal(res.status, 403);
        assert.match(((await res.json()) as { exception: string }).exception, /Sign Up is disabled/);
        assert.deepEqual(await snapshot(), before);
        const erin = await t.request({ method: 'GET', url: '/api/resource/User/erin@example.com' });
        assert.equal(erin.statusCode, 404);
      } finally {
        await t.request({ method: 'PUT', url: '/api/resource/Social Login Key/Test IdP', body: { sign_ups: 'Allow' } });
      }
    });

    test('two-factor login still applies: the callback sends the browser to the second step, with no session yet', async () => {
      await setSystemSettings(t, { enable_two_factor_auth: 1, two_factor_method: 'OTP App' });
      const all = await t.request({ method: 'PUT', url: '/api/resource/Role/All', body: { two_factor_auth: 1 } });
      assert.equal(all.statusCode, 200, all.body);
      try {
        const browser = new CookieBrowser();
        const callback = await upToCallback(browser, 'alice-sub');
        const before = await snapshot();
        const res = await browser.fetch(callback);
        assert.equal(res.status, 302, await res.clone().text());
        const location = new URL(String(res.headers.get('location')), fw);
        assert.equal(location.pathname, '/login');
        const step = new URLSearchParams(location.hash.slice(1));
        assert.ok(step.get('tmp_id'), 'the second step names its waiting login');
        assert.ok(step.get('method'), 'and how the code comes');
        assert.equal(browser.cookie(fw, 'sid'), undefined, 'no session before the second factor');
        assert.equal(await loggedUser(browser), 403, 'signed out');
        assert.deepEqual(await snapshot(), before);
      } finally {
        await t.request({ method: 'PUT', url: '/api/resource/Role/All', body: { two_factor_auth: 0 } });
        await setSystemSettings(t, { enable_two_factor_auth: 0 });
      }
    });

    test('a disabled user is refused though linked', async () => {
      const off = await t.request({ method: 'PUT', url: '/api/resource/User/alice@example.com', body: { enabled: 0 } });
      assert.equal(off.statusCode, 200, off.body);
      try {
        const browser = new CookieBrowser();
        const callback = await upToCallback(browser, 'alice-sub');
        const before = await snapshot();
        const res = await browser.fetch(callback);
        assert.equal(res.status, 401);
        assert.match(((await res.json()) as { message: string }).message, /User disabled/);
        assert.deepEqual(await snapshot(), before);
      } finally {
        await t.request({ method: 'PUT', url: '/api/resource/User/alice@example.com', body: { enabled: 1 } });
      }
    });

    for (const target of ['https://evil.example/app', '//evil.example/app', '/\\evil.example', 'javascript:alert(1)']) {
      test(`a redirect target off the site (${target}) is refused before anything is stored`, async () => {
        const browser = new CookieBrowser();
        const stateRows = async () =>
          (
            await t.site.db.read((q) =>
              q.all(t.site.db.dialect.builder.selectFrom('__Auth').select('name').where('doctype', '=', 'Social Login State').compile()),
            )
          ).length;
        const rows = await stateRows();
        const res = await browser.fetch(startUrl(target));
        assert.equal(res.status, 417);
        assert.equal(((await res.json()) as { exc_type: string }).exc_type, 'ValidationError');
        assert.equal(res.headers.get('location'), null);
        assert.equal(browser.cookie(fw, 'fw_sso_state'), undefined);
        assert.equal(await stateRows(), rows);
      });
    }

    test('unknown and disabled providers answer the same 404', async () => {
      const unknown = await t.request({ method: 'GET', url: `${LOGINS}.start/nobody`, anonymous: true });
      assert.equal(unknown.statusCode, 404);
      assert.equal(unknown.json().exc_type, 'DoesNotExistError');
      const callback = await t.request({ method: 'GET', url: `${LOGINS}.login_via_keycloak?state=abcdefghijklmnopqrstuvwxyz&code=x`, anonymous: true });
      assert.equal(callback.statusCode, 401, 'an unknown state is refused first');
    });

    test("a key keeps the reference's login_via_<provider> callback registered at the provider", async () => {
      const key = await t.request({
        method: 'POST',
        url: '/api/resource/Social Login Key',
        body: {
          provider_name: 'Keycloak',
          social_login_provider: 'Keycloak',
          enable_social_login: 1,
          client_id: CLIENT.clientId,
          client_secret: CLIENT.clientSecret,
          base_url: idp.issuer,
          redirect_url: `${LOGINS}.login_via_keycloak`,
        },
      });
      assert.equal(key.statusCode, 200, key.body);
      const browser = new CookieBrowser();
      await idp.loginNextAs('alice-sub');
      const start = await browser.follow(`${fw}${LOGINS}.start/keycloak`, (next) => next.origin === fw && next.pathname.includes('login_via_'));
      assert.equal(new URL(start.next!).pathname, `${LOGINS}.login_via_keycloak`);
      const res = await browser.fetch(start.next!);
      assert.equal(res.status, 302, await res.clone().text());
      assert.equal(res.headers.get('location'), '/app');
      assert.equal(await loggedUser(browser), 'alice@example.com', 'linked anew for this provider by the verified email');
      const wrong = await t.request({
        method: 'PUT',
        url: '/api/resource/Social Login Key/Keycloak',
        body: { redirect_url: 'https://evil.example/callback' },
      });
      assert.equal(wrong.statusCode, 417);
    });

    test('a plain OAuth 2 provider (Custom: authorize, token and profile URLs) signs in through its profile endpoint', async () => {
      const key = await t.request({
        method: 'POST',
        url: '/api/resource/Social Login Key',
        body: {
          provider_name: 'Plain OAuth',
          social_login_provider: 'Custom',
          enable_social_login: 1,
          client_id: CLIENT.clientId,
          client_secret: CLIENT.clientSecret,
          authorize_url: `${idp.issuer}/auth`,
          access_token_url: `${idp.issuer}/token`,
          api_endpoint: `${idp.issuer}/me`,
          auth_url_data: JSON.stringify({ scope: 'openid email' }),
          user_id_property: 'sub',
          sign_ups: 'Allow',
        },
      });
      assert.equal(key.statusCode, 200, key.body);
      const browser = new CookieBrowser();
      await idp.loginNextAs('erin-sub');
      const start = await browser.follow(`${fw}${LOGINS}.start/plain_oauth`, isCallback);
      assert.ok(start.next, `back at fw (${start.res.status})`);
      const res = await browser.fetch(start.next);
      assert.equal(res.status, 302, await res.clone().text());
      assert.equal(await loggedUser(browser), 'erin@example.com');
      assert.deepEqual(await links('erin-sub'), ['erin@example.com']);
    });

    test('starts and callbacks are rate-limited per client address (429)', async () => {
      const from = (remoteAddress: string, url: string) => t.app.inject({ method: 'GET', url, remoteAddress });
      for (let i = 0; i < 60; i++) assert.equal((await from('203.0.113.7', `${LOGINS}.start/nobody`)).statusCode, 404);
      const over = await from('203.0.113.7', `${LOGINS}.start/nobody`);
      assert.equal(over.statusCode, 429);
      assert.equal(over.json().exc_type, 'TooManyRequestsError');
      assert.equal((await from('203.0.113.8', `${LOGINS}.start/nobody`)).statusCode, 404, 'another address is not affected');
      for (let i = 0; i < 30; i++) assert.equal((await from('203.0.113.9', `${LOGINS}.custom/test_idp?state=unknown-state-0000000000`)).statusCode, 401);
      assert.equal((await from('203.0.113.9', `${LOGINS}.custom/test_idp?state=unknown-state-0000000000`)).statusCode, 429);
    });

    test('a key with a plain-http provider elsewhere than this machine is refused', async () => {
      const res = await t.request({
        method: 'POST',
        url: '/api/resource/Social Login Key',
        body: {
          provider_name: 'Insecure',
          social_login_provider: 'Keycloak',
          enable_social_login: 1,
          client_id: 'x',
          base_url: 'http://sso.example.com/realms/a',
        },
      });
      assert.equal(res.statusCode, 417);
      assert.match(res.json().exception, /https/);
    });
  });
}
