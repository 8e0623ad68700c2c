import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { previousNextRange, timespanRange, TIMESPANS } from './ranges.js';
import { FwError } from '../errors/index.js';

// 2025-05-14 is a Wednesday in the second quarter.
const TODAY = '2025-05-14';
const range = (k: string, today = TODAY) => timespanRange(k, 'UTC', today);

describe('timespanRange', () => {
  const cases: [string, string, string][] = [
    ['yesterday', '2025-05-13', '2025-05-13'],
    ['today', '2025-05-14', '2025-05-14'],
    ['tomorrow', '2025-05-15', '2025-05-15'],
    ['this week', '2025-05-11', '2025-05-17'],
    ['last week', '2025-05-04', '2025-05-10'],
    ['next week', '2025-05-18', '2025-05-24'],
    ['this month', '2025-05-01', '2025-05-31'],
    ['last month', '2025-04-01', '2025-04-30'],
    ['next month', '2025-06-01', '2025-06-30'],
    ['this quarter', '2025-04-01', '2025-06-30'],
    ['last quarter', '2025-01-01', '2025-03-31'],
    ['next quarter', '2025-07-01', '2025-09-30'],
    ['last 6 months', '2024-10-01', '2025-03-31'],
    ['next 6 months', '2025-07-01', '2025-12-31'],
    ['this year', '2025-01-01', '2025-12-31'],
    ['last year', '2024-01-01', '2024-12-31'],
    ['next year', '2026-01-01', '2026-12-31'],
    ['last 7 days', '2025-05-07', '2025-05-14'],
    ['last 14 days', '2025-04-30', '2025-05-14'],
    ['last 30 days', '2025-04-14', '2025-05-14'],
    ['last 90 days', '2025-02-13', '2025-05-14'],
    ['next 7 days', '2025-05-14', '2025-05-21'],
    ['next 14 days', '2025-05-14', '2025-05-28'],
    ['next 30 days', '2025-05-14', '2025-06-13'],
  ];
  for (const [keyword, from, to] of cases) {
    test(`maps "${keyword}" to ${from} .. ${to}`, () => {
      assert.deepEqual(range(keyword), [from, to]);
    });
  }

  test('covers every keyword it advertises', () => {
    assert.deepEqual(new Set(cases.map((c) => c[0])), new Set(TIMESPANS));
  });

  test('starts weeks on Sunday, so a Sunday opens its own week', () => {
    assert.deepEqual(range('this week', '2025-05-11'), ['2025-05-11', '2025-05-17']);
    assert.deepEqual(range('this week', '2025-05-17'), ['2025-05-11', '2025-05-17']);
  });

  test('honours another first day of the week', () => {
    assert.deepEqual(timespanRange('this week', 'UTC', '2025-05-11', 1), ['2025-05-05', '2025-05-11']);
  });

  test('crosses year boundaries and leap days', () => {
    assert.deepEqual(range('last month', '2025-01-10'), ['2024-12-01', '2024-12-31']);
    assert.deepEqual(range('next quarter', '2025-11-30'), ['2026-01-01', '2026-03-31']);
    assert.deepEqual(range('last month', '2024-03-31'), ['2024-02-01', '2024-02-29']);
    assert.deepEqual(range('last year', '2024-02-29'), ['2023-01-01', '2023-12-31']);
  });

  test('accepts keywords in any case and spacing', () => {
    assert.deepEqual(range('  Last   Month '), ['2025-04-01', '2025-04-30']);
  });

  test('refuses an unknown keyword with a DataError naming it', () => {
    assert.throws(
      () => range('fortnight'),
      (err: unknown) => err instanceof FwError && err.excType === 'DataError' && err.message.includes('fortnight'),
    );
    assert.throws(
      () => range(5 as unknown as string),
      (err: unknown) => err instanceof FwError && err.status === 417,
    );
  });

  test('uses today in the given time zone when no date is given', () => {
    const [from, to] = timespanRange('today', 'Pacific/Kiritimati');
    assert.equal(from, to);
    assert.match(from, /^\d{4}-\d{2}-\d{2}$/);
  });
});

describe('previousNextRange', () => {
  test('maps previous periods to the matching last timespan', () => {
    assert.deepEqual(previousNextRange('previous', '1 week', 'UTC', TODAY), range('last week'));
    assert.deepEqual(previousNextRange('previous', '1 month', 'UTC', TODAY), range('last month'));
    assert.deepEqual(previousNextRange('previous', '3 months', 'UTC', TODAY), range('last quarter'));
    assert.deepEqual(previousNextRange('previous', '6 months', 'UTC', TODAY), range('last 6 months'));
    assert.deepEqual(previousNextRange('previous', '1 year', 'UTC', TODAY), range('last year'));
  });

  test('maps next periods to the matching next timespan', () => {
    assert.deepEqual(previousNextRange('next', '1 week', 'UTC', TODAY), range('next week'));
    assert.deepEqual(previousNextRange('next', '3 months', 'UTC', TODAY), range('next quarter'));
    assert.deepEqual(previousNextRange('next', '1 year', 'UTC', TODAY), range('next year'));
  });

  test('refuses any other period, including inherited object keys', () => {
    for (const bad of ['2 weeks', 'constructor', '', null]) {
      assert.throws(
        () => previousNextRange('next', bad, 'UTC', TODAY),
        (err: unknown) => err instanceof FwError && err.excType === 'DataError',
      );
    }
  });
});
