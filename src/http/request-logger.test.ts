import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import Fastify from 'fastify';
import { lazyRequestLoggers } from './request-logger.js';

/** An app logging at `level` into `lines`, counting the pino children its requests make. */
async function appLoggingAt(level: string) {
  const lines: Array<Record<string, unknown>> = [];
  const app = Fastify({
    logger: { level, stream: { write: (line: string) => void lines.push(JSON.parse(line)) } },
    childLoggerFactory: lazyRequestLoggers,
  });
  let children = 0;
  const child = app.log.child;
  const root = app.log;
  // pino's children inherit this property: only the root's own calls are the request loggers.
  app.log.child = function (this: unknown, ...args: Parameters<typeof child>) {
    if (this === root) children += 1;
    return child.apply(this, args);
  } as typeof app.log.child;
  app.get('/quiet', async (req) => {
    req.log.debug('not written at warn');
    req.log.info({ detail: 1 }, 'nor this');
    return { ok: true };
  });
  app.get('/loud', async (req) => {
    req.log.warn({ detail: 2 }, 'written');
    req.log.child({ part: 'inner' }).error('from a child of its own');
    return { level: req.log.level };
  });
  await app.ready();
  return { app, lines, children: () => children };
}

describe('lazy request loggers', () => {
  test('a request that logs nothing at the server level makes no pino child', async () => {
    const { app, lines, children } = await appLoggingAt('warn');
    const res = await app.inject({ method: 'GET', url: '/quiet' });
    assert.equal(res.statusCode, 200);
    assert.equal(children(), 0);
    assert.deepEqual(lines, []);
    await app.close();
  });

  test('the first line written makes the child: lines carry the request id, and children of it work', async () => {
    const { app, lines, children } = await appLoggingAt('warn');
    const res = await app.inject({ method: 'GET', url: '/loud' });
    assert.deepEqual(res.json(), { level: 'warn' });
    assert.equal(children(), 1);
    assert.equal(lines.length, 2);
    assert.equal(lines[0]!.msg, 'written');
    assert.equal(lines[0]!.detail, 2);
    assert.equal(typeof lines[0]!.reqId, 'string');
    assert.equal(lines[1]!.reqId, lines[0]!.reqId);
    assert.equal(lines[1]!.part, 'inner');
    await app.close();
  });

  test('at a lower server level the same calls are written', async () => {
    const { app, lines } = await appLoggingAt('debug');
    await app.inject({ method: 'GET', url: '/quiet' });
    const own = lines.filter((l) => l.msg !== 'incoming request' && l.msg !== 'request completed');
    assert.deepEqual(
      own.map((l) => l.msg),
      ['not written at warn', 'nor this'],
    );
    assert.ok(own.every((l) => typeof l.reqId === 'string'));
    await app.close();
  });
});
