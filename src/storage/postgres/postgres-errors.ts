import { CharacterLengthExceededError, DataError, MandatoryError, ServiceUnavailableError } from '../../errors/index.js';
import { readOnlyRefusal } from '../read-only-refusal.js';
import { uniqueViolation } from '../unique-violation.js';

/** The fields of a node-postgres error we read; see PostgreSQL's "Error Message Fields". */
interface PgDriverError {
  code?: string;
  /** ERROR for a failed statement, FATAL or PANIC when the server ends the session. */
  severity?: string;
  message?: string;
  detail?: string;
  constraint?: string;
  table?: string;
  column?: string;
}

/*
 * What this dialect cannot detect, so callers must not rely on it:
 * - The column of a unique violation when the server hides `detail` (a role without SELECT on the
 *   table, row-level security) and the constraint name does not follow `<table>_<column>_key`:
 *   the violation is then reported as a duplicate name (DuplicateEntryError).
 * - For a unique constraint over several columns, only the first column is reported (as on SQLite).
 * - Whether a transaction committed when the connection drops during COMMIT: the client sees
 *   ServiceUnavailableError though the commit may have happened.
 * - After any failed statement PostgreSQL refuses the rest of the transaction, so code that catches
 *   a database error inside a transaction cannot carry on there (SQLite would let it).
 * - Undefined tables and columns (42P01, 42703) are programming errors and stay untranslated (500).
 */

const NODE_NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'EPIPE']);

const CONNECTION_MESSAGES = [/timeout exceeded when trying to connect/i, /connection terminated/i, /query read timeout/i, /not queryable/i];

/** SQLSTATEs of a serialization failure and a deadlock: the whole transaction may be run again. */
const RETRYABLE_CODES = new Set(['40001', '40P01']);

function fields(err: unknown): PgDriverError {
  return typeof err === 'object' && err !== null ? (err as PgDriverError) : {};
}

/**
 * True when `err` means the connection (not the statement) failed; the connection is then discarded.
 * A server error of severity ERROR failed one statement and left the session usable, whatever its
 * class: 08P01 (protocol violation) is what the server answers a Bind message with more
 * parameters than the protocol carries, a bad request rather than a lost connection.
 */
export function isConnectionFailure(err: unknown): boolean {
  const e = fields(err);
  const code = e.code ?? '';
  if (NODE_NETWORK_CODES.has(code)) return true;
  if (e.severity === 'ERROR') return false;
  if (code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03' || code === '53300') {
    return true;
  }
  return code === '' && CONNECTION_MESSAGES.some((re) => re.test(e.message ?? ''));
}

/** True when `err`, or an error in its cause chain, is a serialization failure or a deadlock. */
export function isRetryableConflict(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (RETRYABLE_CODES.has(fields(e).code ?? '')) return true;
  }
  return false;
}

/** The column a unique violation hit: from `Key (col)=(value) already exists`, else from the constraint name. */
function uniqueColumn(e: PgDriverError): string | undefined {
  const fromDetail = /^Key \(("?)([^,)]+)\1[,)]/.exec(e.detail ?? '')?.[2];
  if (fromDetail) return fromDetail;
  const constraint = e.constraint ?? '';
  if (constraint.endsWith('_pkey')) return 'name';
  if (e.table && constraint.startsWith(`${e.table}_`) && constraint.endsWith('_key')) {
    return constraint.slice(e.table.length + 1, -'_key'.length);
  }
  return undefined;
}

/** Translates a node-postgres error into a domain error, or returns it unchanged. */
export function translatePostgresError(err: unknown): unknown {
  const e = fields(err);
  const code = e.code ?? '';
  // 25006: a write inside a read-only transaction, i.e. inside a read unit.
  if (code === '25006') return readOnlyRefusal(err);
  if (code === '23505') return uniqueViolation(e.table, uniqueColumn(e), err);
  if (code === '23502') {
    const column = e.column ?? 'A value';
    return new MandatoryError(`${column} is mandatory`, { details: { table: e.table, column: e.column }, cause: err });
  }
  // SQLite has no widths or strict types, so these never happen there; validation should catch them first.
  if (code === '22001') {
    return new CharacterLengthExceededError('Value too long for its column', { cause: err });
  }
  if (code === '22003' || code === '22007' || code === '22008' || code === '22P02') {
    return new DataError('Value does not fit its column type', { cause: err });
  }
  // 22021: a NUL character or bad UTF-8 in a value (PostgreSQL text cannot hold NUL); 22P05: an
  // untranslatable character.
  if (code === '22021' || code === '22P05') {
    return new DataError('A value holds a character the database cannot store (such as NUL)', { cause: err });
  }
  // Every other data exception (class 22: division by zero, bad escape, out-of-range values...)
  // comes from a value the client sent, never from a lost connection or a bug in the SQL text.
  if (code.startsWith('22')) return new DataError('Invalid value in the request', { cause: err });
  if (RETRYABLE_CODES.has(code) || code === '55P03') {
    return new ServiceUnavailableError('The database is busy; try again', { cause: err });
  }
  if (code === '57014') {
    return new ServiceUnavailableError('The database took too long to answer', { cause: err });
  }
  if (isConnectionFailure(err)) return new ServiceUnavailableError('Database unavailable', { cause: err });
  return err;
}
