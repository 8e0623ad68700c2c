import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { documentFastLane, type FastLaneState } from '../../src/http/document-fast-lane.js';
import { testDialects } from '../helpers/dialects.js';
import { assertV1Error } from '../helpers/error-envelope.js';
import { insertDoc } from '../helpers/document-api.js';
import { createUser, type ActingUser } from '../helpers/permission-users.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';

/*
 * The document fast lane (src/http/document-fast-lane.ts; docs/benchmarks.md "The document fast
 * lane"): a GET of one document by API token is answered before Fastify routes it. Two parts:
 * the lane's decisions, with Fastify replaced by a stub that only records what it was handed; and
 * the real server, where an answer of the lane must be the route's answer, byte for byte but the
 * Date, and every refusal must still come, in the envelope, from Fastify's side.
 */

interface Answer {
  readonly statusCode: number;
  readonly headers: IncomingHttpHeaders;
  readonly rawHeaderNames: string[];
  readonly body: string;
}

/** One request over a real socket, with exactly the headers given. */
function send(origin: string, method: string, path: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${origin}${path}`, { method, headers: { ...headers, connection: 'close' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          statusCode: res.statusCode ?? 0,
          headers: res.headers,
          rawHeaderNames: res.rawHeaders.filter((_, i) => i % 2 === 0).map((n) => n.toLowerCase()),
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function listenOn(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

for (const dialect of testDialects()) {
  describe(`the document fast lane (${dialect.name})`, () => {
    let t: TestSite;
    let clerk: ActingUser;
    let own: string;
    let others: string;
    let appOrigin: string;

    before(async () => {
      t = await startTestSite(dialect);
      clerk = await createUser(t, 'lane-clerk@example.com');
      own = (await insertDoc(t, 'ToDo', { description: 'the clerk’s own', allocated_to: clerk.name })).name;
      others = (await insertDoc(t, 'ToDo', { description: 'not the clerk’s: secret-0451' })).name;
      appOrigin = await t.app.listen({ host: '127.0.0.1', port: 0 });
    });
    after(() => t.close());

    describe('what the lane answers and what it hands to Fastify', () => {
      const handed: string[] = [];
      const counted: Array<[string, number]> = [];
      let closing = false;
      let logs = false;
      let lane: Server;
      let origin: string;
      before(async () => {
        const state: FastLaneState = {
          closing: () => closing,
          logsRequests: () => logs,
          nextRequestId: () => 'lane-test',
          countAnswer: (route, status) => counted.push([route, status]),
        };
        lane = createServer(
          documentFastLane(t.site, state, (req, res) => {
            handed.push(`${req.method} ${req.url}`);
            res.statusCode = 599;
            res.end();
          }),
        );
        origin = await listenOn(lane);
      });
      after(() => new Promise<void>((resolve) => lane.close(() => resolve())));

      test('a token GET of a readable document: answered, counted under its route pattern', async () => {
        for (const base of ['/api/resource', '/api/v1/resource']) {
          const res = await send(origin, 'GET', `${base}/ToDo/${own}`, { authorization: clerk.auth });
          assert.equal(res.statusCode, 200, res.body);
          const body = JSON.parse(res.body) as { data: Record<string, unknown> };
          assert.equal(body.data.name, own);
          assert.equal(body.data.doctype, 'ToDo');
          assert.ok(!('assigned_by' in body.data), 'v1 bodies leave null fields out');
          assert.deepEqual(counted.at(-1), [`${base}/:doctype/:name`, 200]);
        }
        assert.deepEqual(handed, []);
      });

      test('a token GET of a list page: answered with the rows the user may read, counted under its route pattern', async () => {
        const res = await send(origin, 'GET', `/api/resource/ToDo?fields=${encodeURIComponent('["name","description"]')}&limit_page_length=20`, {
          authorization: clerk.auth,
        });
        assert.equal(res.statusCode, 200, res.body);
        const rows = (JSON.parse(res.body) as { data: Array<{ name: string }> }).data;
        assert.deepEqual(
          rows.map((r) => r.name),
          [own],
        );
        assert.ok(!res.body.includes('secret-0451'), 'another user’s ToDo is not in the page');
        assert.deepEqual(counted.at(-1), ['/api/resource/:doctype', 200]);
        assert.deepEqual(handed, []);
      });

      const handedOver: Array<[string, () => [string, string, Record<string, string>, string?]]> = [
        ['a query string', () => ['GET', `/api/resource/ToDo/${own}?fields=%5B%22name%22%5D`, { authorization: clerk.auth }]],
        ['a percent-escaped name', () => ['GET', `/api/resource/ToDo/${own}%41`, { authorization: clerk.auth }]],
        ['a trailing slash', () => ['GET', `/api/resource/ToDo/${own}/`, { authorization: clerk.auth }]],
        ['a session cookie beside the token', () => ['GET', `/api/resource/ToDo/${own}`, { authorization: clerk.auth, cookie: 'sid=x' }]],
        ['an Origin (CORS answers)', () => ['GET', `/api/resource/ToDo/${own}`, { authorization: clerk.auth, origin: 'https://elsewhere.example' }]],
        [
          'a body',
          () => ['GET', `/api/resource/ToDo/${own}`, { authorization: clerk.auth, 'content-type': 'application/json', 'content-length': '7' }, '{"a":1}'],
        ],
        ['a chunked body', () => ['GET', `/api/resource/ToDo/${own}`, { authorization: clerk.auth, 'transfer-encoding': 'chunked' }, '{"a":1}']],
        ['HEAD', () => ['HEAD', `/api/resource/ToDo/${own}`, { authorization: clerk.auth }]],
        ['PUT', () => ['PUT', `/api/resource/ToDo/${own}`, { authorization: clerk.auth }]],
        ['v2', () => ['GET', `/api/v2/document/ToDo/${own}`, { authorization: clerk.auth }]],
        ['a list of every row (streamed by the route)', () => ['GET', '/api/resource/ToDo?limit_page_length=0', { authorization: clerk.auth }]],
        ['a list with expand', () => ['GET', '/api/resource/ToDo?expand=%5B%22allocated_to%22%5D', { authorization: clerk.auth }]],
        ['a list with a sid argument', () => ['GET', '/api/resource/ToDo?sid=abc', { authorization: clerk.auth }]],
        [
          'a list argument nested too deep',
          () => ['GET', `/api/resource/ToDo?filters=${encodeURIComponent('['.repeat(80) + ']'.repeat(80))}`, { authorization: clerk.auth }],
        ],
        [
          'a list with a bad filter',
          () => ['GET', `/api/resource/ToDo?filters=${encodeURIComponent('[["no_such_field","=","x"]]')}`, { authorization: clerk.auth }],
        ],
        ['no credentials', () => ['GET', `/api/resource/ToDo/${own}`, {}]],
        ['Basic credentials', () => ['GET', `/api/resource/ToDo/${own}`, { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }]],
        ['a wrong secret', () => ['GET', `/api/resource/ToDo/${own}`, { authorization: `${clerk.auth}0` }]],
        ['another user’s document', () => ['GET', `/api/resource/ToDo/${others}`, { authorization: clerk.auth }]],
        ['a missing document', () => ['GET', '/api/resource/ToDo/no-such-todo', { authorization: clerk.auth }]],
        ['an unknown DocType', () => ['GET', `/api/resource/NoSuchType/${own}`, { authorization: clerk.auth }]],
      ];
      for (const [what, request] of handedOver) {
        test(`handed to Fastify untouched: ${what}`, async () => {
          const [method, path, headers, body] = request();
          const before = counted.length;
          const res = await send(origin, method, path, headers, body);
          assert.equal(res.statusCode, 599, `the lane answered ${res.statusCode}: ${res.body.slice(0, 200)}`);
          assert.equal(handed.at(-1), `${method} ${path}`);
          assert.equal(counted.length, before, 'nothing counted by the lane');
        });
      }

      test('handed to Fastify while the server closes, and while request lines are logged', async () => {
        for (const set of [() => (closing = true), () => (logs = true)]) {
          closing = false;
          logs = false;
          set();
          const res = await send(origin, 'GET', `/api/resource/ToDo/${own}`, { authorization: clerk.auth });
          assert.equal(res.statusCode, 599);
        }
        closing = false;
        logs = false;
      });
    });

    describe('through the real server', () => {
      test('the lane’s answer is the route’s answer, headers included', async () => {
        const lane = await send(appOrigin, 'GET', `/api/resource/ToDo/${own}`, { authorization: clerk.auth });
        // An argument the route ignores takes the request the router's way.
        const routed = await send(appOrigin, 'GET', `/api/resource/ToDo/${own}?_=1`, { authorization: clerk.auth });
        assert.equal(lane.statusCode, 200, lane.body);
        assert.equal(lane.body, routed.body);
        const without = (h: IncomingHttpHeaders) => Object.fromEntries(Object.entries(h).filter(([k]) => k !== 'date'));
        assert.deepEqual(without(lane.headers), without(routed.headers));
        assert.deepEqual(lane.rawHeaderNames, routed.rawHeaderNames);
        assert.equal(lane.headers['x-content-type-options'], 'nosniff');
        assert.equal(lane.headers['cache-control'], 'no-store');
      });

      test('a list page from the lane is the route’s page', async () => {
        const args = `fields=${encodeURIComponent('["name","description","status"]')}&filters=${encodeURIComponent('[["status","=","Open"]]')}&order_by=${encodeURIComponent('modified desc')}&limit_page_length=20`;
        const lane = await send(appOrigin, 'GET', `/api/resource/ToDo?${args}`, { authorization: clerk.auth });
        const routed = await send(appOrigin, 'GET', `/api/resource/ToDo?${args}&_=1`, { authorization: clerk.auth });
        assert.equal(lane.statusCode, 200, lane.body);
        assert.equal(lane.body, routed.body);
        assert.deepEqual(lane.rawHeaderNames, routed.rawHeaderNames);
        const bad = await send(appOrigin, 'GET', `/api/resource/ToDo?filters=${encodeURIComponent('[["no_such_field","=","x"]]')}`, {
          authorization: clerk.auth,
        });
        assert.ok(bad.statusCode >= 400 && bad.statusCode < 500, bad.body);
        assert.ok('exc_type' in JSON.parse(bad.body), bad.body);
        const deep = await send(appOrigin, 'GET', `/api/resource/ToDo?filters=${encodeURIComponent('['.repeat(80) + ']'.repeat(80))}`, {
          authorization: clerk.auth,
        });
        assertV1Error(deep, 400, 'NestingDepthExceeded');
      });

      test('refusals come from the route, in the envelope, and reveal nothing', async () => {
        const forbidden = await send(appOrigin, 'GET', `/api/resource/ToDo/${others}`, { authorization: clerk.auth });
        assertV1Error(forbidden, 403, 'PermissionError');
        assert.ok(!forbidden.body.includes('secret-0451'), forbidden.body);
        assertV1Error(await send(appOrigin, 'GET', '/api/resource/ToDo/no-such-todo', { authorization: clerk.auth }), 404, 'DoesNotExistError');
        assertV1Error(await send(appOrigin, 'GET', `/api/resource/ToDo/${own}`, { authorization: `${clerk.auth}0` }), 401, 'AuthenticationError');
      });

      test('a lane answer is counted in /metrics under the route pattern', async () => {
        const count = async () => {
          const res = await send(appOrigin, 'GET', '/metrics', { authorization: t.adminAuth });
          const line = res.body
            .split('\n')
            .find(
              (l) =>
                l.startsWith('fw_http_requests_total{') &&
                l.includes('route="/api/resource/:doctype/:name"') &&
                l.includes('status="200"') &&
                l.includes('method="GET"'),
            );
          return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
        };
        const before = await count();
        for (let i = 0; i < 3; i++) assert.equal((await send(appOrigin, 'GET', `/api/resource/ToDo/${own}`, { authorization: clerk.auth })).statusCode, 200);
        assert.equal(await count(), before + 3);
      });
    });
  });
}
