import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import Fastify from 'fastify';
import { ANSWERED, registerRequestPipeline, type RequestPipeline, type RequestStep } from './request-pipeline.js';

/** An app whose pipeline records the steps it ran; `/` answers with that record. */
async function appWith(steps: Partial<RequestPipeline>) {
  const app = Fastify();
  registerRequestPipeline(app, { onRequest: [], preValidation: [], preHandler: [], onSend: [], onResponse: [], ...steps });
  app.get('/', async (req) => ({ ran: (req as unknown as { ran?: string[] }).ran ?? [] }));
  await app.ready();
  return app;
}

const step =
  (name: string, outcome: () => ReturnType<RequestStep> = () => undefined): RequestStep =>
  (req) => {
    const r = req as unknown as { ran?: string[] };
    (r.ran ??= []).push(name);
    return outcome();
  };

describe('request pipeline', () => {
  test('steps run in order, waiting for those that return a promise; steps left out are skipped', async () => {
    const app = await appWith({
      onRequest: [step('a'), step('b', () => new Promise<void>((resolve) => setTimeout(resolve, 5))), step('c')],
      preHandler: [step('d'), undefined],
    });
    assert.deepEqual((await app.inject('/')).json(), { ran: ['a', 'b', 'c', 'd'] });
    await app.close();
  });

  test('an error, returned or rejected, answers the request and the later steps do not run', async () => {
    for (const failing of [() => new Error('refused now'), () => Promise.reject(new Error('refused later'))]) {
      let later = false;
      const app = await appWith({ onRequest: [step('a', failing), () => void (later = true)] });
      const res = await app.inject('/');
      assert.equal(res.statusCode, 500);
      assert.match(res.json().message, /refused/);
      assert.equal(later, false);
      await app.close();
    }
  });

  test('a step that answers itself ends the request there', async () => {
    let handled = false;
    const app = Fastify();
    registerRequestPipeline(app, {
      onRequest: [async (_req, reply): Promise<typeof ANSWERED> => (reply.code(204).send(), ANSWERED), () => void (handled = true)],
      preValidation: [],
      preHandler: [],
      onSend: [],
      onResponse: [],
    });
    app.get('/', async () => {
      handled = true;
      return {};
    });
    const res = await app.inject('/');
    assert.equal(res.statusCode, 204);
    assert.equal(handled, false);
    await app.close();
  });

  test('onSend steps see the answer and leave its payload as it was; onResponse steps run after it', async () => {
    let status = 0;
    const app = await appWith({
      onSend: [(_req, reply) => void reply.header('x-step', 'yes')],
      onResponse: [(_req, reply) => void (status = reply.statusCode)],
    });
    const res = await app.inject('/');
    assert.equal(res.headers['x-step'], 'yes');
    assert.deepEqual(res.json(), { ran: [] });
    assert.equal(status, 200);
    await app.close();
  });
});
