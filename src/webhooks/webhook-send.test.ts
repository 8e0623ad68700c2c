import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseAllowedTargets } from './allowed-targets.js';
import { DENY_INTERNAL } from './target-guard.js';
import { isPrivateAddress, MAX_RESPONSE_BYTES, sendWebhookRequest } from './webhook-send.js';
import { judge, nextRetryDelay, retryAfter, RETRY_SCHEDULE_MS } from './retry-schedule.js';

/** The guard off (site_config.json webhook_deny_private_targets: false): everything reachable. */
const NO_GUARD = { denyInternal: false, allowed: [] };

describe('sending a webhook request', () => {
  let server: Server;
  let base: string;
  const hits: string[] = [];
  before(async () => {
    server = createServer((req, res) => {
      hits.push(`${req.method} ${req.url}`);
      if (req.url === '/same') return res.writeHead(307, { Location: '/final' }).end();
      if (req.url === '/inside') return res.writeHead(307, { Location: 'http://127.0.0.2:1/x' }).end();
      if (req.url === '/away') return res.writeHead(302, { Location: 'http://example.invalid/x' }).end();
      if (req.url === '/loop') return res.writeHead(307, { Location: '/loop' }).end();
      if (req.url === '/slow') return; // never answers
      if (req.url === '/big') return res.end('x'.repeat(200_000));
      res.end('final');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  const send = (path: string, extra: Partial<Parameters<typeof sendWebhookRequest>[0]> = {}) =>
    sendWebhookRequest({ url: `${base}${path}`, method: 'POST', headers: {}, body: '{}', timeoutMs: 2000, targets: NO_GUARD, ...extra });

  test('a redirect within the host is followed; to another host it is not, and that is final', async () => {
    const same = await send('/same');
    assert.equal(same.status, 200);
    assert.equal(hits.at(-1), 'POST /final', 'the 307 kept the method');
    const away = await send('/away');
    assert.match(String(away.error), /Redirect to another host \(example.invalid\) not followed/);
    assert.deepEqual(judge(away), { kind: 'final' });
    const loop = await send('/loop');
    assert.match(String(loop.error), /Too many redirects/);
  });

  test('a receiver that never answers times out (retryable); a long answer is cut', async () => {
    const slow = await send('/slow', { timeoutMs: 200 });
    assert.match(String(slow.error), /Timed out after 200 ms/);
    assert.equal(judge(slow).kind, 'retry');
    const big = await send('/big', { targets: { denyInternal: false, allowed: [] } });
    assert.equal(MAX_RESPONSE_BYTES, 4096);
    assert.equal(big.internal, true, 'the answer came from loopback');
    assert.equal(big.body, '', 'an internal answer keeps no body');
    assert.equal(big.status, 200);
  });

  test('a redirect that leads inside (another host) is not followed', async () => {
    const allowed = { denyInternal: true, allowed: parseAllowedTargets([`127.0.0.1:${new URL(base).port}`]) };
    const before = hits.length;
    const inside = await send('/inside', { targets: allowed });
    assert.equal(inside.fatal, true);
    assert.match(String(inside.error), /Redirect to another host \(127\.0\.0\.2:1\) not followed/);
    assert.equal(hits.length, before + 1, 'only the first hop was sent');
  });

  test('by default loopback and internal targets are refused before any connection, names included', async () => {
    const before = hits.length;
    for (const url of [
      `${base}/x`,
      `http://localhost:${new URL(base).port}/x`,
      'http://[::1]:1/x',
      'http://10.1.2.3/x',
      'http://169.254.169.254/latest/meta-data',
      'http://[::ffff:127.0.0.1]:1/x',
      'http://0x7f.1:1/x',
    ]) {
      const result = await sendWebhookRequest({ url, method: 'POST', headers: {}, body: '{}', timeoutMs: 2000, targets: DENY_INTERNAL });
      assert.equal(result.fatal, true, url);
      assert.match(String(result.error), /internal address/, url);
    }
    assert.equal(hits.length, before, 'nothing reached the receiver');
    const schemes = await sendWebhookRequest({ url: 'file:///etc/passwd', method: 'POST', headers: {}, body: '', timeoutMs: 100, targets: NO_GUARD });
    assert.equal(schemes.fatal, true);
  });

  test('a target the operator allowed is reached, by address or by name, on its port only', async () => {
    const port = new URL(base).port;
    for (const entry of [`127.0.0.1:${port}`, '127.0.0.0/8', `localhost:${port}`]) {
      const targets = { denyInternal: true, allowed: parseAllowedTargets([entry]) };
      const url = entry.startsWith('localhost') ? `http://localhost:${port}/ok` : `${base}/ok`;
      const result = await sendWebhookRequest({ url, method: 'POST', headers: {}, body: '{}', timeoutMs: 2000, targets });
      // localhost may resolve to ::1 first, where this receiver does not listen; the guard let it through either way.
      assert.ok(result.status === 200 || /ECONNREFUSED/.test(String(result.error)), `${entry}: ${result.error}`);
      assert.doesNotMatch(String(result.error), /internal address/, entry);
    }
    const otherPort = { denyInternal: true, allowed: parseAllowedTargets(['127.0.0.1:1']) };
    const refused = await sendWebhookRequest({ url: `${base}/x`, method: 'POST', headers: {}, body: '{}', timeoutMs: 2000, targets: otherPort });
    assert.match(String(refused.error), /internal address/);
  });

  test('private address ranges, IPv4-mapped IPv6 included', () => {
    for (const a of ['127.0.0.1', '10.0.0.1', '172.16.5.4', '192.168.1.1', '169.254.1.1', '::1', 'fd00::1', 'fe80::1', '::ffff:127.0.0.1', '0.0.0.0'])
      assert.ok(isPrivateAddress(a), a);
    for (const a of ['8.8.8.8', '1.1.1.1', '2606:4700::1111', '172.32.0.1']) assert.ok(!isPrivateAddress(a), a);
  });

  test('verdicts and the retry schedule', () => {
    assert.deepEqual(judge({ status: 204, headers: {}, body: '' }), { kind: 'delivered' });
    for (const status of [408, 429, 500, 502, 503]) assert.equal(judge({ status, headers: {}, body: '' }).kind, 'retry', String(status));
    for (const status of [400, 401, 403, 404, 410, 422]) assert.equal(judge({ status, headers: {}, body: '' }).kind, 'final', String(status));
    assert.equal(retryAfter('30', 0), 30_000);
    assert.equal(retryAfter(new Date(60_000).toUTCString(), 0), 60_000);
    assert.equal(retryAfter('soon', 0), undefined);
    assert.equal(retryAfter('999999999', 0), 10 * 3_600_000, 'capped at 10 h');
    const mid = () => 0.5;
    assert.deepEqual(
      [1, 2, 3, 4, 5, 6, 7, 9].map((a) => nextRetryDelay(a, undefined, mid)),
      [...RETRY_SCHEDULE_MS, 36_000_000, 36_000_000],
    );
    assert.equal(nextRetryDelay(1, 120_000, mid), 120_000);
  });
});
