import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { allOf, andThen, anyOf } from './maybe-promise.js';

describe('MaybePromise', () => {
  test('andThen answers at once for a value and through a promise for a promise', async () => {
    assert.equal(
      andThen(2, (n) => n * 3),
      6,
    );
    const later = andThen(Promise.resolve(2), (n) => n * 3);
    assert.ok(later instanceof Promise);
    assert.equal(await later, 6);
  });

  test('a step that answers at once also throws at once', () => {
    assert.throws(
      () =>
        andThen(1, () => {
          throw new Error('denied');
        }),
      /denied/,
    );
  });

  const verdicts: Array<[boolean, boolean, boolean, boolean]> = [
    // first, next, allOf, anyOf
    [true, true, true, true],
    [true, false, false, true],
    [false, true, false, true],
    [false, false, false, false],
  ];
  for (const [first, next, all, any] of verdicts) {
    test(`allOf / anyOf of ${first} and ${next}, at once and waited for`, async () => {
      assert.equal(
        allOf(first, () => next),
        all,
      );
      assert.equal(
        anyOf(first, () => next),
        any,
      );
      assert.equal(await allOf(Promise.resolve(first), () => Promise.resolve(next)), all);
      assert.equal(await anyOf(Promise.resolve(first), () => Promise.resolve(next)), any);
    });
  }

  test('next runs only when first leaves the answer open', () => {
    let ran = 0;
    allOf(false, () => (ran++, true));
    anyOf(true, () => (ran++, true));
    assert.equal(ran, 0);
  });
});
