import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { JobWorker } from '../../src/jobs/job-worker.js';
import { WEBHOOK_METHODS } from '../../src/webhooks/webhook-methods.js';
import { testDialects } from '../helpers/dialects.js';
import { assertV1Error } from '../helpers/error-envelope.js';
import { createUser } from '../helpers/permission-users.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

const SECRET = 'shh-its-a-secret';

for (const dialect of testDialects()) {
  describe(`webhooks (${dialect.name})`, () => {
    let t: TestSite;
    let receiver: WebhookReceiver;
    let worker: JobWorker;
    before(async () => {
      t = await startTestSite(dialect, { config: { webhook_allowed_targets: ['127.0.0.1'] } });
      receiver = await new WebhookReceiver().start();
      worker = new JobWorker(t.site.jobs);
      t.site.methods.register('fw.test_webhooks.write', async ({ ctx, args }) => {
        const doc = await t.site.documents.insert(ctx, 'ToDo', { description: String(args.description) });
        if (args.second) await t.site.documents.update(ctx, 'ToDo', String(doc.name), { description: String(args.second) });
        if (args.fail) throw new Error('refused after the write');
        return doc.name;
      });
    });
    after(async () => {
      await receiver.stop();
      await t.close();
    });

    /** Creates a webhook through the API; answers its name. */
    async function webhook(fields: Record<string, unknown>): Promise<string> {
      const res = await t.request({
        method: 'POST',
        url: '/api/resource/Webhook',
        body: { webhook_doctype: 'ToDo', webhook_docevent: 'after_insert', request_url: receiver.url(), ...fields },
      });
      assert.equal(res.statusCode, 200, res.body);
      return res.json().data.name;
    }
    async function disable(name: string) {
      const res = await t.request({ method: 'PUT', url: `/api/resource/Webhook/${name}`, body: { enabled: 0 } });
      assert.equal(res.statusCode, 200, res.body);
    }
    async function insertToDo(description: string, extra: Record<string, unknown> = {}) {
      const res = await t.request({ method: 'POST', url: '/api/resource/ToDo', body: { description, ...extra } });
      assert.equal(res.statusCode, 200, res.body);
      return res.json().data.name as string;
    }
    async function logsFor(webhookName: string) {
      const res = await t.request({
        method: 'GET',
        url: `/api/resource/Webhook Request Log?fields=["*"]&filters=${encodeURIComponent(JSON.stringify([['webhook', '=', webhookName]]))}&order_by=creation asc`,
      });
      assert.equal(res.statusCode, 200, res.body);
      return res.json().data as Record<string, any>[];
    }
    function since(count: number) {
      return receiver.received.slice(count);
    }

    test('a matching insert is delivered after commit with the JSON body, the reference signature and Standard Webhooks headers', async () => {
      const name = await webhook({
        condition: 'doc.status == "Open" and doc.priority in ["High", "Urgent"]',
        enable_security: 1,
        webhook_secret: SECRET,
        webhook_json: '{"id": "{{ doc.name }}", "text": "{{ doc.description }}"}',
        webhook_headers: [{ key: 'X-Custom', value: 'yes' }],
      });
      const before = receiver.received.length;
      const todo = await insertToDo('Quote " and \\ inside {{ doc.name }}', { priority: 'High' });
      assert.equal(since(before).length, 0, 'nothing is sent inside the request');
      await worker.runDue();
      const [req] = since(before);
      assert.ok(req, 'one request arrived');
      assert.equal(req.method, 'POST');
      assert.equal(req.headers['content-type'], 'application/json');
      assert.equal(req.headers['x-custom'], 'yes');
      assert.deepEqual(JSON.parse(req.body), { id: todo, text: 'Quote " and \\ inside {{ doc.name }}' });
      assert.equal(req.headers['x-frappe-webhook-signature'], createHmac('sha256', SECRET).update(req.body).digest('base64'));
      const id = String(req.headers['webhook-id']);
      const ts = String(req.headers['webhook-timestamp']);
      assert.match(id, /^msg_/);
      assert.ok(Math.abs(Number(ts) - Date.now() / 1000) < 600, 'the timestamp is now, in seconds');
      assert.equal(req.headers['webhook-signature'], `v1,${createHmac('sha256', SECRET).update(`${id}.${ts}.${req.body}`).digest('base64')}`);
      const [log] = await logsFor(name);
      assert.equal(log.status, 'Delivered');
      assert.equal(log.attempt, 1);
      assert.equal(log.response_status, 200);
      assert.equal(log.reference_document, todo);
      assert.equal(log.webhook_id, id);
      const stored = await t.request({ method: 'GET', url: `/api/resource/Webhook/${name}` });
      assert.notEqual(stored.json().data.webhook_secret, SECRET, 'the secret is never read back');
      await disable(name);
    });

    test('a condition that is false sends nothing and logs nothing', async () => {
      const name = await webhook({ condition: 'doc.priority == "Urgent"' });
      const before = receiver.received.length;
      await insertToDo('not urgent', { priority: 'Low' });
      await worker.runDue();
      assert.equal(since(before).length, 0);
      assert.deepEqual(await logsFor(name), []);
      await disable(name);
    });

    test('a rolled-back write sends nothing; two saves in one request send one delivery with the last state', async () => {
      const name = await webhook({ webhook_docevent: 'on_update', webhook_json: '{"text": "{{ doc.description }}"}' });
      const before = receiver.received.length;
      const failed = await t.request({ method: 'POST', url: '/api/method/fw.test_webhooks.write', body: { description: 'first', fail: 1 } });
      assert.equal(failed.statusCode, 500);
      await worker.runDue();
      assert.equal(since(before).length, 0, 'nothing for the rolled-back write');
      assert.deepEqual(await logsFor(name), []);

      const ok = await t.request({ method: 'POST', url: '/api/method/fw.test_webhooks.write', body: { description: 'first', second: 'second' } });
      assert.equal(ok.statusCode, 200, ok.body);
      await worker.runDue();
      assert.deepEqual(
        since(before).map((r) => JSON.parse(r.body)),
        [{ text: 'second' }],
      );
      assert.equal((await logsFor(name)).length, 1);
      await disable(name);
    });

    test('a receiver that is down makes the delivery Failed with a next retry; once up, the retry delivers the stored payload', async () => {
      const down = await new WebhookReceiver().start();
      const port = down.port;
      await down.stop();
      const name = await webhook({ request_url: `http://127.0.0.1:${port}/hook`, webhook_json: '{"text": "{{ doc.description }}"}' });
      await insertToDo('while down');
      await worker.runDue();
      let [log] = await logsFor(name);
      assert.equal(log.status, 'Failed');
      assert.equal(log.attempt, 1);
      assert.match(log.error, /ECONNREFUSED/);
      assert.ok(log.next_retry, 'a next retry is set');
      assert.equal(await worker.runDue(), 0, 'the retry waits for its time');

      const up = await new WebhookReceiver().start(port);
      try {
        const later = new JobWorker(t.site.jobs, { clock: { now: () => Date.now() + 60_000 } });
        await later.runDue();
        [log] = await logsFor(name);
        assert.equal(log.status, 'Delivered');
        assert.equal(log.attempt, 2);
        assert.deepEqual(
          up.received.map((r) => JSON.parse(r.body)),
          [{ text: 'while down' }],
        );
      } finally {
        await up.stop();
      }
      await disable(name);
    });

    test('429 with Retry-After waits as told; a 4xx is final (Exhausted) without retries', async () => {
      const name = await webhook({});
      receiver.answers.push({ status: 429, headers: { 'Retry-After': '120' } });
      const started = Date.now();
      await insertToDo('rate limited');
      await worker.runDue();
      let [log] = await logsFor(name);
      assert.equal(log.status, 'Failed');
      assert.equal(log.response_status, 429);
      const due = await t.site.db.read((q) =>
        q.all<{ run_at: number }>({
          sql: `select run_at from "__fw_job" where job_id = ?`.replace('?', t.site.db.dialect.name === 'postgres' ? '$1' : '?'),
          parameters: [`webhook:${log.name}:2`],
        }),
      );
      assert.ok(Number(due[0].run_at) >= started + 119_000, 'the retry is due after Retry-After');

      const name2 = await webhook({});
      await disable(name);
      receiver.answers.push({ status: 404, headers: { 'X-Reason': 'unknown hook' }, body: 'no such hook' });
      await insertToDo('not found');
      await worker.runDue();
      [log] = await logsFor(name2);
      assert.equal(log.status, 'Exhausted');
      assert.equal(log.response_status, 404);
      assert.equal(log.response, '', 'an internal receiver (allowed in webhook_allowed_targets) leaves no body on the log');
      assert.equal(JSON.parse(log.response_headers)['x-reason'], 'unknown hook', 'its status and headers are kept');
      await disable(name2);
    });

    test('retry now re-sends an Exhausted delivery with the same webhook-id; replay sends a new one; both System Manager only', async () => {
      const name = await webhook({ max_retries: 0 });
      receiver.answers.push({ status: 500 });
      await insertToDo('to retry');
      await worker.runDue();
      const [log] = await logsFor(name);
      assert.equal(log.status, 'Exhausted', 'no retries configured');
      const clerk = await createUser(t, 'clerk@webhooks.test');
      for (const method of ['retry_now', 'replay']) {
        const refused = await t.request({
          method: 'POST',
          url: `/api/method/${WEBHOOK_METHODS}.${method}`,
          body: { name: log.name },
          headers: { authorization: clerk.auth },
        });
        assertV1Error(refused, 403, 'PermissionError');
      }
      const before = receiver.received.length;
      const retried = await t.request({ method: 'POST', url: `/api/method/${WEBHOOK_METHODS}.retry_now`, body: { name: log.name } });
      assert.equal(retried.statusCode, 200, retried.body);
      await worker.runDue();
      const replayed = await t.request({ method: 'POST', url: `/api/method/${WEBHOOK_METHODS}.replay`, body: { name: log.name } });
      assert.equal(replayed.statusCode, 200, replayed.body);
      await worker.runDue();
      const [again, copy] = since(before);
      assert.equal(again.headers['webhook-id'], log.webhook_id);
      assert.notEqual(copy.headers['webhook-id'], log.webhook_id);
      assert.equal(copy.body, again.body);
      const logs = await logsFor(name);
      assert.deepEqual(
        logs.map((l) => l.status),
        ['Delivered', 'Delivered'],
      );
      assertV1Error(await t.request({ method: 'POST', url: `/api/method/${WEBHOOK_METHODS}.retry_now`, body: { name: log.name } }), 417, 'ValidationError');
      assertV1Error(await t.request({ method: 'POST', url: `/api/method/${WEBHOOK_METHODS}.replay`, body: { name: 'nope' } }), 404, 'DoesNotExistError');
      await disable(name);
    });

    test('Form URL-Encoded with a field table sends a real form; the default body names the event and carries the document', async () => {
      const form = await webhook({
        request_structure: 'Form URL-Encoded',
        webhook_data: [
          { fieldname: 'description', key: 'text' },
          { fieldname: 'name', key: 'id' },
        ],
      });
      const before = receiver.received.length;
      const todo = await insertToDo('a & b = c');
      await worker.runDue();
      await disable(form);
      const plain = await webhook({});
      const todo2 = await insertToDo('plain');
      await worker.runDue();
      await disable(plain);
      const [f, p] = since(before);
      assert.equal(f.headers['content-type'], 'application/x-www-form-urlencoded');
      assert.deepEqual(Object.fromEntries(new URLSearchParams(f.body)), { text: 'a & b = c', id: todo });
      const body = JSON.parse(p.body);
      assert.equal(body.event, 'after_insert');
      assert.equal(body.doctype, 'ToDo');
      assert.equal(body.name, todo2);
      assert.equal(body.doc.description, 'plain');
    });

    test('insert_many and bulk_update fire the same events as single writes', async () => {
      const inserted = await webhook({ webhook_json: '{"text": "{{ doc.description }}"}' });
      const updated = await webhook({ webhook_docevent: 'on_change', webhook_json: '{"text": "{{ doc.description }}"}' });
      const before = receiver.received.length;
      const many = await t.request({
        method: 'POST',
        url: '/api/method/fw.client.insert_many',
        body: {
          docs: [
            { doctype: 'ToDo', description: 'bulk 1' },
            { doctype: 'ToDo', description: 'bulk 2' },
          ],
        },
      });
      assert.equal(many.statusCode, 200, many.body);
      const [n1, n2] = many.json().message as string[];
      const bulk = await t.request({
        method: 'POST',
        url: '/api/method/fw.client.bulk_update',
        body: {
          docs: [
            { doctype: 'ToDo', docname: n1, description: 'bulk 1 changed' },
            { doctype: 'ToDo', docname: n2, description: 'bulk 2 changed' },
          ],
        },
      });
      assert.equal(bulk.statusCode, 200, bulk.body);
      await worker.runDue();
      const texts = since(before)
        .map((r) => JSON.parse(r.body).text)
        .sort();
      assert.deepEqual(texts, ['bulk 1', 'bulk 1 changed', 'bulk 2', 'bulk 2 changed']);
      await disable(inserted);
      await disable(updated);
    });

    test('a Webhook that cannot work is refused with 417 and the reason', async () => {
      const bad: [Record<string, unknown>, RegExp][] = [
        [{ condition: '__import__("os")' }, /Invalid condition: Unknown name "__import__"/],
        [{ webhook_docevent: 'on_submit' }, /must be Submittable/],
        [{ request_url: 'ftp://example.com/x' }, /http or https URL/],
        [{ timeout: 60 }, /Request Timeout must be 1 to 30/],
        [{ max_retries: 11 }, /Max Retries must be 0 to 10/],
        [{ webhook_json: '{{ doc.name | nope }}' }, /template/],
        [{ enable_security: 1 }, /needs a Webhook Secret/],
        [
          {
            webhook_data: [
              { fieldname: 'description', key: 'a' },
              { fieldname: 'description', key: 'b' },
            ],
          },
          /more than once/,
        ],
        [{ webhook_data: [{ fieldname: 'no_such_field', key: 'a' }] }, /no field no_such_field/],
        [{ webhook_doctype: 'Webhook Request Log' }, /cannot be set on/],
      ];
      for (const [fields, message] of bad) {
        const res = await t.request({
          method: 'POST',
          url: '/api/resource/Webhook',
          body: { webhook_doctype: 'ToDo', webhook_docevent: 'after_insert', request_url: receiver.url(), ...fields },
        });
        assert.equal(res.statusCode, 417, `${JSON.stringify(fields)}: ${res.body}`);
        assert.match(res.json().exception, message);
      }
    });

    test('Webhooks and their logs are for System Managers only', async () => {
      const clerk = await createUser(t, 'clerk2@webhooks.test');
      for (const url of ['/api/resource/Webhook', '/api/resource/Webhook Request Log']) {
        assertV1Error(await t.request({ method: 'GET', url, headers: { authorization: clerk.auth } }), 403, 'PermissionError');
      }
      const res = await t.request({
        method: 'POST',
        url: '/api/resource/Webhook',
        headers: { authorization: clerk.auth },
        body: { webhook_doctype: 'ToDo', webhook_docevent: 'after_insert', request_url: receiver.url() },
      });
      assertV1Error(res, 403, 'PermissionError');
    });
  });
}
