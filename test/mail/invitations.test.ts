import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { JobWorker } from '../../src/jobs/job-worker.js';
import { testDialects } from '../helpers/dialects.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';
import { addSinkAccount } from '../helpers/mail-account.js';
import { SmtpSink } from '../helpers/smtp-sink.js';

const USER = '/api/method/fw.core.doctype.user.user';

/*
 * Invitations and sign-up (docs/mail.md "Invitations", "Sign-up"): a welcome mail with a
 * set-password link of its own, longer life; sign_up off by default, and when on, the same answer
 * for a new and an existing address, a Website User with only the configured role.
 */
for (const dialect of testDialects()) {
  describe(`invitations and sign-up (${dialect.name})`, () => {
    let t: TestSite;
    let sink: SmtpSink;
    let worker: JobWorker;
    before(async () => {
      t = await startTestSite(dialect);
      sink = await new SmtpSink().start();
      worker = new JobWorker(t.site.jobs);
      await addSinkAccount(t, sink);
    });
    after(async () => {
      await sink.stop();
      await t.close();
    });

    async function linkKeyTo(address: string): Promise<{ key: string; subject: string }> {
      await worker.runDue();
      const mail = sink.received.filter((m) => m.to.includes(address)).at(-1);
      assert.ok(mail, `a mail to ${address}`);
      const key = /\/update-password\?key=([A-Za-z0-9_-]+)/.exec(String(mail.parsed.text))![1]!;
      return { key, subject: String(mail.parsed.subject) };
    }

    test('a user created with send_welcome_email gets a set-password link that outlives a reset link; without it, no mail', async () => {
      const quiet = await t.request({ method: 'POST', url: '/api/resource/User', body: { email: 'quiet@example.com', first_name: 'Quiet' } });
      assert.equal(quiet.statusCode, 200, quiet.body);
      const res = await t.request({ method: 'POST', url: '/api/resource/User', body: { email: 'bea@example.com', first_name: 'Bea', send_welcome_email: 1 } });
      assert.equal(res.statusCode, 200, res.body);
      const { key, subject } = await linkKeyTo('bea@example.com');
      assert.equal(subject, 'Welcome to localhost');
      assert.equal(sink.received.filter((m) => m.to.includes('quiet@example.com')).length, 0);
      // Older than a reset link may be (1200 s), younger than a welcome link (three days).
      const rows = await t.site.db.read((q) =>
        q.all<{ password: string }>(t.site.db.dialect.builder.selectFrom('__Auth').select('password').where('fieldname', '=', 'reset_password_key').compile()),
      );
      const [hash, created, lifetime] = rows[0]!.password.split(':');
      assert.equal(lifetime, String(3 * 24 * 3600));
      await t.site.db.transaction((q) =>
        q.run(
          t.site.db.dialect.builder
            .updateTable('__Auth')
            .set({ password: `${hash}:${Number(created) - 2 * 3600_000}:${lifetime}` })
            .where('fieldname', '=', 'reset_password_key')
            .compile(),
        ),
      );
      const set = await t.request({ method: 'POST', url: `${USER}.update_password`, body: { key, new_password: 'Welcome-Secret-55' }, anonymous: true });
      assert.equal(set.statusCode, 200, set.body);
      const login = await t.request({ method: 'POST', url: '/api/method/login', body: { usr: 'bea@example.com', pwd: 'Welcome-Secret-55' }, anonymous: true });
      assert.equal(login.statusCode, 200, login.body);
    });

    test('sign_up is off by default: 403 and no user', async () => {
      const res = await t.request({ method: 'POST', url: `${USER}.sign_up`, body: { email: 'new@example.com', full_name: 'New Person' }, anonymous: true });
      assert.equal(res.statusCode, 403, res.body);
      assert.match(res.json().exception, /Sign Up is disabled/);
      assert.equal((await t.request({ method: 'GET', url: '/api/resource/User/new@example.com' })).statusCode, 404);
    });

    test('with sign-up on, a new and an existing address get the same answer; the new user is a Website User with only the configured role', async () => {
      assert.equal((await t.request({ method: 'POST', url: '/api/resource/Role', body: { role_name: 'Member' } })).statusCode, 200);
      const on = await t.request({
        method: 'PUT',
        url: '/api/resource/System Settings/System Settings',
        body: { disable_signup: 0, signup_default_role: 'Member' },
      });
      assert.equal(on.statusCode, 200, on.body);
      const fresh = await t.request({
        method: 'POST',
        url: `${USER}.sign_up`,
        body: { email: 'New@Example.com', full_name: 'New Person', roles: [{ role: 'System Manager' }], user_type: 'System User' },
        anonymous: true,
      });
      const existing = await t.request({
        method: 'POST',
        url: `${USER}.sign_up`,
        body: { email: 'bea@example.com', full_name: 'Someone Else' },
        anonymous: true,
      });
      assert.equal(fresh.statusCode, 200, fresh.body);
      assert.equal(existing.statusCode, 200, existing.body);
      assert.equal(fresh.body, existing.body);
      assert.deepEqual(fresh.json().message, [1, 'Please check your email for verification']);
      const user = (await t.request({ method: 'GET', url: '/api/resource/User/new@example.com' })).json().data;
      assert.equal(user.user_type, 'Website User');
      assert.deepEqual(
        user.roles.map((r: { role: string }) => r.role),
        ['Member'],
      );
      assert.equal(user.full_name, 'New Person');
      const welcome = await linkKeyTo('new@example.com');
      assert.equal(welcome.subject, 'Welcome to localhost');
      const owner = await linkKeyTo('bea@example.com');
      assert.equal(owner.subject, 'Your account');
      const bea = (await t.request({ method: 'GET', url: '/api/resource/User/bea@example.com' })).json().data;
      assert.equal(bea.first_name, 'Bea', 'the existing account is unchanged');
    });
  });

  describe(`invitations without outgoing mail (${dialect.name})`, () => {
    let t: TestSite;
    before(async () => {
      t = await startTestSite(dialect);
    });
    after(async () => {
      await t.close();
    });

    test('a User asked to get the welcome mail is still created, with a message saying no mail went out', async () => {
      const res = await t.request({
        method: 'POST',
        url: '/api/resource/User',
        body: { email: 'nomail@example.com', first_name: 'No', send_welcome_email: 1 },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.match(String(res.json()._server_messages), /No welcome mail was sent to nomail@example\.com: outgoing mail is not set up/);
      const queued = await t.request({ method: 'GET', url: '/api/resource/Email Queue?fields=["name"]' });
      assert.deepEqual(queued.json().data, []);
    });
  });
}
