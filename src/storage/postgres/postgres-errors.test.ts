import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FwError } from '../../errors/index.js';
import { isConnectionFailure, isRetryableConflict, translatePostgresError } from './postgres-errors.js';

function pgError(fields: Record<string, string>): Error {
  return Object.assign(new Error(fields.message ?? 'driver error'), fields);
}

function translated(fields: Record<string, string>): FwError {
  const err = translatePostgresError(pgError(fields));
  assert.ok(err instanceof FwError, `expected a domain error, got ${String(err)}`);
  return err;
}

describe('PostgreSQL error translation', () => {
  test('a unique violation names the column from the detail', () => {
    const err = translated({ code: '23505', table: 'tabUser', constraint: 'x', detail: 'Key (email)=(a@b.c) already exists.' });
    assert.equal(err.excType, 'UniqueValidationError');
    assert.deepEqual(err.details, { table: 'tabUser', column: 'email' });
  });

  test('a quoted column name in the detail is unquoted', () => {
    const err = translated({ code: '23505', table: 't', detail: 'Key ("firstName", x)=(a, b) already exists.' });
    assert.equal(err.details.column, 'firstName');
  });

  test('a primary-key violation without detail is a duplicate name', () => {
    const err = translated({ code: '23505', table: 'tabToDo', constraint: 'tabToDo_pkey' });
    assert.equal(err.excType, 'DuplicateEntryError');
    assert.equal(err.status, 409);
  });

  test('without detail the column comes from a <table>_<column>_key constraint name', () => {
    const err = translated({ code: '23505', table: 'tabUser', constraint: 'tabUser_api_key_key' });
    assert.equal(err.details.column, 'api_key');
  });

  test('a not-null violation is a MandatoryError naming the column', () => {
    const err = translated({ code: '23502', table: 'tabToDo', column: 'status' });
    assert.equal(err.excType, 'MandatoryError');
    assert.equal(err.details.column, 'status');
  });

  test('refused, terminated and timed-out connections are 503 Database unavailable', () => {
    const cases: Record<string, string>[] = [
      { code: 'ECONNREFUSED' },
      { code: '57P01' },
      { code: '57P03' },
      { code: '08006' },
      { message: 'timeout exceeded when trying to connect' },
      { message: 'Connection terminated unexpectedly' },
    ];
    for (const fields of cases) {
      const err = translated(fields);
      assert.equal(err.status, 503, JSON.stringify(fields));
      assert.equal(err.message, 'Database unavailable');
    }
  });

  test('serialization failures and deadlocks are retryable, also when wrapped', () => {
    assert.equal(isRetryableConflict(pgError({ code: '40001' })), true);
    assert.equal(isRetryableConflict(translatePostgresError(pgError({ code: '40P01' }))), true);
    assert.equal(isRetryableConflict(pgError({ code: '23505' })), false);
  });

  test('undefined tables and columns stay untranslated', () => {
    for (const code of ['42P01', '42703']) {
      const raw = pgError({ code });
      assert.equal(translatePostgresError(raw), raw);
    }
  });

  test('a NUL or untranslatable character, and any other data exception, is a 417 DataError', () => {
    for (const code of ['22021', '22P05', '22012', '22025', '2201B']) {
      const err = translated({ code, severity: 'ERROR', message: 'invalid byte sequence for encoding "UTF8": 0x00' });
      assert.equal(err.excType, 'DataError', code);
      assert.equal(err.status, 417, code);
    }
  });

  test('a statement-level protocol violation is not a lost connection', () => {
    const raw = pgError({ code: '08P01', severity: 'ERROR', message: 'bind message has 4464 parameter formats but 0 parameters' });
    assert.equal(isConnectionFailure(raw), false);
    assert.equal(translatePostgresError(raw), raw);
    assert.equal(isConnectionFailure(pgError({ code: '08P01', severity: 'FATAL' })), true);
    assert.equal(isConnectionFailure(pgError({ code: '57P01', severity: 'FATAL' })), true);
  });
});
