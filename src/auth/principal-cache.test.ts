import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { makePrincipal, type Principal } from './principal.js';
import { PrincipalCache } from './principal-cache.js';

const jane = makePrincipal({ user: 'jane@example.com', roles: ['Sales User'] });

function counting(result: Principal | undefined) {
  const load = async () => {
    load.calls++;
    return result;
  };
  load.calls = 0;
  return load;
}

describe('PrincipalCache', () => {
  test('reuses a resolved principal until the TTL passes, then loads again', async () => {
    let now = 1_000;
    const cache = new PrincipalCache({ ttlMs: 1000, clock: () => now });
    const load = counting(jane);
    assert.equal(await cache.resolve(jane.user, load), jane);
    now += 999;
    assert.equal(await cache.resolve(jane.user, load), jane);
    assert.equal(load.calls, 1);
    now += 1;
    assert.equal(cache.get(jane.user), undefined);
    assert.equal(await cache.resolve(jane.user, load), jane);
    assert.equal(load.calls, 2);
  });

  test('never keeps a missing or disabled user, so enabling one works at once', async () => {
    const cache = new PrincipalCache();
    const load = counting(undefined);
    assert.equal(await cache.resolve('off@example.com', load), undefined);
    assert.equal(await cache.resolve('off@example.com', load), undefined);
    assert.equal(load.calls, 2);
    assert.equal(cache.size, 0);
  });

  test('clear() forgets every principal', async () => {
    const cache = new PrincipalCache();
    await cache.resolve(jane.user, counting(jane));
    const before = cache.generation;
    cache.clear();
    assert.equal(cache.get(jane.user), undefined);
    assert.equal(cache.generation, before + 1);
  });

  test('a load that overlapped a clear() is returned but not kept', async () => {
    const cache = new PrincipalCache();
    const answer = await cache.resolve(jane.user, async () => {
      cache.clear();
      return jane;
    });
    assert.equal(answer, jane);
    assert.equal(cache.get(jane.user), undefined);
  });

  test('holds at most maxEntries users, dropping the oldest', async () => {
    const cache = new PrincipalCache({ maxEntries: 2 });
    for (const user of ['a', 'b', 'c']) await cache.resolve(user, async () => makePrincipal({ user, roles: [] }));
    assert.equal(cache.size, 2);
    assert.equal(cache.get('a'), undefined);
    assert.equal(cache.get('c')?.user, 'c');
  });

  test('concurrent misses share one load; a caller after clear() does not', async () => {
    const cache = new PrincipalCache();
    const load = counting(jane);
    const [a, b] = await Promise.all([cache.resolve(jane.user, load), cache.resolve(jane.user, load)]);
    assert.equal(a, jane);
    assert.equal(b, jane);
    assert.equal(load.calls, 1);
    cache.clear();
    const first = cache.resolve(jane.user, load);
    cache.clear();
    await Promise.all([first, cache.resolve(jane.user, load)]);
    assert.equal(load.calls, 3);
  });

  test('a principal used late in its TTL is loaded again in the background, never served past its TTL', async () => {
    let now = 1_000;
    const cache = new PrincipalCache({ ttlMs: 1000, clock: () => now });
    const load = counting(jane);
    await cache.resolve(jane.user, load);
    now += 749;
    assert.equal(cache.get(jane.user, load), jane);
    assert.equal(load.calls, 1);
    now += 1;
    assert.equal(cache.get(jane.user, load), jane);
    assert.equal(cache.get(jane.user, load), jane);
    await new Promise((r) => setImmediate(r));
    assert.equal(load.calls, 2);
    now += 999;
    assert.equal(cache.get(jane.user), jane);
    now += 1;
    assert.equal(cache.get(jane.user), undefined);
  });

  test('a background load that finds the user gone drops the entry', async () => {
    let now = 1_000;
    const cache = new PrincipalCache({ ttlMs: 1000, clock: () => now });
    await cache.resolve(jane.user, counting(jane));
    now += 800;
    assert.equal(cache.get(jane.user, counting(undefined)), jane);
    await new Promise((r) => setImmediate(r));
    assert.equal(cache.get(jane.user), undefined);
  });
});
