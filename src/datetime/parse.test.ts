import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  addDays,
  addMonths,
  dayOfWeek,
  daysInMonth,
  displayDatetime,
  displayTime,
  endOfDay,
  formatStoredDatetime,
  normaliseDate,
  parseDate,
  parseDatetime,
  parseDatetimeParts,
  parseTime,
  partsFromEpoch,
  startOfDay,
} from './parse.js';

describe('parseDate', () => {
  const cases: [string, ReturnType<typeof parseDate>][] = [
    ['2024-02-29', { year: 2024, month: 2, day: 29 }],
    ['2000-02-29', { year: 2000, month: 2, day: 29 }],
    [' 2024-1-5 ', { year: 2024, month: 1, day: 5 }],
    ['9999-12-31', { year: 9999, month: 12, day: 31 }],
    ['2023-02-29', undefined],
    ['1900-02-29', undefined],
    ['2031-02-30', undefined],
    ['2024-04-31', undefined],
    ['2024-13-01', undefined],
    ['2024-00-10', undefined],
    ['0000-01-01', undefined],
    ['2024-01-01 10:00', undefined],
    ['24-01-01', undefined],
    ['', undefined],
    ['today', undefined],
  ];
  for (const [text, expected] of cases) {
    test(`parses ${JSON.stringify(text)} as ${JSON.stringify(expected)}`, () => {
      assert.deepEqual(parseDate(text), expected);
    });
  }

  test('knows the length of every month, leap years included', () => {
    assert.deepEqual(
      Array.from({ length: 12 }, (_, i) => daysInMonth(2024, i + 1)),
      [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31],
    );
    assert.equal(daysInMonth(2100, 2), 28);
  });
});

describe('parseTime', () => {
  const cases: [string, ReturnType<typeof parseTime>][] = [
    ['10:30', { hour: 10, minute: 30, second: 0, microsecond: 0 }],
    ['9:05:07', { hour: 9, minute: 5, second: 7, microsecond: 0 }],
    ['23:59:59.999999', { hour: 23, minute: 59, second: 59, microsecond: 999999 }],
    ['00:00:00.5', { hour: 0, minute: 0, second: 0, microsecond: 500000 }],
    ['24:00', undefined],
    ['12:60', undefined],
    ['12:00:60', undefined],
    ['12:00:00.1234567', undefined],
    ['12', undefined],
    ['noon', undefined],
  ];
  for (const [text, expected] of cases) {
    test(`parses ${JSON.stringify(text)} as ${JSON.stringify(expected)}`, () => {
      assert.deepEqual(parseTime(text), expected);
    });
  }
});

describe('parseDatetime', () => {
  const cases: [string, string, string | undefined][] = [
    ['2024-03-01', 'UTC', '2024-03-01 00:00:00.000000'],
    ['2024-03-01 10:20', 'UTC', '2024-03-01 10:20:00.000000'],
    ['2024-03-01 10:20:30', 'UTC', '2024-03-01 10:20:30.000000'],
    ['2024-03-01T10:20:30.123', 'UTC', '2024-03-01 10:20:30.123000'],
    ['2024-03-01 10:20:30.123456', 'Asia/Kolkata', '2024-03-01 10:20:30.123456'],
    ['2024-03-01T10:20:30Z', 'UTC', '2024-03-01 10:20:30.000000'],
    ['2024-03-01T20:00:00.250Z', 'Asia/Kolkata', '2024-03-02 01:30:00.250000'],
    ['2024-03-01T10:00:00+05:30', 'UTC', '2024-03-01 04:30:00.000000'],
    ['2024-03-01T10:00:00-0200', 'Europe/Berlin', '2024-03-01 13:00:00.000000'],
    ['2024-07-01T10:00:00+00:00', 'Europe/Berlin', '2024-07-01 12:00:00.000000'],
    ['2024-01-01T00:30:00+01:00', 'UTC', '2023-12-31 23:30:00.000000'],
    ['2031-02-30 10:00', 'UTC', undefined],
    ['2024-03-01 24:00', 'UTC', undefined],
    ['2024-03-01 10:00:00.1234567', 'UTC', undefined],
    ['2024-03-01Z', 'UTC', undefined],
    ['2024-03-01T10:00+25:00', 'UTC', undefined],
    ['0001-01-01T00:00:00+01:00', 'UTC', undefined],
    ['9999-12-31T23:00:00Z', 'UTC', '9999-12-31 23:00:00.000000'],
    ['9999-12-31T23:00:00Z', 'Asia/Tokyo', undefined],
    ['yesterday', 'UTC', undefined],
  ];
  for (const [text, zone, expected] of cases) {
    test(`turns ${JSON.stringify(text)} in ${zone} into ${JSON.stringify(expected)}`, () => {
      assert.equal(parseDatetime(text, zone), expected);
    });
  }

  test('reports the offset a text carried', () => {
    assert.equal(parseDatetimeParts('2024-03-01T10:00:00-03:30')?.offsetMinutes, -210);
    assert.equal(parseDatetimeParts('2024-03-01 10:00:00')?.offsetMinutes, undefined);
  });

  test('keeps years below 100 as written', () => {
    assert.equal(parseDatetime('0050-06-01T12:00:00Z', 'UTC'), '0050-06-01 12:00:00.000000');
  });
});

describe('normaliseDate', () => {
  test('truncates a datetime to its date, after converting an offset into the site zone', () => {
    assert.equal(normaliseDate('2024-03-01', 'UTC'), '2024-03-01');
    assert.equal(normaliseDate('2024-3-1 23:00:00', 'UTC'), '2024-03-01');
    assert.equal(normaliseDate('2024-03-01T23:00:00Z', 'Asia/Tokyo'), '2024-03-02');
    assert.equal(normaliseDate('2031-02-30', 'UTC'), undefined);
  });
});

describe('formatting', () => {
  test('stores six fraction digits and displays them only when not zero', () => {
    const parts = { year: 2024, month: 1, day: 2, hour: 3, minute: 4, second: 5, microsecond: 60 };
    assert.equal(formatStoredDatetime(parts), '2024-01-02 03:04:05.000060');
    assert.equal(displayDatetime('2024-01-02 03:04:05.000000'), '2024-01-02 03:04:05');
    assert.equal(displayDatetime('2024-01-02 03:04:05.000060'), '2024-01-02 03:04:05.000060');
    assert.equal(displayDatetime('2024-01-02 03:04:05.5'), '2024-01-02 03:04:05.500000');
    assert.equal(displayDatetime('2024-01-02T03:04:05'), '2024-01-02 03:04:05');
    assert.equal(displayDatetime('2024-01-02 03:04'), '2024-01-02 03:04:00');
    assert.equal(displayDatetime('garbage'), 'garbage');
  });

  test('displays times with two-digit hours and an optional fraction', () => {
    assert.equal(displayTime('09:05:00.000000'), '09:05:00');
    assert.equal(displayTime('9:05:00.25'), '09:05:00.250000');
    assert.equal(displayTime('bad'), 'bad');
  });

  test('gives wall-clock parts with microseconds from an epoch', () => {
    const ms = Date.UTC(2024, 0, 1, 12, 0, 0, 123);
    assert.deepEqual(partsFromEpoch(ms, 'America/New_York'), {
      year: 2024,
      month: 1,
      day: 1,
      hour: 7,
      minute: 0,
      second: 0,
      microsecond: 123000,
    });
  });
});

describe('date arithmetic', () => {
  test('adds days across month, year and leap-day boundaries', () => {
    assert.equal(addDays('2024-02-28', 1), '2024-02-29');
    assert.equal(addDays('2023-02-28', 1), '2023-03-01');
    assert.equal(addDays('2024-12-31', 1), '2025-01-01');
    assert.equal(addDays('2024-03-01', -1), '2024-02-29');
    assert.equal(addDays('2024-01-01', 366), '2025-01-01');
  });

  test('adds months clamping the day to the month length', () => {
    assert.equal(addMonths('2024-01-31', 1), '2024-02-29');
    assert.equal(addMonths('2023-01-31', 1), '2023-02-28');
    assert.equal(addMonths('2024-03-15', -3), '2023-12-15');
    assert.equal(addMonths('2024-11-30', 14), '2026-01-30');
  });

  test('knows the day of the week', () => {
    assert.equal(dayOfWeek('2024-03-03'), 0);
    assert.equal(dayOfWeek('2024-02-29'), 4);
  });

  test('refuses to do arithmetic on an invalid date', () => {
    assert.throws(() => addDays('2031-02-30', 1), RangeError);
  });

  test('bounds a day with its first and last stored timestamps', () => {
    assert.equal(startOfDay('2024-03-01'), '2024-03-01 00:00:00.000000');
    assert.equal(endOfDay('2024-03-01'), '2024-03-01 23:59:59.999999');
  });
});
