import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { testDialects } from '../helpers/dialects.js';
import { assertV1Error } from '../helpers/error-envelope.js';
import { signUp, type SignedInUser } from '../helpers/file-api.js';
import { reopenWithConfig, type ReopenedSite } from '../helpers/reopen-with-config.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';

const TOKEN = 'scrape-Secret-0123456789';

/** The value of the sample `name{labels}` in Prometheus text, or undefined when it is absent. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const body = line.slice(name.length + 1, line.lastIndexOf('}'));
    if (Object.entries(labels).every(([k, v]) => body.includes(`${k}="${v}"`))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

/** Asserts a Prometheus text answer and returns its text. */
function metricsText(res: LightMyRequestResponse): string {
  assert.equal(res.statusCode, 200, res.body);
  assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/);
  return res.body;
}

for (const dialect of testDialects()) {
  describe(`metrics (${dialect.name})`, () => {
    let t: TestSite;
    let other: TestSite;
    let clerk: SignedInUser;
    let manager: SignedInUser;
    let scraped: ReopenedSite;
    before(async () => {
      t = await startTestSite(dialect);
      other = await startTestSite(dialect);
      clerk = await signUp(t, 'metrics-clerk@example.com');
      manager = await signUp(t, 'metrics-manager@example.com', ['System Manager']);
      scraped = await reopenWithConfig(t, { metrics_token: TOKEN });
    });
    after(async () => {
      await scraped.close();
      await other.close();
      await t.close();
    });

    test('requests are counted by route pattern and status, with their durations', async () => {
      await t.request({ method: 'POST', url: '/api/resource/ToDo', body: { description: 'counted' } });
      const before = metricsText(await t.request({ method: 'GET', url: '/metrics' }));
      const route = '/api/resource/:doctype/:name';
      const was = sample(before, 'fw_http_requests_total', { method: 'GET', route, status: '404' }) ?? 0;
      await t.request({ method: 'GET', url: '/api/resource/ToDo/no-such-todo-1' });
      await t.request({ method: 'GET', url: '/api/resource/ToDo/no-such-todo-2' });
      await t.request({ method: 'GET', url: '/no/such/route/here' });
      const text = metricsText(await t.request({ method: 'GET', url: '/metrics' }));
      assert.equal(sample(text, 'fw_http_requests_total', { method: 'GET', route, status: '404' }), was + 2);
      assert.ok((sample(text, 'fw_http_requests_total', { method: 'POST', route: '/api/resource/:doctype', status: '200' }) ?? 0) >= 1);
      assert.ok((sample(text, 'fw_http_requests_total', { route: 'unmatched', status: '404' }) ?? 0) >= 1);
      // Names from URLs never become labels.
      assert.ok(!text.includes('no-such-todo'), 'document names stay out of the labels');
      assert.ok(!text.includes('/no/such/route'), 'unknown URLs stay out of the labels');
      assert.ok((sample(text, 'fw_http_request_duration_seconds_count', { method: 'GET', route }) ?? 0) >= 2);
      assert.match(text, /fw_http_request_duration_seconds_bucket\{le="0\.005",.*route="\/api\/resource\/:doctype\/:name"/);
    });

    test('a call of a registered method is counted under its path, an unknown one under the pattern', async () => {
      await t.request({ method: 'GET', url: '/api/method/frappe.client.get_count?doctype=ToDo' });
      await t.request({ method: 'GET', url: '/api/method/fw.minted.label_attempt' });
      const text = metricsText(await t.request({ method: 'GET', url: '/metrics' }));
      assert.ok((sample(text, 'fw_http_requests_total', { method: 'GET', route: '/api/method/fw.client.get_count', status: '200' }) ?? 0) >= 1, text);
      assert.ok((sample(text, 'fw_http_requests_total', { method: 'GET', route: '/api/method/*', status: '404' }) ?? 0) >= 1);
      assert.ok(!text.includes('minted'), 'an unknown method name is no label');
    });

    test('the database pool, the job queue, the event loop and the process are reported', async () => {
      const handler = `fw.test_metrics.job_${dialect.name}`;
      t.site.jobs.register(handler, () => undefined);
      const before = metricsText(await t.request({ method: 'GET', url: '/metrics' }));
      const queued = sample(before, 'fw_jobs', { status: 'queued' }) ?? 0;
      await t.site.jobs.enqueue(handler, {}, { delay: 3_600_000 });
      const text = metricsText(await t.request({ method: 'GET', url: '/metrics' }));
      assert.equal(sample(text, 'fw_jobs', { status: 'queued' }), queued + 1);
      assert.equal(sample(text, 'fw_jobs', { status: 'failed' }), 0);
      assert.ok(sample(text, 'fw_jobs', { status: 'running' }) !== undefined);
      const inUse = sample(text, 'fw_db_pool_connections', { state: 'in_use' });
      const idle = sample(text, 'fw_db_pool_connections', { state: 'idle' });
      assert.ok(inUse !== undefined && inUse >= 0, text.slice(0, 400));
      assert.ok(idle !== undefined && idle >= 0);
      assert.match(text, /^fw_db_pool_waiting\{worker="0"\} 0$/m);
      assert.match(text, /^nodejs_eventloop_lag_seconds\{worker="0"\} [\d.e-]+$/m);
      assert.match(text, /^process_cpu_user_seconds_total\{worker="0"\} [\d.e-]+$/m);
      assert.match(text, /^process_resident_memory_bytes\{worker="0"\} \d+$/m);
    });

    test('also at /api/method/fw.metrics and frappe.metrics, by session or token of a System Manager', async () => {
      metricsText(await t.request({ method: 'GET', url: '/api/method/fw.metrics' }));
      metricsText(await t.request({ method: 'GET', url: '/api/method/frappe.metrics' }));
      metricsText(await t.app.inject({ method: 'GET', url: '/metrics', headers: manager.headers }));
      metricsText(await t.app.inject({ method: 'GET', url: '/api/method/frappe.metrics', headers: manager.headers }));
    });

    test('Guest and users without System Manager are refused; credentials naming nobody are 401', async () => {
      for (const url of ['/metrics', '/api/method/fw.metrics', '/api/method/frappe.metrics']) {
        assertV1Error(await t.request({ method: 'GET', url, anonymous: true }), 403, 'PermissionError');
        assertV1Error(await t.app.inject({ method: 'GET', url, headers: clerk.headers }), 403, 'PermissionError');
        assertV1Error(await t.request({ method: 'GET', url, headers: { authorization: `Bearer ${TOKEN}` } }), 401, 'AuthenticationError');
      }
    });

    test('metrics_token lets a scraper in with a Bearer header, and only the exact token', async () => {
      const text = metricsText(await scraped.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } }));
      assert.match(text, /fw_http_requests_total/);
      metricsText(await scraped.app.inject({ method: 'GET', url: '/api/method/fw.metrics', headers: { authorization: `bearer ${TOKEN}` } }));
      assertV1Error(await scraped.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}x` } }), 401, 'AuthenticationError');
      assertV1Error(
        await scraped.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN.slice(0, -1)}` } }),
        401,
        'AuthenticationError',
      );
      assertV1Error(await scraped.app.inject({ method: 'GET', url: '/metrics' }), 403, 'PermissionError');
    });

    test('each site keeps its own registry: numbers of one never show in another', async () => {
      const url = '/api/resource/ToDo?limit=1&fw_metrics_probe=1';
      await t.request({ method: 'GET', url });
      const mine = metricsText(await t.request({ method: 'GET', url: '/metrics' }));
      const theirs = metricsText(await other.request({ method: 'GET', url: '/metrics' }));
      const labels = { method: 'GET', route: '/api/resource/:doctype', status: '200' };
      assert.ok((sample(mine, 'fw_http_requests_total', labels) ?? 0) >= 1);
      assert.equal(sample(theirs, 'fw_http_requests_total', labels), undefined);
    });

    test('a metrics_token too short to be a secret is refused when the site opens', async () => {
      await assert.rejects(reopenWithConfig(t, { metrics_token: 'short' }), /metrics_token/);
    });
  });
}
