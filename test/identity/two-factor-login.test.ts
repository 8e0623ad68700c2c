import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { ManualClock } from '../../src/jobs/job-clock.js';
import { JobWorker } from '../../src/jobs/job-worker.js';
import { testDialects } from '../helpers/dialects.js';
import { addSinkAccount } from '../helpers/mail-account.js';
import { SmtpSink } from '../helpers/smtp-sink.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';
import { codeAt, setSystemSettings, twoFactorRole, TwoFactorClient } from '../helpers/two-factor.js';
import { createUser, freshIp, tokenFor } from '../helpers/user-sessions.js';

const PASSWORD = 'Two-Factor-Secret-42';
const STEP = 30_000;

/*
 * Two-factor login through POST /api/method/login (docs/identity.md "Two-factor login"): the
 * reference's wire (verification + tmp_id, then otp + tmp_id), TOTP codes made by otpauth against
 * the site's clock, which the test moves.
 */
for (const dialect of testDialects()) {
  describe(`two-factor login (${dialect.name})`, () => {
    let t: TestSite;
    let clock: ManualClock;
    let sink: SmtpSink;
    let worker: JobWorker;
    before(async () => {
      clock = new ManualClock(Date.now());
      t = await startTestSite(dialect, { clock });
      sink = await new SmtpSink().start();
      worker = new JobWorker(t.site.jobs);
      await addSinkAccount(t, sink);
      await twoFactorRole(t, 'Auditor');
    });
    after(async () => {
      await sink.stop();
      await t.close();
    });

    /** A user who logs in, sets up an authenticator and confirms it; answers their secret and recovery codes. */
    async function enrolled(email: string): Promise<{ secret: string; recovery: string[]; client: TwoFactorClient }> {
      await createUser(t, { email, password: PASSWORD });
      const client = new TwoFactorClient(t, freshIp());
      const first = await client.login(email, PASSWORD);
      assert.equal(first.json().message, 'Logged In', first.body);
      const setup = await client.post('fw.twofactor.setup', {});
      assert.equal(setup.statusCode, 200, setup.body);
      const { secret } = setup.json().message as { secret: string };
      const confirm = await client.post('fw.twofactor.confirm', { otp: codeAt(secret, clock.now()) });
      assert.equal(confirm.statusCode, 200, confirm.body);
      // The confirming code's step is spent: the next login uses the next step's code.
      clock.advance(STEP);
      return { secret, recovery: confirm.json().message.recovery_codes as string[], client: new TwoFactorClient(t, freshIp()) };
    }

    async function tmpIdFor(client: TwoFactorClient, email: string): Promise<string> {
      const res = await client.login(email, PASSWORD);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().message, 'Verification code required');
      return res.json().tmp_id as string;
    }

    test('with the setting off, a user whose role asks still logs in with the password alone', async () => {
      await createUser(t, { email: 'off@example.com', password: PASSWORD, roles: ['Auditor'] });
      const client = new TwoFactorClient(t, freshIp());
      const res = await client.login('off@example.com', PASSWORD);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().message, 'Logged In');
      assert.equal(await client.whoAmI(), 'off@example.com');
      await setSystemSettings(t, { enable_two_factor_auth: 1, two_factor_method: 'OTP App', otp_issuer_name: 'Acme fw' });
    });

    test('a user no role asks logs in at once; a wrong password is the same 401 for users with and without two-factor login', async () => {
      await createUser(t, { email: 'plain@example.com', password: PASSWORD });
      const ok = await new TwoFactorClient(t, freshIp()).login('plain@example.com', PASSWORD);
      assert.equal(ok.json().message, 'Logged In', ok.body);
      const wrong = [];
      for (const usr of ['plain@example.com', 'off@example.com', 'nobody@example.com']) {
        const res = await new TwoFactorClient(t, freshIp()).login(usr, 'wrong-password-1');
        assert.equal(res.statusCode, 401);
        wrong.push(res.body);
      }
      assert.equal(wrong[0], wrong[1], 'a two-factor user and a plain one answer alike');
      assert.equal(wrong[0], wrong[2]);
      assert.doesNotMatch(wrong[1]!, /verification|tmp_id/);
    });

    test('the first OTP App login mails a QR link; its code logs in and sets the authenticator up', async () => {
      const client = new TwoFactorClient(t, freshIp());
      const res = await client.login('off@example.com', PASSWORD);
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.deepEqual(Object.keys(body).sort(), ['message', 'tmp_id', 'verification']);
      assert.deepEqual(body.verification, {
        token_delivery: true,
        prompt: 'Please check your registered email address for instructions on how to proceed. Do not close this window as you will have to return to it.',
        method: 'Email',
        setup: true,
      });
      assert.equal(client.sid, undefined, 'no session before the second factor');
      assert.equal(sink.received.length, 0, 'nothing leaves inside the request');
      await worker.runDue();
      const mail = sink.received.find((m) => m.to.includes('off@example.com'));
      assert.ok(mail, 'the QR link was mailed');
      assert.match(String(mail.parsed.subject), /One Time Password \(OTP\) Registration Code from Acme fw/);
      const key = /\/qrcode\?k=([A-Za-z0-9_-]+)/.exec(String(mail.parsed.html))?.[1];
      assert.ok(key, 'the mail carries the link');
      const page = await t.request({ method: 'GET', url: `/api/method/fw.twofactor.get_qrcode?k=${key}`, anonymous: true });
      assert.equal(page.statusCode, 200, page.body);
      const { secret, otpauth_uri, qr_svg } = page.json().message as { secret: string; otpauth_uri: string; qr_svg: string };
      assert.match(otpauth_uri, /^otpauth:\/\/totp\/Acme%20fw:off%40example\.com\?issuer=Acme%20fw&secret=[A-Z2-7]{32}&algorithm=SHA1&digits=6&period=30$/);
      assert.match(qr_svg, /^<svg /);

      const done = await client.verify(body.tmp_id, codeAt(secret, clock.now()));
      assert.equal(done.statusCode, 200, done.body);
      assert.equal(done.json().message, 'Logged In');
      assert.equal(await client.whoAmI(), 'off@example.com');

      clock.advance(STEP);
      const again = await new TwoFactorClient(t, freshIp()).login('off@example.com', PASSWORD);
      assert.deepEqual(again.json().verification, { method: 'OTP App', setup: true }, 'set up from now on');
      const expired = await t.request({ method: 'GET', url: `/api/method/fw.twofactor.get_qrcode?k=${key}`, anonymous: true });
      assert.equal(expired.statusCode, 404, 'the link dies once the authenticator is confirmed');
    });

    test('codes of one step either side are accepted, two steps away refused; secret and tmp_id are stored only encrypted or hashed', async () => {
      const { secret } = await enrolled('skew@example.com');
      // The step before now must not be the one the confirmation spent.
      clock.advance(STEP);
      const client = new TwoFactorClient(t, freshIp());
      for (const offset of [-2 * STEP, 2 * STEP]) {
        const tmpId = await tmpIdFor(client, 'skew@example.com');
        const res = await client.verify(tmpId, codeAt(secret, clock.now() + offset));
        assert.equal(res.statusCode, 401, `offset ${offset}`);
        assert.equal(res.json().exc_type, 'AuthenticationError');
        assert.match(res.body, /Incorrect Verification code/);
        assert.equal(client.sid, undefined);
      }
      for (const offset of [-STEP, STEP]) {
        const tmpId = await tmpIdFor(client, 'skew@example.com');
        const stored = await t.site.db.read((q) =>
          q.all<{ id_hash: string }>(t.site.db.dialect.builder.selectFrom('__TwoFactorLogin').select('id_hash').compile()),
        );
        assert.ok(
          stored.some((r) => r.id_hash === createHash('sha256').update(tmpId).digest('hex')),
          'the tmp_id is kept as its SHA-256',
        );
        assert.ok(!stored.some((r) => r.id_hash === tmpId));
        const res = await client.verify(tmpId, codeAt(secret, clock.now() + offset));
        assert.equal(res.statusCode, 200, `offset ${offset}: ${res.body}`);
        assert.equal(await client.whoAmI(), 'skew@example.com');
        client.sid = undefined;
      }
      const rows = await t.site.db.read((q) =>
        q.all<{ fieldname: string; password: string }>(
          t.site.db.dialect.builder.selectFrom('__Auth').select(['fieldname', 'password']).where('name', '=', 'skew@example.com').compile(),
        ),
      );
      const stored = rows.find((r) => r.fieldname === 'otp_secret');
      assert.ok(stored?.password.startsWith('gcm1:'), 'the secret is AES-GCM encrypted');
      assert.ok(
        rows.every((r) => !r.password.includes(secret)),
        'the secret never appears in clear',
      );
    });

    test('a code once accepted is refused when replayed, in the same step and later', async () => {
      const { secret } = await enrolled('replay@example.com');
      const code = codeAt(secret, clock.now());
      const a = new TwoFactorClient(t, freshIp());
      const first = await a.verify(await tmpIdFor(a, 'replay@example.com'), code);
      assert.equal(first.statusCode, 200, first.body);
      const b = new TwoFactorClient(t, freshIp());
      const replay = await b.verify(await tmpIdFor(b, 'replay@example.com'), code);
      assert.equal(replay.statusCode, 401, replay.body);
      assert.equal(b.sid, undefined, 'no session from a replayed code');
      clock.advance(STEP);
      const late = await b.verify(await tmpIdFor(b, 'replay@example.com'), code);
      assert.equal(late.statusCode, 401, 'still refused one step later (within the skew window)');
      const fresh = await b.verify(await tmpIdFor(b, 'replay@example.com'), codeAt(secret, clock.now()));
      assert.equal(fresh.statusCode, 200, fresh.body);
    });

    test('a recovery code works once in place of the code', async () => {
      const { recovery } = await enrolled('recover@example.com');
      assert.equal(recovery.length, 10);
      assert.equal(new Set(recovery).size, 10);
      const a = new TwoFactorClient(t, freshIp());
      const used = await a.verify(await tmpIdFor(a, 'recover@example.com'), recovery[3]!.toUpperCase());
      assert.equal(used.statusCode, 200, used.body);
      assert.equal(await a.whoAmI(), 'recover@example.com');
      const b = new TwoFactorClient(t, freshIp());
      const again = await b.verify(await tmpIdFor(b, 'recover@example.com'), recovery[3]!);
      assert.equal(again.statusCode, 401, 'a recovery code works once');
      const other = await b.verify(await tmpIdFor(b, 'recover@example.com'), recovery[4]!);
      assert.equal(other.statusCode, 200, other.body);
    });

    test('five wrong codes end the login: the sixth attempt is refused even with the right code', async () => {
      await setSystemSettings(t, { allow_consecutive_login_attempts: 100 });
      const { secret } = await enrolled('wrong@example.com');
      const client = new TwoFactorClient(t, freshIp());
      const tmpId = await tmpIdFor(client, 'wrong@example.com');
      const right = codeAt(secret, clock.now());
      const wrongCode = right === '000000' ? '000001' : '000000';
      for (let i = 1; i <= 5; i++) {
        const res = await client.verify(tmpId, wrongCode);
        assert.equal(res.statusCode, 401);
        assert.match(res.body, /Incorrect Verification code/, `wrong code ${i}`);
      }
      const sixth = await client.verify(tmpId, right);
      assert.equal(sixth.statusCode, 401);
      assert.match(sixth.body, /Login session expired, refresh page to retry/);
      assert.equal(client.sid, undefined);
      const fresh = await client.verify(await tmpIdFor(client, 'wrong@example.com'), right);
      assert.equal(fresh.statusCode, 200, 'a new login with the same, never accepted, code works');
      await setSystemSettings(t, { allow_consecutive_login_attempts: 10 });
    });

    test('wrong codes count toward the login lockout of the user and the client', async () => {
      const { secret } = await enrolled('locked@example.com');
      await setSystemSettings(t, { allow_consecutive_login_attempts: 3 });
      try {
        const client = new TwoFactorClient(t, freshIp());
        const tmpId = await tmpIdFor(client, 'locked@example.com'); // attempt 1
        assert.equal((await client.verify(tmpId, '000000')).statusCode, 401); // 2
        assert.equal((await client.verify(tmpId, '000001')).statusCode, 401); // 3
        const locked = await client.verify(tmpId, codeAt(secret, clock.now())); // 4: over the limit
        assert.equal(locked.statusCode, 429, locked.body);
        assert.equal(locked.json().exc_type, 'SecurityException');
        assert.equal(client.sid, undefined);
        const password = await new TwoFactorClient(t, freshIp()).login('locked@example.com', PASSWORD);
        assert.equal(password.statusCode, 429, 'the user is locked from every address');
      } finally {
        await setSystemSettings(t, { allow_consecutive_login_attempts: 10 });
      }
    });

    test('a tmp_id works only from the client it was issued to, and only for minutes', async () => {
      const { secret } = await enrolled('bound@example.com');
      const client = new TwoFactorClient(t, freshIp());
      const tmpId = await tmpIdFor(client, 'bound@example.com');
      const code = codeAt(secret, clock.now());
      for (const thief of [new TwoFactorClient(t, freshIp()), new TwoFactorClient(t, client.ip, 'other-agent/2')]) {
        const res = await thief.verify(tmpId, code);
        assert.equal(res.statusCode, 401);
        assert.match(res.body, /Login session expired/);
        assert.equal(thief.sid, undefined);
      }
      const owner = await client.verify(tmpId, code);
      assert.equal(owner.statusCode, 200, 'the thief did not spend the login or the code');
      clock.advance(STEP);
      const later = await tmpIdFor(client, 'bound@example.com');
      clock.advance(181_000);
      const expired = await client.verify(later, codeAt(secret, clock.now()));
      assert.equal(expired.statusCode, 401);
      assert.match(expired.body, /Login session expired/);
    });

    test('API keys are not asked for a code', async () => {
      await enrolled('keys@example.com');
      const auth = await tokenFor(t, 'keys@example.com');
      const res = await t.request({ method: 'GET', url: '/api/method/fw.auth.get_logged_user', headers: { authorization: auth }, anonymous: true });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().message, 'keys@example.com');
    });

    test('Email method: a six-digit code is mailed after the commit and works once', async () => {
      await createUser(t, { email: 'mailed@example.com', password: PASSWORD, roles: ['Auditor'] });
      await setSystemSettings(t, { two_factor_method: 'Email' });
      try {
        const before = sink.received.length;
        const client = new TwoFactorClient(t, freshIp());
        const res = await client.login('mailed@example.com', PASSWORD);
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(res.json().verification, {
          token_delivery: true,
          prompt: 'Verification code has been sent to your registered email address.',
          method: 'Email',
          setup: true,
        });
        assert.equal(sink.received.length, before, 'the mail waits for its job after the commit');
        await worker.runDue();
        const mail = sink.received.slice(before).find((m) => m.to.includes('mailed@example.com'));
        assert.ok(mail);
        assert.match(String(mail.parsed.subject), /Login Verification Code from Acme fw/);
        const code = /<b[^>]*>(\d{6})<\/b>/.exec(String(mail.parsed.html))?.[1];
        assert.ok(code, 'the mail carries the code');
        const wrong = await client.verify(res.json().tmp_id, code === '123456' ? '654321' : '123456');
        assert.equal(wrong.statusCode, 401);
        const ok = await client.verify(res.json().tmp_id, code);
        assert.equal(ok.statusCode, 200, ok.body);
        assert.equal(await client.whoAmI(), 'mailed@example.com');
        const again = await new TwoFactorClient(t, client.ip).verify(res.json().tmp_id, code);
        assert.equal(again.statusCode, 401, 'the login and its code are spent');
      } finally {
        await setSystemSettings(t, { two_factor_method: 'OTP App' });
      }
    });
  });
}
