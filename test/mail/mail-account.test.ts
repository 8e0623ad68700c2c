import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { testDialects } from '../helpers/dialects.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';
import { SmtpSink } from '../helpers/smtp-sink.js';

const SEND_TEST = '/api/method/fw.email.doctype.email_account.email_account.send_test_mail';

/** A port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/*
 * Email Account and "send test mail" (docs/mail.md "Email Account", "Send a test mail"): the
 * password is stored encrypted and never answered; a test mail reaches a real SMTP listener with
 * AUTH, and each kind of failure is named (connect, authentication, recipient refused, TLS, DNS).
 */
for (const dialect of testDialects()) {
  describe(`Email Account and send_test_mail (${dialect.name})`, () => {
    let t: TestSite;
    let sink: SmtpSink;
    let tlsSink: SmtpSink;
    before(async () => {
      t = await startTestSite(dialect);
      sink = await new SmtpSink({ auth: { user: 'mailer', pass: 'sm7p-pass' } }).start();
      tlsSink = await new SmtpSink({ auth: { user: 'mailer', pass: 'sm7p-pass' }, startTls: true }).start();
    });
    after(async () => {
      await sink.stop();
      await tlsSink.stop();
      await t.close();
    });

    async function account(name: string, fields: Record<string, unknown>) {
      const res = await t.request({
        method: 'POST',
        url: '/api/resource/Email Account',
        body: {
          email_account_name: name,
          email_id: 'robot@example.com',
          enable_outgoing: 1,
          smtp_server: '127.0.0.1',
          smtp_port: sink.port,
          login_id: 'mailer',
          password: 'sm7p-pass',
          ...fields,
        },
      });
      assert.equal(res.statusCode, 200, res.body);
      return res.json().data as Record<string, unknown>;
    }
    async function testMail(body: Record<string, unknown>) {
      return t.request({ method: 'POST', url: SEND_TEST, body });
    }

    test('with no account and no mail_server the test mail says what to set up', async () => {
      const res = await testMail({ recipient: 'ann@example.com' });
      assert.equal(res.statusCode, 417, res.body);
      assert.match(res.json().exception, /Please setup default outgoing Email Account/);
    });

    test('the password is stored encrypted: the API answers a mask, the database holds no clear text', async () => {
      const doc = await account('Main', { default_outgoing: 1 });
      assert.notEqual(doc.password, 'sm7p-pass');
      const read = await t.request({ method: 'GET', url: '/api/resource/Email Account/Main' });
      assert.doesNotMatch(read.body, /sm7p-pass/);
      const rows = await t.site.db.read((q) =>
        q.all<Record<string, unknown>>(t.site.db.dialect.builder.selectFrom('__Auth').selectAll().where('doctype', '=', 'Email Account').compile()),
      );
      assert.equal(rows.length, 1);
      assert.doesNotMatch(JSON.stringify(rows), /sm7p-pass/);
    });

    test('a test mail goes through the default account with AUTH; the answer carries its Message-ID', async () => {
      const before = sink.received.length;
      const res = await testMail({ recipient: 'ann@example.com' });
      assert.equal(res.statusCode, 200, res.body);
      const answer = res.json().message;
      assert.equal(answer.sent, true);
      assert.equal(answer.email_account, 'Main');
      await sink.waitFor(before + 1);
      const mail = sink.received[before]!;
      assert.equal(mail.user, 'mailer');
      assert.deepEqual(mail.to, ['ann@example.com']);
      assert.equal(mail.from, 'robot@example.com');
      assert.equal(mail.parsed.messageId, answer.message_id);
      assert.equal(mail.parsed.subject, 'Test mail from fw');
      assert.match(String(mail.parsed.html), /outgoing mail works/);
      assert.match(String(mail.parsed.text), /outgoing mail works/);
    });

    test('a wrong password is named as an authentication failure with the server reply', async () => {
      await account('Wrong', { password: 'not-it' });
      const res = await testMail({ recipient: 'ann@example.com', email_account: 'Wrong' });
      assert.equal(res.statusCode, 417, res.body);
      assert.match(res.json().exception, /refused the login \(authentication\).*535/);
    });

    test('a refused recipient is named with the 550 reply', async () => {
      sink.faults.refuse!.set('nobody@example.com', 550);
      const res = await testMail({ recipient: 'nobody@example.com' });
      assert.equal(res.statusCode, 417, res.body);
      assert.match(res.json().exception, /refused the recipient.*550/);
    });

    test('a server that is not listening is named as a connect failure', async () => {
      await account('Down', { smtp_port: await closedPort() });
      const res = await testMail({ recipient: 'ann@example.com', email_account: 'Down' });
      assert.equal(res.statusCode, 417, res.body);
      assert.match(res.json().exception, /Could not connect to the SMTP server.*ECONNREFUSED/);
    });

    test('an unresolvable server name is named as a DNS failure', async () => {
      await account('NoDns', { smtp_server: 'smtp.fw-test.invalid' });
      const res = await testMail({ recipient: 'ann@example.com', email_account: 'NoDns' });
      assert.equal(res.statusCode, 417, res.body);
      assert.match(res.json().exception, /could not be resolved \(DNS\)/);
    });

    test('STARTTLS: a self-signed certificate fails as TLS when validated, and works when validation is off', async () => {
      await account('Tls', { smtp_port: tlsSink.port, use_tls: 1 });
      const refused = await testMail({ recipient: 'ann@example.com', email_account: 'Tls' });
      assert.equal(refused.statusCode, 417, refused.body);
      assert.match(refused.json().exception, /TLS handshake/);
      assert.equal(tlsSink.received.length, 0);
      await account('TlsTrusted', { smtp_port: tlsSink.port, use_tls: 1, validate_ssl_certificate: 0 });
      const res = await testMail({ recipient: 'ann@example.com', email_account: 'TlsTrusted' });
      assert.equal(res.statusCode, 200, res.body);
      await tlsSink.waitFor(1);
      assert.equal(tlsSink.received[0]!.secure, true);
      assert.equal(tlsSink.received[0]!.user, 'mailer');
    });

    test('bad accounts are refused and change nothing: TLS with SSL, an out-of-range port, no server', async () => {
      for (const fields of [{ use_tls: 1, use_ssl_for_outgoing: 1 }, { smtp_port: 70000 }, { smtp_server: '' }]) {
        const res = await t.request({
          method: 'POST',
          url: '/api/resource/Email Account',
          body: { email_account_name: 'Bad', email_id: 'x@example.com', enable_outgoing: 1, smtp_server: 'h', ...fields },
        });
        assert.equal(res.statusCode, 417, res.body);
      }
      const list = await t.request({ method: 'GET', url: '/api/resource/Email Account?filters=[["name","=","Bad"]]' });
      assert.deepEqual(list.json().data, []);
    });

    test('making another account the default clears the flag on the first', async () => {
      await account('Second', { default_outgoing: 1 });
      const list = await t.request({
        method: 'GET',
        url: '/api/resource/Email Account?fields=["name","default_outgoing"]&filters=[["default_outgoing","=",1]]',
      });
      assert.deepEqual(
        list.json().data.map((r: { name: string }) => r.name),
        ['Second'],
      );
    });

    test('only a System Manager may send a test mail or read Email Accounts', async () => {
      const res = await t.request({ method: 'POST', url: SEND_TEST, body: { recipient: 'ann@example.com' }, anonymous: true });
      assert.equal(res.statusCode, 403, res.body);
      const read = await t.request({ method: 'GET', url: '/api/resource/Email Account', anonymous: true });
      assert.equal(read.statusCode, 403);
    });
  });
}
