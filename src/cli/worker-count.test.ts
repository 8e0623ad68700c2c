import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { UsageError } from './usage-error.js';
import { MAX_WORKERS, parseWorkerCount } from './worker-count.js';

describe('parseWorkerCount', () => {
  test('no value means one process', () => {
    assert.equal(parseWorkerCount(undefined), 1);
  });

  test('a whole number is taken as it is, surrounding blanks ignored', () => {
    assert.equal(parseWorkerCount('1'), 1);
    assert.equal(parseWorkerCount('4'), 4);
    assert.equal(parseWorkerCount(' 8 '), 8);
    assert.equal(parseWorkerCount(String(MAX_WORKERS)), MAX_WORKERS);
  });

  test('"auto" means one process per core, in any case', () => {
    assert.equal(
      parseWorkerCount('auto', () => 6),
      6,
    );
    assert.equal(
      parseWorkerCount('AUTO', () => 3),
      3,
    );
  });

  test('"auto" never asks for fewer than one or more than the maximum', () => {
    assert.equal(
      parseWorkerCount('auto', () => 0),
      1,
    );
    assert.equal(
      parseWorkerCount('auto', () => MAX_WORKERS * 2),
      MAX_WORKERS,
    );
  });

  test('anything else is a usage error that says what is allowed', () => {
    for (const bad of ['0', '-1', '1.5', 'two', '', '2x', '1e2', String(MAX_WORKERS + 1), '99999999999999999999']) {
      assert.throws(
        () => parseWorkerCount(bad),
        (err: unknown) => err instanceof UsageError && /whole number from 1 to \d+, or "auto"/.test(err.message),
        JSON.stringify(bad),
      );
    }
  });
});
