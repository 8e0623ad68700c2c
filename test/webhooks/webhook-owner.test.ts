import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { JobWorker } from '../../src/jobs/job-worker.js';
import { dataOf } from '../helpers/document-api.js';
import { testDialects } from '../helpers/dialects.js';
import { assertV1Error } from '../helpers/error-envelope.js';
import { actAs, createUser, type ActingUser } from '../helpers/permission-users.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';
import { WebhookReceiver, type Received } from '../helpers/webhook-receiver.js';

const NOTE = 'Payroll Note';

/*
 * Webhooks respect their owner (docs/webhooks.md "Whose eyes"): a delivery carries only documents
 * and fields the webhook's owner may read at delivery; a signed webhook's secret does not follow a
 * new URL.
 */
for (const dialect of testDialects()) {
  describe(`webhooks respect their owner (${dialect.name})`, () => {
    let t: TestSite;
    let receiver: WebhookReceiver;
    let manager: ActingUser;
    before(async () => {
      receiver = await new WebhookReceiver().start();
      t = await startTestSite(dialect, { config: { webhook_allowed_targets: [`127.0.0.1:${receiver.port}`] } });
      dataOf(
        await t.request({
          method: 'POST',
          url: '/api/resource/DocType',
          body: {
            name: NOTE,
            fields: [
              { fieldname: 'title', fieldtype: 'Data' },
              { fieldname: 'salary', fieldtype: 'Data', permlevel: 1 },
            ],
            // A System Manager reads and writes the notes they own, and never the salary.
            permissions: [{ role: 'System Manager', read: 1, write: 1, create: 1, delete: 1, if_owner: 1 }],
          },
        }),
      );
      manager = await createUser(t, 'manager@owner.test', { roles: ['System Manager'] });
    });
    after(async () => {
      await t?.close();
      await receiver?.stop();
    });

    async function webhook(by: ActingUser | undefined, path: string, fields: Record<string, unknown> = {}): Promise<string> {
      const res = await actAs(t, by, {
        method: 'POST',
        url: '/api/resource/Webhook',
        body: { webhook_doctype: NOTE, webhook_docevent: 'on_change', request_url: receiver.url(path), ...fields },
        ...(by ? {} : { headers: { authorization: t.adminAuth } }),
      });
      assert.equal(res.statusCode, 200, res.body);
      return String(res.json().data.name);
    }
    async function logsOf(hook: string, docname: string) {
      const filters = encodeURIComponent(
        JSON.stringify([
          ['webhook', '=', hook],
          ['reference_document', '=', docname],
        ]),
      );
      const res = await t.request({ method: 'GET', url: `/api/resource/Webhook Request Log?fields=["*"]&filters=${filters}` });
      assert.equal(res.statusCode, 200, res.body);
      return res.json().data as Record<string, any>[];
    }
    function arrived(path: string, since: number): Received[] {
      return receiver.received.slice(since).filter((r) => r.url === path);
    }
    async function disable(name: string) {
      assert.equal((await t.request({ method: 'PUT', url: `/api/resource/Webhook/${encodeURIComponent(name)}`, body: { enabled: 0 } })).statusCode, 200);
    }

    test('a webhook delivers only documents its owner may read, without the fields above their level; a condition on a hidden field does not leak it; no log names what the owner may not see', async () => {
      const plain = await webhook(manager, '/manager');
      const peeking = await webhook(manager, '/peeking', { condition: 'doc.salary == "9000"' });
      const admins = await webhook(undefined, '/admin');
      const since = receiver.received.length;

      // The manager's own note: readable by its owner, but the salary is not.
      const mine = String(dataOf(await actAs(t, manager, { method: 'POST', url: `/api/resource/${NOTE}`, body: { title: 'mine' } })).name);
      // The Administrator's note: the manager may not read it at all.
      const theirs = String(dataOf(await t.request({ method: 'POST', url: `/api/resource/${NOTE}`, body: { title: 'theirs', salary: '9000' } })).name);
      for (const name of [mine, theirs]) {
        dataOf(await t.request({ method: 'PUT', url: `/api/resource/${NOTE}/${name}`, body: { salary: '9000' } }));
      }
      await new JobWorker(t.site.jobs).runDue();

      const toManager = arrived('/manager', since).map((r) => JSON.parse(r.body));
      assert.equal(toManager.length, 1, 'only the note the owner may read was delivered');
      assert.equal(toManager[0].name, mine);
      assert.equal(toManager[0].doc.title, 'mine');
      assert.equal('salary' in toManager[0].doc, false, 'the field above the owner level is left out');
      assert.deepEqual(await logsOf(plain, theirs), [], 'no log names the note its owner may not read');

      assert.deepEqual(arrived('/peeking', since), [], 'the condition on the hidden salary never held for its owner');
      assert.deepEqual(await logsOf(peeking, mine), [], 'and no log tells that it held on the whole note');

      const toAdmin = arrived('/admin', since).map((r) => JSON.parse(r.body));
      assert.deepEqual(
        toAdmin.map((b) => [b.name, b.doc.salary]).sort(),
        [
          [mine, '9000'],
          [theirs, '9000'],
        ].sort(),
        "the Administrator's webhook sees everything",
      );

      assert.equal((await logsOf(plain, mine))[0]?.status, 'Delivered');
      for (const name of [plain, peeking, admins]) await disable(name);
    });

    test('changing the URL of a signed webhook needs its secret entered again; without it nothing changes and deliveries stay where they were', async () => {
      const signed = await webhook(manager, '/signed-a', { webhook_docevent: 'after_insert', enable_security: 1, webhook_secret: 'first-secret' });
      const moved = await actAs(t, manager, {
        method: 'PUT',
        url: `/api/resource/Webhook/${encodeURIComponent(signed)}`,
        body: { request_url: receiver.url('/signed-b') },
      });
      assertV1Error(moved, 417, 'ValidationError');
      assert.match(moved.json().exception, /needs its Webhook Secret entered again/);
      const stored = dataOf(await t.request({ method: 'GET', url: `/api/resource/Webhook/${encodeURIComponent(signed)}` }));
      assert.equal(stored.request_url, receiver.url('/signed-a'));

      let since = receiver.received.length;
      dataOf(await actAs(t, manager, { method: 'POST', url: `/api/resource/${NOTE}`, body: { title: 'signed once' } }));
      await new JobWorker(t.site.jobs).runDue();
      assert.deepEqual(arrived('/signed-b', since), []);
      const [first] = arrived('/signed-a', since);
      assert.ok(first);
      assert.equal(first.headers['x-frappe-webhook-signature'], createHmac('sha256', 'first-secret').update(first.body).digest('base64'));

      const reentered = await actAs(t, manager, {
        method: 'PUT',
        url: `/api/resource/Webhook/${encodeURIComponent(signed)}`,
        body: { request_url: receiver.url('/signed-b'), webhook_secret: 'second-secret' },
      });
      assert.equal(reentered.statusCode, 200, reentered.body);
      since = receiver.received.length;
      dataOf(await actAs(t, manager, { method: 'POST', url: `/api/resource/${NOTE}`, body: { title: 'signed twice' } }));
      await new JobWorker(t.site.jobs).runDue();
      const [second] = arrived('/signed-b', since);
      assert.ok(second);
      const id = String(second.headers['webhook-id']);
      const ts = String(second.headers['webhook-timestamp']);
      assert.equal(second.headers['webhook-signature'], `v1,${createHmac('sha256', 'second-secret').update(`${id}.${ts}.${second.body}`).digest('base64')}`);

      // An unsigned webhook forgets its stored secret when the URL changes: signing again needs a new one.
      const off = await actAs(t, manager, { method: 'PUT', url: `/api/resource/Webhook/${encodeURIComponent(signed)}`, body: { enable_security: 0 } });
      assert.equal(off.statusCode, 200, off.body);
      const elsewhere = await actAs(t, manager, {
        method: 'PUT',
        url: `/api/resource/Webhook/${encodeURIComponent(signed)}`,
        body: { request_url: receiver.url('/signed-c') },
      });
      assert.equal(elsewhere.statusCode, 200, elsewhere.body);
      const on = await actAs(t, manager, { method: 'PUT', url: `/api/resource/Webhook/${encodeURIComponent(signed)}`, body: { enable_security: 1 } });
      assertV1Error(on, 417, 'ValidationError');
      await disable(signed);
    });
  });
}
