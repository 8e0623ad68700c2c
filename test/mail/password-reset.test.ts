import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { JobWorker } from '../../src/jobs/job-worker.js';
import { testDialects } from '../helpers/dialects.js';
import { signUp } from '../helpers/file-api.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';
import { addSinkAccount } from '../helpers/mail-account.js';
import { SmtpSink } from '../helpers/smtp-sink.js';

const USER = '/api/method/fw.core.doctype.user.user';
const ANSWER = 'If an account with this email exists, password reset instructions have been sent.';
const NEW_PASSWORD = 'Brand-new-Secret-77';

/*
 * Password reset, hardened (docs/mail.md "Password reset", docs/api.md): one answer for every
 * address, a mail only for enabled users, a 32-byte key stored as SHA-256, single use, expiring,
 * voided by any later password change; update_password logs the user in and ends other sessions;
 * rate limits per client address and per account.
 */
for (const dialect of testDialects()) {
  describe(`password reset (${dialect.name})`, () => {
    let t: TestSite;
    let sink: SmtpSink;
    let worker: JobWorker;
    before(async () => {
      t = await startTestSite(dialect);
      sink = await new SmtpSink().start();
      worker = new JobWorker(t.site.jobs);
      await addSinkAccount(t, sink);
      const limit = await t.request({ method: 'PUT', url: '/api/resource/System Settings/System Settings', body: { password_reset_limit: 100 } });
      assert.equal(limit.statusCode, 200, limit.body);
    });
    after(async () => {
      await sink.stop();
      await t.close();
    });

    const reset = (user: unknown) => t.request({ method: 'POST', url: `${USER}.reset_password`, body: { user }, anonymous: true });
    const update = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
      t.request({ method: 'POST', url: `${USER}.update_password`, body, anonymous: true, headers });
    async function keyMailedTo(address: string, count: number): Promise<string> {
      await worker.runDue();
      const mails = sink.received.filter((m) => m.to.includes(address));
      assert.equal(mails.length, count, `mails to ${address}`);
      const keys = mails.map((m) => /https?:\/\/[^\s"<>]+\/update-password\?key=([A-Za-z0-9_-]+)/.exec(String(m.parsed.text))?.[1]);
      assert.ok(keys.every(Boolean), 'every mail carries the link');
      // The valid key is the newest request's; mails of requests made together may arrive in either
      // order (their send jobs run side by side), so the stored hash tells which one it is.
      const stored = await t.site.db.read((q) =>
        q.all<{ password: string }>(t.site.db.dialect.builder.selectFrom('__Auth').select('password').where('fieldname', '=', 'reset_password_key').compile()),
      );
      const current = keys.find((key) => stored.some((row) => row.password.startsWith(`${createHash('sha256').update(key!).digest('hex')}:`)));
      assert.ok(current, 'one mailed key is the stored one');
      return current!;
    }
    async function loggedUser(cookie: string): Promise<unknown> {
      const res = await t.request({ method: 'GET', url: '/api/method/fw.auth.get_logged_user', anonymous: true, headers: { cookie } });
      return res.statusCode === 200 ? res.json().message : res.statusCode;
    }

    test('known, unknown, disabled and built-in addresses get byte-identical answers; only the enabled user gets a mail', async () => {
      const ann = await signUp(t, 'ann@example.com');
      await signUp(t, 'dis@example.com');
      await t.request({ method: 'PUT', url: '/api/resource/User/dis@example.com', body: { enabled: 0 } });
      const answers = [];
      for (const user of ['ann@example.com', 'nobody@example.com', 'dis@example.com', 'Administrator', 'ANN@example.com ']) {
        const res = await reset(user);
        assert.equal(res.statusCode, 200, res.body);
        answers.push({ body: res.body, type: res.headers['content-type'], cookies: res.headers['set-cookie'] });
      }
      for (const a of answers) assert.deepEqual(a, answers[0]);
      assert.deepEqual(JSON.parse(answers[0]!.body), { message: ANSWER });
      const key = await keyMailedTo('ann@example.com', 2);
      assert.equal(Buffer.from(key, 'base64url').length, 32);
      assert.equal(sink.received.length, 2, 'no mail to unknown, disabled or built-in users');
      const stored = await t.site.db.read((q) =>
        q.all<{ password: string }>(t.site.db.dialect.builder.selectFrom('__Auth').select('password').where('fieldname', '=', 'reset_password_key').compile()),
      );
      assert.equal(stored.length, 1);
      assert.ok(stored[0]!.password.startsWith(`${createHash('sha256').update(key).digest('hex')}:`), 'only the hash is stored');
      assert.doesNotMatch(stored[0]!.password, new RegExp(key));

      // A password the policy refuses leaves the key usable.
      await t.request({ method: 'PUT', url: '/api/resource/System Settings/System Settings', body: { enable_password_policy: 1, minimum_password_score: 3 } });
      const weak = await update({ key, new_password: 'abc12345' });
      assert.equal(weak.statusCode, 417, weak.body);
      await t.request({ method: 'PUT', url: '/api/resource/System Settings/System Settings', body: { enable_password_policy: 0 } });

      const done = await update({ key, new_password: NEW_PASSWORD });
      assert.equal(done.statusCode, 200, done.body);
      assert.equal(done.json().message, '/app');
      const sid = done.cookies.find((c) => c.name === 'sid')?.value;
      assert.ok(sid, 'the user is logged in');
      assert.equal(await loggedUser(`sid=${sid}`), 'ann@example.com');
      assert.notEqual(await loggedUser(ann.headers.cookie!), 'ann@example.com', 'the old session ended');
      const login = await t.request({ method: 'POST', url: '/api/method/login', body: { usr: 'ann@example.com', pwd: NEW_PASSWORD }, anonymous: true });
      assert.equal(login.statusCode, 200, login.body);

      const again = await update({ key, new_password: 'Another-Secret-88' });
      assert.equal(again.statusCode, 410, again.body);
      assert.match(again.json().exception, /used before or is invalid/);
      const login2 = await t.request({ method: 'POST', url: '/api/method/login', body: { usr: 'ann@example.com', pwd: NEW_PASSWORD }, anonymous: true });
      assert.equal(login2.statusCode, 200, 'the reused key changed nothing');
    });

    test('a key past reset_password_link_expiry_duration answers 410 expired and changes nothing', async () => {
      await reset('ann@example.com');
      const key = await keyMailedTo('ann@example.com', 3);
      // Move the key's creation back past the default 1200 s instead of waiting.
      const hash = createHash('sha256').update(key).digest('hex');
      await t.site.db.transaction((q) =>
        q.run(
          t.site.db.dialect.builder
            .updateTable('__Auth')
            .set({ password: `${hash}:${Date.now() - 1_201_000}` })
            .where('fieldname', '=', 'reset_password_key')
            .compile(),
        ),
      );
      const res = await update({ key, new_password: 'Expired-Secret-99' });
      assert.equal(res.statusCode, 410, res.body);
      assert.match(res.json().exception, /has been expired/);
      const login = await t.request({ method: 'POST', url: '/api/method/login', body: { usr: 'ann@example.com', pwd: NEW_PASSWORD }, anonymous: true });
      assert.equal(login.statusCode, 200);
    });

    test('any later password change voids the key; a new request replaces the old key', async () => {
      await reset('ann@example.com');
      const first = await keyMailedTo('ann@example.com', 4);
      await reset('ann@example.com');
      const second = await keyMailedTo('ann@example.com', 5);
      assert.equal((await update({ key: first, new_password: 'Replaced-Secret-11' })).statusCode, 410);
      const changed = await t.request({ method: 'PUT', url: '/api/resource/User/ann@example.com', body: { new_password: 'Admin-Set-Secret-22' } });
      assert.equal(changed.statusCode, 200, changed.body);
      assert.equal((await update({ key: second, new_password: 'Voided-Secret-33' })).statusCode, 410);
    });

    test('update_password without a key needs a login and the old password', async () => {
      assert.equal((await update({ old_password: 'x', new_password: 'Whatever-Secret-44' })).statusCode, 403);
      const login = await t.request({
        method: 'POST',
        url: '/api/method/login',
        body: { usr: 'ann@example.com', pwd: 'Admin-Set-Secret-22' },
        anonymous: true,
      });
      const cookie = `sid=${login.cookies.find((c) => c.name === 'sid')!.value}`;
      assert.equal((await update({ old_password: 'wrong', new_password: 'Whatever-Secret-44' }, { cookie })).statusCode, 401);
      const ok = await update({ old_password: 'Admin-Set-Secret-22', new_password: 'Whatever-Secret-44' }, { cookie });
      assert.equal(ok.statusCode, 200, ok.body);
      assert.equal(ok.json().message, '/app');
      assert.equal(await loggedUser(cookie), 'ann@example.com', 'the session that changed it stays');
    });

    test('rate limits: five requests per account in ten minutes, then per client address; 429 and no mail', async () => {
      const before = sink.received.length;
      for (let i = 0; i < 5; i++) assert.equal((await reset('carl@example.com')).statusCode, 200);
      const tooMany = await reset('carl@example.com');
      assert.equal(tooMany.statusCode, 429, tooMany.body);
      assert.equal(tooMany.json().exc_type, 'TooManyRequestsError');
      await t.request({ method: 'PUT', url: '/api/resource/System Settings/System Settings', body: { password_reset_limit: 1 } });
      const limited = await reset('ann@example.com');
      assert.equal(limited.statusCode, 429, limited.body);
      await worker.runDue();
      assert.equal(sink.received.length, before);
    });
  });
}

/*
 * A site with no outgoing mail at all (no Email Account, no mail_server): the reset answer must still
 * not tell known addresses from unknown ones, and nothing may fail (docs/mail.md "Password reset").
 */
for (const dialect of testDialects()) {
  describe(`password reset without outgoing mail (${dialect.name})`, () => {
    let t: TestSite;
    before(async () => {
      t = await startTestSite(dialect);
    });
    after(async () => {
      await t.close();
    });

    test('a known and an unknown address get byte-identical 200 answers', async () => {
      await signUp(t, 'nomail@example.com');
      const answers = [];
      for (const user of ['nomail@example.com', 'stranger@example.com']) {
        const res = await t.request({ method: 'POST', url: `${USER}.reset_password`, body: { user }, anonymous: true });
        assert.equal(res.statusCode, 200, res.body);
        answers.push({ body: res.body, type: res.headers['content-type'] });
      }
      assert.deepEqual(answers[0], answers[1]);
      assert.deepEqual(JSON.parse(answers[0]!.body), { message: ANSWER });
    });
  });
}
