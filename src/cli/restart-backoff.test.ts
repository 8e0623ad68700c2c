import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { RestartBackoff } from './restart-backoff.js';

describe('RestartBackoff', () => {
  test('a lone death waits the base delay', () => {
    assert.equal(new RestartBackoff({ baseMs: 100 }).next(0), 100);
  });

  test('deaths close together double the wait up to the maximum', () => {
    const backoff = new RestartBackoff({ baseMs: 100, maxMs: 1_000, windowMs: 60_000 });
    const waits = [0, 1, 2, 3, 4, 5].map((i) => backoff.next(i * 10));
    assert.deepEqual(waits, [100, 200, 400, 800, 1_000, 1_000]);
  });

  test('deaths older than the window no longer count', () => {
    const backoff = new RestartBackoff({ baseMs: 100, maxMs: 10_000, windowMs: 1_000 });
    backoff.next(0);
    backoff.next(10);
    assert.equal(backoff.next(20), 400);
    assert.equal(backoff.next(5_000), 100);
  });

  test('a long crash loop stays at the maximum', () => {
    const backoff = new RestartBackoff({ baseMs: 100, maxMs: 10_000, windowMs: 1e12 });
    let wait = 0;
    for (let i = 0; i < 2_000; i++) wait = backoff.next(i);
    assert.equal(wait, 10_000);
  });
});
