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

  test('concurrent misses share one verification', async () => {
    const cache = new TokenCache({ clock: fakeClock().now });
    let calls = 0;
    const verify = async () => {
      calls += 1;
      return 'jane';
    };
    const answers = await Promise.all([cache.resolve('k:s', verify), cache.resolve('k:s', verify), cache.resolve('k:s', verify)]);
    assert.deepEqual(answers, ['jane', 'jane', 'jane']);
    assert.equal(calls, 1);
  });

  test('a token used late in its TTL is verified again in the background; the entry answers meanwhile', async () => {
    const clock = fakeClock();
    const cache = new TokenCache({ ttlMs: 1000, clock: clock.now });
    let calls = 0;
    let answer: string | undefined = 'jane';
    const verify = async () => {
      calls += 1;
      return answer;
    };
    cache.set('k:s', 'jane');
    clock.advance(700);
    assert.equal(cache.get('k:s', verify), 'jane');
    assert.equal(calls, 0);
    clock.advance(100);
    assert.equal(cache.get('k:s', verify), 'jane');
    assert.equal(cache.get('k:s', verify), 'jane');
    await new Promise((r) => setImmediate(r));
    assert.equal(calls, 1);
    // Renewed from the start of that verification: fresh until 1,800 ms after the first.
    clock.advance(999);
    assert.equal(cache.get('k:s'), 'jane');
    clock.advance(1);
    assert.equal(cache.get('k:s'), undefined);
    // A renewal that finds the token no longer valid drops the entry at once.
    cache.set('k:s', 'jane');
    answer = undefined;
    clock.advance(800);
    assert.equal(cache.get('k:s', verify), 'jane');
    await new Promise((r) => setImmediate(r));
    assert.equal(cache.get('k:s'), undefined);
  });

  test('a verification that overlapped clear() is answered but not kept', async () => {
    const cache = new TokenCache({ clock: fakeClock().now });
    const answer = await cache.resolve('k:s', async () => {
      cache.clear();
      return 'jane';
    });
    assert.equal(answer, 'jane');
    assert.equal(cache.get('k:s'), undefined);
  });
});
