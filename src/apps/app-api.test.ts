import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { DocContext } from '../documents/doc-context.js';
import { DocumentService } from '../documents/document-service.js';
import { HookRegistry, type DocEvent, type HookArgs } from '../documents/hooks.js';
import { ValidationError } from '../errors/index.js';
import { MethodRegistry } from '../rpc/method-registry.js';
import { RealtimePublisher } from '../realtime/realtime-publisher.js';
import { createAppApi } from './app-api.js';

function services() {
  return { hooks: new HookRegistry(), methods: new MethodRegistry(), documents: new DocumentService(), realtime: new RealtimePublisher(65536) };
}

const noop = async () => undefined;
const args = { doc: { name: 'x' }, before: undefined, ctx: {} as DocContext } satisfies HookArgs;

describe('createAppApi', () => {
  test('registers a method under the app namespace where the registry resolves it', () => {
    const s = services();
    createAppApi('library', s).methods.register('library.api.stats', noop, { methods: ['GET'] });
    assert.deepEqual(s.methods.resolve('library.api.stats')?.methods, ['GET']);
  });

  const refusedPaths = ['other.api.stats', 'library', 'library.', 'librarything.x', 'fw.client.get_list', 'library.api.bad-name'];
  for (const path of refusedPaths) {
    test(`refuses the method path ${JSON.stringify(path)}, outside the app's namespace or malformed`, () => {
      const s = services();
      assert.throws(
        () => createAppApi('library', s).methods.register(path, noop),
        /App "library": methods\.register\(.*\): a method path is dotted names under the app's own namespace, such as "library\.api\.get_stats"/,
      );
      assert.equal(s.methods.resolve(path), undefined);
    });
  }

  test('refuses a method path registered twice', () => {
    const api = createAppApi('library', services());
    api.methods.register('library.api.stats', noop);
    assert.throws(() => api.methods.register('library.api.stats', noop), /already registered at this path/);
  });

  test('refuses a verb that is not an HTTP verb fw knows', () => {
    const api = createAppApi('library', services());
    assert.throws(
      () => api.methods.register('library.api.stats', noop, { methods: ['get' as 'GET'] }),
      /"methods" must list verbs among GET, POST, PUT, DELETE, PATCH, got \["get"\]/,
    );
  });

  test('refuses a handler that is not a function', () => {
    const api = createAppApi('library', services());
    assert.throws(() => api.methods.register('library.api.stats', 'stats' as never), /the handler must be a function/);
  });

  test('registers a document method, and refuses a second one of the same name on the DocType', () => {
    const s = services();
    const api = createAppApi('library', s);
    api.methods.registerDocMethod('Book', 'return_book', noop, { methods: ['POST'] });
    assert.equal(s.methods.docMethods.resolve('Book', 'return_book')?.doctype, 'Book');
    assert.throws(() => api.methods.registerDocMethod('Book', 'return_book', noop), /Book already has a method of this name/);
  });

  test('refuses an event no document fires', () => {
    const api = createAppApi('library', services());
    assert.throws(() => api.hooks.on('Book', 'valdate' as DocEvent, async (_a, next) => next()), /hooks\.on\("Book", "valdate"\): unknown event/);
  });

  test("runs the app's hook in the DocType's chain, and the hooks after it", async () => {
    const s = services();
    const ran: string[] = [];
    createAppApi('library', s).hooks.on('Book', 'validate', async (_a, next) => {
      ran.push('app');
      await next();
    });
    s.hooks.on('Book', 'validate', async (_a, next) => {
      ran.push('later');
      await next();
    });
    await s.hooks.run('Book', 'validate', args);
    assert.deepEqual(ran, ['app', 'later']);
  });

  test('fails the write when a hook returns without calling next, so later hooks are never skipped silently', async () => {
    const s = services();
    createAppApi('library', s).hooks.on('Book', 'validate', async () => undefined);
    await assert.rejects(s.hooks.run('Book', 'validate', args), /App "library": its validate hook on Book returned without calling next\(\)/);
  });

  test('passes on what a hook throws, such as a ValidationError from api.errors', async () => {
    const s = services();
    const api = createAppApi('library', s);
    assert.equal(api.errors.ValidationError, ValidationError);
    api.hooks.on('Book', 'validate', async () => {
      throw new api.errors.ValidationError('no');
    });
    await assert.rejects(s.hooks.run('Book', 'validate', args), ValidationError);
  });

  test('adds permission hooks that can deny', async () => {
    const s = services();
    createAppApi('library', s).permissions.onHasPermission('Book', () => false);
    const allowed = await s.hooks.permissions.allows({
      doc: {},
      meta: { name: 'Book' } as never,
      right: 'read',
      principal: {} as never,
      ctx: {} as DocContext,
    });
    assert.equal(allowed, false);
  });
});
