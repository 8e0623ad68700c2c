import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createAppApi } from '../../src/apps/app-api.js';
import { JobWorker } from '../../src/jobs/job-worker.js';
import { testDialects } from '../helpers/dialects.js';
import { fileOf, signUp, uploadFile, type SignedInUser } from '../helpers/file-api.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';
import { addSinkAccount } from '../helpers/mail-account.js';
import { SmtpSink } from '../helpers/smtp-sink.js';

const GET_TEMPLATE = '/api/method/fw.email.doctype.email_template.email_template.get_email_template';

/*
 * Mail for apps and templates (docs/mail.md "Sending from an app", "Templates", "Unsubscribing"):
 * `api.mail.send` through a real app API, Email Template rendered by the sandboxed Liquid engine
 * with Jinja-named filters, HTML with a generated text part, attachments the caller may read, and
 * bulk mail with List-Unsubscribe whose signed link records an Email Unsubscribe honoured later.
 */
for (const dialect of testDialects()) {
  describe(`mail templates and api.mail.send (${dialect.name})`, () => {
    let t: TestSite;
    let sink: SmtpSink;
    let worker: JobWorker;
    let clerk: SignedInUser;
    before(async () => {
      t = await startTestSite(dialect);
      sink = await new SmtpSink().start();
      worker = new JobWorker(t.site.jobs);
      await addSinkAccount(t, sink);
      // A real app API, as an app's register() receives it.
      const api = createAppApi('mailer', {
        hooks: t.site.hooks,
        methods: t.site.methods,
        documents: t.site.documents,
        jobs: t.site.jobs,
        realtime: t.site.realtime,
        mail: t.site.mail,
      });
      api.methods.register('mailer.send', async ({ ctx, args }) => api.mail.send(ctx, args as never));
      clerk = await signUp(t, 'clerk@example.com');
      const template = await t.request({
        method: 'POST',
        url: '/api/resource/Email Template',
        body: {
          name: 'Order Ready',
          subject: 'Order {{ doc.name }} for {{ doc.customer | default: "you" }}',
          use_html: 1,
          response_html:
            '<p>Dear {{ doc.customer }},</p><p>{{ doc.items | length }} items ship on {{ doc.date | format_date }}.</p>{% if doc.note %}<p>{{ doc.note }}</p>{% endif %}<p><a href="https://shop.example.com/o/{{ doc.name }}">Track it</a></p>',
        },
      });
      assert.equal(template.statusCode, 200, template.body);
    });
    after(async () => {
      await sink.stop();
      await t.close();
    });

    const order = { name: 'SO-1', customer: 'Ann <b>&</b> Co', items: [1, 2, 3], date: '2031-01-31', note: '<script>alert(1)</script>' };

    test('get_email_template renders subject as text and body as escaped HTML with the Jinja-named filters', async () => {
      const res = await t.request({ method: 'POST', url: GET_TEMPLATE, body: { template_name: 'Order Ready', doc: JSON.stringify(order) } });
      assert.equal(res.statusCode, 200, res.body);
      const { subject, message } = res.json().message;
      assert.equal(subject, 'Order SO-1 for Ann <b>&</b> Co');
      assert.match(message, /<p>Dear Ann &lt;b&gt;&amp;&lt;\/b&gt; Co,<\/p><p>3 items ship on 31-01-2031\.<\/p>/);
      assert.match(message, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
      assert.doesNotMatch(message, /<script>/);
      const fallback = await t.request({ method: 'GET', url: `${GET_TEMPLATE}?template_name=Order%20Ready&doc=${encodeURIComponent('{"name":"SO-2"}')}` });
      assert.equal(fallback.json().message.subject, 'Order SO-2 for you');
    });

    test('a template that does not parse, or uses an unknown filter, is refused on save', async () => {
      for (const body of [
        { name: 'Broken', subject: 'x {% if %}', response: 'y' },
        { name: 'Broken', subject: 'x', response: '{{ doc.name | shell }}' },
      ]) {
        const res = await t.request({ method: 'POST', url: '/api/resource/Email Template', body });
        assert.equal(res.statusCode, 417, res.body);
      }
      assert.equal((await t.request({ method: 'GET', url: '/api/resource/Email Template/Broken' })).statusCode, 404);
    });

    test('Guest and users without read permission on Email Template cannot render one', async () => {
      assert.equal((await t.request({ method: 'POST', url: GET_TEMPLATE, body: { template_name: 'Order Ready' }, anonymous: true })).statusCode, 403);
      assert.equal(
        (await t.request({ method: 'POST', url: GET_TEMPLATE, body: { template_name: 'Order Ready' }, anonymous: true, headers: clerk.headers })).statusCode,
        403,
      );
    });

    test('api.mail.send with a template queues the rendered mail; the listener gets HTML and a generated text part', async () => {
      const res = await t.request({
        method: 'POST',
        url: '/api/method/mailer.send',
        body: { recipients: ['ann@example.com'], template: 'Order Ready', args: { doc: order } },
      });
      assert.equal(res.statusCode, 200, res.body);
      const [name] = res.json().message as string[];
      await worker.runDue();
      const row = (await t.request({ method: 'GET', url: `/api/resource/Email Queue/${name}` })).json().data;
      assert.equal(row.status, 'Sent');
      const mail = sink.received.find((m) => m.parsed.messageId === row.message_id)!;
      assert.equal(mail.parsed.subject, 'Order SO-1 for Ann <b>&</b> Co');
      assert.match(String(mail.parsed.html), /3 items ship on 31-01-2031/);
      assert.match(String(mail.parsed.text), /Dear Ann <b>&<\/b> Co,\n\n3 items ship on 31-01-2031\./);
      assert.match(String(mail.parsed.text), /Track it \(https:\/\/shop\.example\.com\/o\/SO-1\)/);
    });

    test("attachments are File documents the caller may read; another user's private file is refused and nothing is queued", async () => {
      const file = fileOf(await uploadFile(t, 'invoice.txt', 'INVOICE 42', { is_private: '1' }));
      const res = await t.request({
        method: 'POST',
        url: '/api/method/mailer.send',
        body: { recipients: 'ann@example.com', subject: 'Invoice', message: 'Attached.', attachments: [file.name] },
      });
      assert.equal(res.statusCode, 200, res.body);
      await worker.runDue();
      const mail = sink.received.find((m) => m.parsed.subject === 'Invoice')!;
      assert.equal(mail.parsed.attachments.length, 1);
      assert.equal(mail.parsed.attachments[0]!.filename, 'invoice.txt');
      assert.equal(mail.parsed.attachments[0]!.content.toString(), 'INVOICE 42');
      const stolen = await t.request({
        method: 'POST',
        url: '/api/method/mailer.send',
        anonymous: true,
        headers: clerk.headers,
        body: { recipients: 'clerk@example.com', subject: 'Stolen', message: 'x', attachments: [file.name] },
      });
      assert.equal(stolen.statusCode, 403, stolen.body);
      const list = await t.request({ method: 'GET', url: '/api/resource/Email Queue?filters=[["subject","=","Stolen"]]' });
      assert.deepEqual(list.json().data, []);
    });

    test('bulk mail: one mail per recipient with List-Unsubscribe; the signed link records an Email Unsubscribe that later bulk mail honours', async () => {
      const first = await t.request({
        method: 'POST',
        url: '/api/method/mailer.send',
        body: { recipients: ['a@example.com', 'b@example.com'], subject: 'News 1', message: '<p>News</p>', add_unsubscribe_link: 1 },
      });
      assert.equal(first.statusCode, 200, first.body);
      assert.equal(first.json().message.length, 2);
      await worker.runDue();
      const toA = sink.received.find((m) => m.parsed.subject === 'News 1' && m.to.includes('a@example.com'))!;
      assert.deepEqual(toA.to, ['a@example.com']);
      const unfolded = toA.raw.split('\r\n\r\n')[0]!.replace(/\r\n[ \t]+/g, ' ');
      const url = new URL(/^List-Unsubscribe: <([^>]+)>$/m.exec(unfolded)![1]!);
      assert.equal(url.searchParams.get('email'), 'a@example.com');
      assert.match(unfolded, /^List-Unsubscribe-Post: List-Unsubscribe=One-Click$/m);
      const forged = new URL(url);
      forged.searchParams.set('email', 'b@example.com');
      const refused = await t.request({ method: 'GET', url: `${forged.pathname}${forged.search}`, anonymous: true });
      assert.equal(refused.statusCode, 403, refused.body);
      const done = await t.request({ method: 'GET', url: `${url.pathname}${url.search}`, anonymous: true });
      assert.equal(done.statusCode, 200, done.body);
      const records = await t.request({ method: 'GET', url: '/api/resource/Email Unsubscribe?fields=["email","global_unsubscribe"]' });
      assert.deepEqual(records.json().data, [{ email: 'a@example.com', global_unsubscribe: 1 }]);
      const second = await t.request({
        method: 'POST',
        url: '/api/method/mailer.send',
        body: { recipients: ['a@example.com', 'b@example.com'], subject: 'News 2', message: '<p>More</p>', add_unsubscribe_link: 1 },
      });
      assert.equal(second.json().message.length, 1);
      await worker.runDue();
      assert.deepEqual(
        sink.received.filter((m) => m.parsed.subject === 'News 2').map((m) => m.to),
        [['b@example.com']],
      );
      const direct = await t.request({
        method: 'POST',
        url: '/api/method/mailer.send',
        body: { recipients: 'a@example.com', subject: 'Receipt', message: 'x' },
      });
      assert.equal(direct.json().message.length, 1, 'a transactional mail still goes');
    });
  });
}
