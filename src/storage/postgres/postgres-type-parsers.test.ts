import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { normaliseTime, normaliseTimestamp, postgresTypeParsers } from './postgres-type-parsers.js';

describe('PostgreSQL type parsers', () => {
  test('timestamps get exactly six fraction digits', () => {
    assert.equal(normaliseTimestamp('2031-02-28 10:00:00'), '2031-02-28 10:00:00.000000');
    assert.equal(normaliseTimestamp('2031-02-28 10:00:00.1'), '2031-02-28 10:00:00.100000');
    assert.equal(normaliseTimestamp('2031-02-28 10:00:00.123456'), '2031-02-28 10:00:00.123456');
    assert.equal(normaliseTimestamp('0001-01-01 00:00:00'), '0001-01-01 00:00:00.000000');
  });

  test('a UTC offset is dropped, and values that are not plain timestamps pass unchanged', () => {
    assert.equal(normaliseTimestamp('2031-02-28 10:00:00.5+00'), '2031-02-28 10:00:00.500000');
    assert.equal(normaliseTimestamp('2031-02-28 10:00:00+05:30'), '2031-02-28 10:00:00.000000');
    assert.equal(normaliseTimestamp('infinity'), 'infinity');
    assert.equal(normaliseTimestamp('0044-03-15 12:00:00 BC'), '0044-03-15 12:00:00.000000 BC');
  });

  test('times get exactly six fraction digits', () => {
    assert.equal(normaliseTime('09:05:00'), '09:05:00.000000');
    assert.equal(normaliseTime('23:59:59.9'), '23:59:59.900000');
  });

  test('bigint and numeric text become numbers, dates stay text, other types use the driver', () => {
    const { getTypeParser } = postgresTypeParsers();
    assert.equal(getTypeParser(20)('9007199254740991'), 9007199254740991);
    assert.equal(getTypeParser(1700)('12.500000000'), 12.5);
    assert.equal(getTypeParser(1082)('2031-02-28'), '2031-02-28');
    assert.equal(getTypeParser(23)('42'), 42);
    assert.equal(getTypeParser(16)('t'), true);
  });
});
