import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/jobs/job-clock.js';
import { JobWorker } from '../../src/jobs/job-worker.js';
import { testDialects } from '../helpers/dialects.js';
import { addSinkAccount } from '../helpers/mail-account.js';
import { SmtpSink } from '../helpers/smtp-sink.js';
import { ADMIN_PASSWORD, startTestSite, type TestSite } from '../helpers/test-site.js';
import { codeAt, setSystemSettings, TwoFactorClient } from '../helpers/two-factor.js';
import { createUser, freshIp } from '../helpers/user-sessions.js';

const PASSWORD = 'Two-Factor-Secret-42';
const STEP = 30_000;

/*
 * The two-factor methods (docs/identity.md "Two-factor login"): setup, confirm, disable,
 * regenerate_recovery_codes, reset_otp_secret (also under frappe.twofactor.), status and the QR page;
 * who may call them, their rate limits and CSRF, each refusal checked to change nothing.
 */
for (const dialect of testDialects()) {
  describe(`two-factor methods (${dialect.name})`, () => {
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
    });
    after(async () => {
      await sink.stop();
      await t.close();
    });

    /** A user signed in on a client of their own (two-factor login not set up yet). */
    async function signedIn(email: string, roles: string[] = []): Promise<TwoFactorClient> {
      await createUser(t, { email, password: PASSWORD, roles });
      const client = new TwoFactorClient(t, freshIp());
      const res = await client.login(email, PASSWORD);
      assert.equal(res.json().message, 'Logged In', res.body);
      return client;
    }

    async function status(client: TwoFactorClient): Promise<Record<string, unknown>> {
      const res = await client.get('fw.twofactor.status');
      assert.equal(res.statusCode, 200, res.body);
      return res.json().message as Record<string, unknown>;
    }

    async function setUp(client: TwoFactorClient): Promise<{ secret: string; recovery: string[] }> {
      const setup = await client.post('fw.twofactor.setup', {});
      assert.equal(setup.statusCode, 200, setup.body);
      const { secret } = setup.json().message as { secret: string };
      const confirm = await client.post('fw.twofactor.confirm', { otp: codeAt(secret, clock.now()) });
      assert.equal(confirm.statusCode, 200, confirm.body);
      clock.advance(STEP);
      return { secret, recovery: confirm.json().message.recovery_codes as string[] };
    }

    test('setup refuses while the site has two-factor login off', async () => {
      const client = await signedIn('early@example.com');
      const res = await client.post('fw.twofactor.setup', {});
      assert.equal(res.statusCode, 417, res.body);
      assert.match(res.body, /enable Two Factor Auth from System Settings/);
      assert.equal((await status(client)).set_up, false);
      await setSystemSettings(t, { enable_two_factor_auth: 1 });
    });

    test('setup answers a 20-byte secret, its otpauth URI and a QR code; a wrong code confirms nothing; the right one gives ten recovery codes once', async () => {
      const client = await signedIn('setup@example.com');
      const setup = await client.post('fw.twofactor.setup', {});
      assert.equal(setup.statusCode, 200, setup.body);
      const { secret, otpauth_uri, qr_svg } = setup.json().message as Record<string, string>;
      assert.match(secret!, /^[A-Z2-7]{32}$/, '160 bits in base32');
      assert.ok(otpauth_uri!.includes(`secret=${secret}`));
      assert.match(otpauth_uri!, /algorithm=SHA1&digits=6&period=30/);
      assert.match(qr_svg!, /^<svg [^>]*viewBox/);

      const right = codeAt(secret!, clock.now());
      const wrong = await client.post('fw.twofactor.confirm', { otp: right === '111111' ? '222222' : '111111' });
      assert.equal(wrong.statusCode, 417, wrong.body);
      assert.match(wrong.body, /Incorrect Verification code/);
      assert.deepEqual(await status(client), { enabled_on_site: true, method: 'OTP App', required_by_role: false, set_up: false, recovery_codes_left: 0 });

      const confirm = await client.post('fw.twofactor.confirm', { otp: right });
      assert.equal(confirm.statusCode, 200, confirm.body);
      const codes = confirm.json().message.recovery_codes as string[];
      assert.equal(codes.length, 10);
      for (const code of codes) assert.match(code, /^[a-z2-7]{5}-[a-z2-7]{5}$/);
      assert.equal((await status(client)).set_up, true);
      assert.equal((await status(client)).recovery_codes_left, 10);
      const stored = await t.site.db.read((q) =>
        q.all<{ fieldname: string; password: string }>(
          t.site.db.dialect.builder.selectFrom('__Auth').select(['fieldname', 'password']).where('name', '=', 'setup@example.com').compile(),
        ),
      );
      const all = JSON.stringify(stored);
      for (const code of codes) assert.ok(!all.includes(code) && !all.includes(code.replace('-', '')), 'recovery codes are stored hashed');
      assert.ok(!all.includes(secret!), 'the secret is stored encrypted');

      const again = await client.post('fw.twofactor.setup', {});
      assert.equal(again.statusCode, 417, 'a second setup needs the first one disabled');
      const replayed = await client.post('fw.twofactor.confirm', { otp: right });
      assert.equal(replayed.statusCode, 417, 'nothing left to confirm');
    });

    test('disable needs a current code or a recovery code, and only ever touches the caller', async () => {
      const owner = await signedIn('owner@example.com');
      const { secret, recovery } = await setUp(owner);
      const wrong = await owner.post('fw.twofactor.disable', { otp: '000000' });
      assert.equal(wrong.statusCode, 417);
      assert.equal((await status(owner)).set_up, true, 'a wrong code changed nothing');

      // Another user's disable (with the owner's own valid code) only ever acts on themselves.
      const other = await signedIn('other@example.com');
      const stolen = await other.post('fw.twofactor.disable', { otp: codeAt(secret, clock.now()), user: 'owner@example.com' });
      assert.equal(stolen.statusCode, 417, stolen.body);
      assert.match(stolen.body, /not set up for this account/);
      assert.equal((await status(owner)).set_up, true);

      const byRecovery = await owner.post('fw.twofactor.disable', { otp: recovery[0] });
      assert.equal(byRecovery.statusCode, 200, byRecovery.body);
      assert.deepEqual(await status(owner), { enabled_on_site: true, method: 'OTP App', required_by_role: false, set_up: false, recovery_codes_left: 0 });
      const login = await new TwoFactorClient(t, freshIp()).login('owner@example.com', PASSWORD);
      assert.equal(login.json().message, 'Logged In', 'no second step once disabled');
    });

    test('regenerate_recovery_codes needs a current code and voids the old codes', async () => {
      const client = await signedIn('regen@example.com');
      const { secret, recovery } = await setUp(client);
      const res = await client.post('fw.twofactor.regenerate_recovery_codes', { otp: codeAt(secret, clock.now()) });
      assert.equal(res.statusCode, 200, res.body);
      const fresh = res.json().message.recovery_codes as string[];
      assert.equal(fresh.length, 10);
      clock.advance(STEP);
      const stale = await client.post('fw.twofactor.disable', { otp: recovery[0] });
      assert.equal(stale.statusCode, 417, 'old codes are void');
      const ok = await client.post('fw.twofactor.disable', { otp: fresh[0] });
      assert.equal(ok.statusCode, 200, ok.body);
    });

    test('reset_otp_secret: the user themself or a System Manager; never another user by a plain user; the Administrator only by the Administrator', async () => {
      const target = await signedIn('target@example.com');
      await setUp(target);
      const plain = await signedIn('plain@example.com');
      for (const path of ['fw.twofactor.reset_otp_secret', 'frappe.twofactor.reset_otp_secret']) {
        const res = await plain.post(path, { user: 'target@example.com' });
        assert.equal(res.statusCode, 403, res.body);
        assert.equal(res.json().exc_type, 'PermissionError');
      }
      assert.equal((await status(target)).set_up, true, 'nothing changed');

      const manager = await signedIn('manager@example.com', ['System Manager']);
      const admin = new TwoFactorClient(t, freshIp());
      assert.equal((await admin.login('Administrator', ADMIN_PASSWORD)).json().message, 'Logged In');
      await setUp(admin);
      const refused = await manager.post('frappe.twofactor.reset_otp_secret', { user: 'Administrator' });
      assert.equal(refused.statusCode, 403, refused.body);
      assert.equal((await status(admin)).set_up, true, "the Administrator's authenticator is untouched");

      const before = sink.received.length;
      const reset = await manager.post('frappe.twofactor.reset_otp_secret', { user: 'target@example.com' });
      assert.equal(reset.statusCode, 200, reset.body);
      assert.match(reset.body, /Re-registration will be required on next login/);
      assert.equal((await status(target)).set_up, false);
      await worker.runDue();
      const notice = sink.received.slice(before).find((m) => m.to.includes('target@example.com'));
      assert.match(String(notice?.parsed.subject), /^OTP Secret Reset - fw$/);

      const own = await admin.post('fw.twofactor.reset_otp_secret', { user: 'Administrator' });
      assert.equal(own.statusCode, 200, own.body);
      assert.equal((await status(admin)).set_up, false);
      const unknown = await manager.post('fw.twofactor.reset_otp_secret', { user: 'ghost@example.com' });
      assert.equal(unknown.statusCode, 404, unknown.body);
    });

    test('codes at confirm and disable are rate-limited per user: the sixth within five minutes is 429', async () => {
      const client = await signedIn('limit@example.com');
      await client.post('fw.twofactor.setup', {});
      for (let i = 0; i < 5; i++) assert.equal((await client.post('fw.twofactor.confirm', { otp: '000000' })).statusCode, 417);
      const res = await client.post('fw.twofactor.confirm', { otp: '000000' });
      assert.equal(res.statusCode, 429, res.body);
      assert.equal(res.json().exc_type, 'TooManyRequestsError');
    });

    test('a cookie session cannot be made to set up or disable from another site (CSRF); Guest cannot call them', async () => {
      const client = await signedIn('csrf@example.com');
      const res = await client.post('fw.twofactor.setup', {}, { origin: 'https://evil.example' });
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.json().exc_type, 'CSRFTokenError');
      const guest = await t.request({ method: 'POST', url: '/api/method/fw.twofactor.setup', body: {}, anonymous: true });
      assert.equal(guest.statusCode, 403);
      const pending = await t.site.db.read((q) =>
        q.all(
          t.site.db.dialect.builder
            .selectFrom('__Auth')
            .select('fieldname')
            .where('name', '=', 'csrf@example.com')
            .where('fieldname', 'like', 'otp%')
            .compile(),
        ),
      );
      assert.equal(pending.length, 0, 'nothing was stored');
    });

    test('the QR page refuses unknown keys with 404 and is rate-limited per address', async () => {
      const ip = freshIp();
      const ask = (k: string) => t.app.inject({ method: 'GET', url: `/api/method/fw.twofactor.get_qrcode?k=${k}`, remoteAddress: ip });
      const res = await ask('A'.repeat(32));
      assert.equal(res.statusCode, 404, res.body);
      for (let i = 0; i < 9; i++) await ask(`B${i}`.padEnd(32, 'x'));
      const limited = await ask('C'.repeat(32));
      assert.equal(limited.statusCode, 429, limited.body);
    });
  });
}
