import type { DocContext } from '../documents/doc-context.js';
import { PermissionError } from '../errors/index.js';
import type { Queryable, SqlStatement } from '../storage/database.js';

/** Statements that only read: a query, a CTE query, EXPLAIN, SHOW, VALUES, a pragma read. */
const READING = /^\s*(?:\(\s*)*(select|with|explain|show|values|pragma\s+\w+\s*$)/i;
/** Quoted identifiers and string literals, which may spell any word without being SQL. */
const QUOTED = /"(?:[^"]|"")*"|'(?:[^']|'')*'|`[^`]*`/g;
/** A data-modifying statement inside a CTE (PostgreSQL's `WITH x AS (INSERT ...)`). */
const WRITING_WORD = /\b(insert|update|delete|merge|replace)\b/i;

/** True when `sql` only reads. */
export function onlyReads(sql: string): boolean {
  const match = READING.exec(sql);
  if (!match) return false;
  return match[1].toLowerCase() !== 'with' || !WRITING_WORD.test(sql.replace(QUOTED, ''));
}

/** Why a GET call may not write, with what the client should do instead. */
export function writeOnGet(what: string): PermissionError {
  return new PermissionError(`${what} cannot change data when called with GET; use POST`, {
    details: { readOnlyRequest: true },
    messages: [{ message: `${what} changes data, so it must be called with POST (GET calls are read-only)`, title: 'Not permitted' }],
  });
}

/** True when `err` is a write refused because its unit of work was read-only (see the storage translations). */
export function isReadOnlyRefusal(err: unknown): boolean {
  return err instanceof PermissionError && err.details.readOnlyRequest === true;
}

/**
 * The context of a GET call with every writing statement refused before it reaches the database.
 * GET calls run read-only (API.md "Methods"), but a read unit is not a read-only transaction on
 * every dialect (on PostgreSQL its statements autocommit), so a handler that writes would store
 * its change; refusing here gives the same clean 403 on every dialect and stores nothing.
 */
export function readOnlyContext(ctx: DocContext, what: string): DocContext {
  const check = (s: SqlStatement): void => {
    if (!onlyReads(s.sql)) throw writeOnGet(what);
  };
  const inner = ctx.q;
  const q: Queryable = {
    async all<T>(s: SqlStatement) {
      check(s);
      return inner.all<T>(s);
    },
    async run(s: SqlStatement) {
      check(s);
      return inner.run(s);
    },
    iterate<T>(s: SqlStatement) {
      check(s);
      return inner.iterate<T>(s);
    },
  };
  return { ...ctx, q };
}
