import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { JobWorker } from '../../src/jobs/job-worker.js';
import { checkMessage, mailRequestOf, type SendMailArgs } from '../../src/mail/mail-request.js';
import { FLUSH_JOB } from '../../src/mail/mail-flush.js';
import { testDialects } from '../helpers/dialects.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';
import { SmtpSink } from '../helpers/smtp-sink.js';

const QUEUE = '/api/method/fw.email.doctype.email_queue.email_queue';

/*
 * The queue (docs/mail.md "The queue"): a mail is an Email Queue row written in the caller's
 * transaction and sent by a worker after the commit; temporary failures (4xx, a connection cut
 * mid-DATA, a server down) retry up to email_retry_limit and then stay Error with the reply; a 5xx
 * refusal marks only that recipient; stale Sending rows are released; suspend holds everything.
 */
for (const dialect of testDialects()) {
  describe(`Email Queue (${dialect.name})`, () => {
    let t: TestSite;
    let sink: SmtpSink;
    let worker: JobWorker;
    before(async () => {
      t = await startTestSite(dialect);
      sink = await new SmtpSink({ auth: { user: 'mailer', pass: 'q-pass' } }).start();
      worker = new JobWorker(t.site.jobs);
      const res = await t.request({
        method: 'POST',
        url: '/api/resource/Email Account',
        body: {
          email_account_name: 'Main',
          email_id: 'robot@example.com',
          enable_outgoing: 1,
          default_outgoing: 1,
          smtp_server: '127.0.0.1',
          smtp_port: sink.port,
          login_id: 'mailer',
          password: 'q-pass',
        },
      });
      assert.equal(res.statusCode, 200, res.body);
      // A write that also queues a mail, and may fail after both.
      t.site.methods.register('fw.test_mail.write', async ({ ctx, args }) => {
        const todo = await t.site.documents.insert(ctx, 'ToDo', { description: String(args.subject) });
        const mailArgs = args as SendMailArgs & { fail?: unknown };
        const name = await t.site.mail!.queue(
          ctx,
          mailRequestOf(
            { reference_doctype: 'ToDo', reference_name: String(todo.name), ...mailArgs },
            { subject: String(args.subject), message: checkMessage(args.message ?? '<p>Hello <b>there</b></p>') },
          ),
        );
        if (mailArgs.fail) throw new Error('refused after the write');
        return name;
      });
    });
    after(async () => {
      await sink.stop();
      await t.close();
    });

    async function queue(body: Record<string, unknown>): Promise<string> {
      const res = await t.request({ method: 'POST', url: '/api/method/fw.test_mail.write', body });
      assert.equal(res.statusCode, 200, res.body);
      return res.json().message as string;
    }
    async function row(name: string): Promise<Record<string, any>> {
      const res = await t.request({ method: 'GET', url: `/api/resource/Email Queue/${name}` });
      assert.equal(res.statusCode, 200, res.body);
      return res.json().data;
    }
    async function call(method: string, body: Record<string, unknown>) {
      return t.request({ method: 'POST', url: `${QUEUE}.${method}`, body });
    }
    const messagesWith = (messageId: string) => sink.received.filter((m) => m.parsed.messageId === messageId);

    test('a queued mail is Not Sent until a worker runs; then Sent once, with its stored Message-ID, HTML and text parts', async () => {
      const before = sink.received.length;
      const name = await queue({
        subject: 'Welcome',
        recipients: 'ann@example.com',
        cc: ['cc@example.com'],
        bcc: 'hidden@example.com',
        message: '<p>Hello <a href="https://example.com/x">there</a></p>',
      });
      const queued = await row(name);
      assert.equal(queued.status, 'Not Sent');
      assert.equal(sink.received.length, before, 'nothing is sent inside the request');
      assert.match(queued.message_id, /^<[0-9a-f]{32}@localhost>$/);
      assert.equal(queued.reference_doctype, 'ToDo');
      assert.equal(queued.sender, 'Main <robot@example.com>');
      await worker.runDue();
      const sent = await row(name);
      assert.equal(sent.status, 'Sent');
      assert.deepEqual(
        sent.recipients.map((r: any) => [r.recipient, r.status]),
        [
          ['ann@example.com', 'Sent'],
          ['cc@example.com', 'Sent'],
          ['hidden@example.com', 'Sent'],
        ],
      );
      const [mail] = messagesWith(queued.message_id);
      assert.ok(mail, 'the listener got the message');
      assert.equal(messagesWith(queued.message_id).length, 1);
      assert.deepEqual([...mail.to].sort(), ['ann@example.com', 'cc@example.com', 'hidden@example.com']);
      assert.equal(mail.parsed.subject, 'Welcome');
      assert.match(mail.raw, /^Cc: cc@example\.com/m);
      assert.doesNotMatch(mail.raw, /hidden@example\.com/, 'Bcc is only in the envelope');
      assert.match(String(mail.parsed.html), /<a href="https:\/\/example.com\/x">there<\/a>/);
      assert.equal(mail.parsed.text?.trim(), 'Hello there (https://example.com/x)');
      assert.equal(mail.user, 'mailer');
    });

    test('a rolled-back write queues nothing and sends nothing', async () => {
      const before = sink.received.length;
      const res = await t.request({
        method: 'POST',
        url: '/api/method/fw.test_mail.write',
        body: { subject: 'Rolled back', recipients: 'ann@example.com', fail: 1 },
      });
      assert.equal(res.statusCode, 500);
      const list = await t.request({ method: 'GET', url: '/api/resource/Email Queue?filters=[["subject","=","Rolled back"]]' });
      assert.deepEqual(list.json().data, []);
      await t.site.jobs.enqueue(FLUSH_JOB);
      await worker.runDue();
      assert.equal(sink.received.length, before);
    });

    test('a recipient refused with 550 is marked Error and never retried; the others get the mail', async () => {
      sink.faults.refuse!.set('gone@example.com', 550);
      const name = await queue({ subject: 'Partly refused', recipients: ['ann@example.com', 'gone@example.com'] });
      await worker.runDue();
      const done = await row(name);
      assert.equal(done.status, 'Sent');
      assert.equal(done.retry, 0);
      const gone = done.recipients.find((r: any) => r.recipient === 'gone@example.com');
      assert.equal(gone.status, 'Error');
      assert.match(gone.error, /^550/);
      assert.match(done.error, /gone@example.com: 550/);
      assert.deepEqual(messagesWith(done.message_id)[0]!.to, ['ann@example.com']);
      const alone = await queue({ subject: 'All refused', recipients: 'gone@example.com' });
      await worker.runDue();
      const failed = await row(alone);
      assert.equal(failed.status, 'Error');
      assert.equal(failed.retry, 0);
      assert.match(failed.error, /550/);
      sink.faults.refuse!.delete('gone@example.com');
    });

    test('a connection cut mid-DATA is retried later; send_now then delivers the same message once', async () => {
      sink.faults.cutDataTimes = 1;
      const name = await queue({ subject: 'Cut', recipients: 'ann@example.com' });
      await worker.runDue();
      const waiting = await row(name);
      assert.equal(waiting.status, 'Not Sent');
      assert.equal(waiting.retry, 1);
      assert.ok(waiting.send_after, 'the retry waits');
      assert.match(waiting.error, /did not accept the message|Connection closed/);
      assert.equal(messagesWith(waiting.message_id).length, 0);
      const now = await call('send_now', { name });
      assert.equal(now.statusCode, 200, now.body);
      await worker.runDue();
      const sent = await row(name);
      assert.equal(sent.status, 'Sent');
      assert.equal(messagesWith(waiting.message_id).length, 1);
    });

    test('with the listener down the mail waits with the connect error; once it is up the mail goes', async () => {
      await sink.stop();
      const name = await queue({ subject: 'Down', recipients: 'ann@example.com' });
      await worker.runDue();
      const waiting = await row(name);
      assert.equal(waiting.status, 'Not Sent');
      assert.equal(waiting.retry, 1);
      assert.match(waiting.error, /Could not connect to the SMTP server/);
      await sink.start();
      assert.equal((await call('send_now', { name })).statusCode, 200);
      await worker.runDue();
      assert.equal((await row(name)).status, 'Sent');
    });

    test('temporary refusals retry up to email_retry_limit, then Error with the reply kept; retry_sending sends it again', async () => {
      const limit = await t.request({ method: 'PUT', url: '/api/resource/System Settings/System Settings', body: { email_retry_limit: 1 } });
      assert.equal(limit.statusCode, 200, limit.body);
      sink.faults.refuse!.set('busy@example.com', 450);
      const name = await queue({ subject: 'Busy', recipients: 'busy@example.com' });
      await worker.runDue();
      const first = await row(name);
      assert.equal(first.status, 'Not Sent');
      assert.equal(first.retry, 1);
      assert.match(first.error, /450/);
      await call('send_now', { name });
      await worker.runDue();
      const failed = await row(name);
      assert.equal(failed.status, 'Error');
      assert.match(failed.error, /450 Mailbox busy@example.com unavailable/);
      sink.faults.refuse!.delete('busy@example.com');
      const again = await call('retry_sending', { queues: JSON.stringify([name]) });
      assert.deepEqual(again.json().message, { retried: [name] });
      await worker.runDue();
      assert.equal((await row(name)).status, 'Sent');
      await t.request({ method: 'PUT', url: '/api/resource/System Settings/System Settings', body: { email_retry_limit: 3 } });
    });

    test('a mail stuck in Sending for more than 15 minutes is released by the flush and sent; a recent one is left alone', async () => {
      const stuck = await queue({ subject: 'Stuck', recipients: 'ann@example.com', send_after: '2099-01-01 00:00:00' });
      const recent = await queue({ subject: 'Recent', recipients: 'ann@example.com', send_after: '2099-01-01 00:00:00' });
      const table = t.site.metas.get('Email Queue').tableName;
      await t.site.db.transaction(async (q) => {
        const b = t.site.db.dialect.builder;
        await q.run(
          b.updateTable(table).set({ status: 'Sending', modified: '2020-01-01 00:00:00.000000', send_after: null }).where('name', '=', stuck).compile(),
        );
        await q.run(b.updateTable(table).set({ status: 'Sending', send_after: null }).where('name', '=', recent).compile());
      });
      await t.site.jobs.enqueue(FLUSH_JOB);
      await worker.runDue();
      assert.equal((await row(stuck)).status, 'Sent');
      assert.equal((await row(recent)).status, 'Sending');
    });

    test('send_after holds a mail through flushes until send_now', async () => {
      const name = await queue({ subject: 'Later', recipients: 'ann@example.com', send_after: '2099-01-01 00:00:00' });
      await t.site.jobs.enqueue(FLUSH_JOB);
      await worker.runDue();
      assert.equal((await row(name)).status, 'Not Sent');
      await call('send_now', { name });
      await worker.runDue();
      assert.equal((await row(name)).status, 'Sent');
    });

    test('toggle_sending suspends every send until it is resumed', async () => {
      const off = await call('toggle_sending', { enable: 0 });
      assert.deepEqual(off.json().message, { suspended: true });
      const before = sink.received.length;
      const name = await queue({ subject: 'Suspended', recipients: 'ann@example.com' });
      await worker.runDue();
      assert.equal((await row(name)).status, 'Not Sent');
      assert.equal(sink.received.length, before);
      assert.equal((await call('send_now', { name })).statusCode, 417, 'send_now says sending is suspended');
      await call('toggle_sending', { enable: 1 });
      await worker.runDue();
      assert.equal((await row(name)).status, 'Sent');
    });

    test('two workers racing over the same mails send each exactly once', async () => {
      const names = await Promise.all([1, 2, 3, 4, 5].map((i) => queue({ subject: `Race ${i}`, recipients: 'ann@example.com' })));
      const other = new JobWorker(t.site.jobs);
      await Promise.all([worker.runDue(), other.runDue(), t.site.jobs.enqueue(FLUSH_JOB).then(() => other.runDue())]);
      for (const name of names) {
        const done = await row(name);
        assert.equal(done.status, 'Sent');
        assert.equal(messagesWith(done.message_id).length, 1, name);
      }
    });

    test('refused requests queue nothing: header injection, a reserved header, a bad address, no recipient', async () => {
      for (const body of [
        { subject: 'Inject', recipients: 'ann@example.com', headers: { 'X-Tag': 'a\r\nBcc: evil@example.com' } },
        { subject: 'Inject', recipients: 'ann@example.com', headers: { Bcc: 'evil@example.com' } },
        { subject: 'Inject', recipients: 'ann@exa\r\nmple.com' },
        { subject: 'Inject', recipients: [] },
      ]) {
        const res = await t.request({ method: 'POST', url: '/api/method/fw.test_mail.write', body });
        assert.equal(res.statusCode, 417, res.body);
      }
      const list = await t.request({ method: 'GET', url: '/api/resource/Email Queue?filters=[["subject","=","Inject"]]' });
      assert.deepEqual(list.json().data, []);
    });

    test('Guest may not read the queue or call its methods', async () => {
      assert.equal((await t.request({ method: 'GET', url: '/api/resource/Email Queue', anonymous: true })).statusCode, 403);
      for (const [method, body] of [
        ['send_now', { name: 'x' }],
        ['retry_sending', { queues: '["x"]' }],
        ['toggle_sending', { enable: 0 }],
      ] as const) {
        const res = await t.request({ method: 'POST', url: `${QUEUE}.${method}`, body, anonymous: true });
        assert.equal(res.statusCode, 403, `${method}: ${res.body}`);
      }
    });
  });
}
