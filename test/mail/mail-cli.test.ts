import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSite } from '../../src/site/open-site.js';
import { testDialects } from '../helpers/dialects.js';
import { assertBuilt, runBin } from '../helpers/fw-bin.js';
import { SmtpSink } from '../helpers/smtp-sink.js';

/*
 * `fw mail test <address>` (docs/mail.md "Send a test mail"), through the site-config fallback
 * keys (mail_server, mail_port, mail_login, mail_password, auto_email_id): sent, or exit 1 naming
 * the step that failed.
 */
for (const dialect of testDialects()) {
  describe(`fw mail test (${dialect.name})`, () => {
    let dir: string;
    let db: { url: string; drop(): Promise<void> };
    let sink: SmtpSink;
    before(async () => {
      assertBuilt();
      sink = await new SmtpSink({ auth: { user: 'cfg-user', pass: 'cfg-pass' } }).start();
      dir = await mkdtemp(join(tmpdir(), 'fw-mail-cli-'));
      db = await dialect.createUrl();
      await createSite(dir, { dbUrl: db.url, adminPassword: 'admin-Secret-42' });
      const file = join(dir, 'site_config.json');
      const config = JSON.parse(await readFile(file, 'utf8'));
      Object.assign(config, {
        mail_server: '127.0.0.1',
        mail_port: sink.port,
        mail_login: 'cfg-user',
        mail_password: 'cfg-pass',
        auto_email_id: 'site@example.com',
        email_sender_name: 'The Site',
      });
      await writeFile(file, JSON.stringify(config));
    });
    after(async () => {
      await sink.stop();
      await db.drop();
      await rm(dir, { recursive: true, force: true });
    });

    test('sends through the site_config.json keys and prints the Message-ID', async () => {
      const run = await runBin(['mail', 'test', 'ann@example.com', '--site', dir]);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /Sent a test mail to ann@example.com through site_config.json \(127\.0\.0\.1:\d+\)/);
      await sink.waitFor(1);
      const mail = sink.received[0]!;
      assert.equal(mail.user, 'cfg-user');
      assert.equal(mail.parsed.from?.text, '"The Site" <site@example.com>');
      assert.match(run.stdout, new RegExp(`Message-ID: ${mail.parsed.messageId!.replace(/[<>.]/g, '\\$&')}`));
    });

    test('with the server down it exits 1 and names the connect step', async () => {
      await sink.stop();
      const run = await runBin(['mail', 'test', 'ann@example.com', '--site', dir]);
      assert.equal(run.code, 1);
      assert.match(run.stderr, /Could not connect to the SMTP server/);
      await sink.start();
    });

    test('a wrong verb is a usage error naming the command', async () => {
      const run = await runBin(['mail', 'send', '--site', dir]);
      assert.notEqual(run.code, 0);
      assert.match(run.stderr, /fw mail test <address>/);
    });
  });
}
