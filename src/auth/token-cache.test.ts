import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { TokenCache } from './token-cache.js';

function fakeClock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('TokenCache', () => {
  test('a verified token is remembered until its TTL has passed', () => {
    const clock = fakeClock();
    const cache = new TokenCache({ ttlMs: 1000, clock: clock.now });
    cache.set('key:secret', 'jane');
    assert.equal(cache.get('key:secret'), 'jane');
    clock.advance(999);
    assert.equal(cache.get('key:secret'), 'jane');
    clock.advance(1);
    assert.equal(cache.get('key:secret'), undefined);
  });

  test('the default TTL is one second', () => {
    const clock = fakeClock();
    const cache = new TokenCache({ clock: clock.now });
    cache.set('key:secret', 'jane');
    clock.advance(1000);
    assert.equal(cache.get('key:secret'), undefined);
  });

  test('a different secret for the same key is not a hit', () => {
    const cache = new TokenCache({ clock: fakeClock().now });
    cache.set('key:secret', 'jane');
    assert.equal(cache.get('key:other'), undefined);
    assert.equal(cache.get('key2:secret'), undefined);
  });

  test('resolve asks the verifier on a miss, caches successes and never caches failures', async () => {
    const clock = fakeClock();
    const cache = new TokenCache({ clock: clock.now });
    let calls = 0;
    const verifier = (answer: string | undefined) => async () => {
      calls += 1;
      return answer;
    };
    assert.equal(await cache.resolve('k:s', verifier('jane')), 'jane');
    assert.equal(await cache.resolve('k:s', verifier('someone else')), 'jane');
    assert.equal(calls, 1);
    assert.equal(await cache.resolve('bad:s', verifier(undefined)), undefined);
    assert.equal(await cache.resolve('bad:s', verifier(undefined)), undefined);
    assert.equal(calls, 3);
    clock.advance(1000);
    assert.equal(await cache.resolve('k:s', verifier(undefined)), undefined);
    assert.equal(calls, 4);
  });

  test('the cache holds at most maxEntries tokens, dropping the oldest', () => {
    const cache = new TokenCache({ maxEntries: 2, clock: fakeClock().now });
    cache.set('a:s', 'A');
    cache.set('b:s', 'B');
    cache.set('c:s', 'C');
    assert.equal(cache.size, 2);
    assert.equal(cache.get('a:s'), undefined);
    assert.equal(cache.get('b:s'), 'B');
    assert.equal(cache.get('c:s'), 'C');
  });

  test('clear forgets every token', () => {
    const cache = new TokenCache({ clock: fakeClock().now });
    cache.set('a:s', 'A');
    cache.clear();
    assert.equal(cache.get('a:s'), undefined);
  });
});
