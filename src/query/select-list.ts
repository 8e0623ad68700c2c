import { sql, type RawBuilder } from 'kysely';
import { DataError } from '../errors/index.js';
import { MAX_COLUMNS } from './list-limits.js';
import { refText, type SelectItem } from './list-query.js';
import type { QueryScope } from './query-scope.js';
import type { ResolvedColumn } from './resolved-column.js';

/** One resolved item of the select list. */
export interface Selection {
  /** The JSON key: the alias, else the column's own name (docs/api.md). */
  readonly key: string;
  /** The SQL alias: the key when it is a safe, unused identifier, else a generated one. */
  readonly column: string;
  /** The alias the request gave, which order_by may name. */
  readonly alias: string | undefined;
  readonly expr: RawBuilder<unknown>;
  /** The column's identity, for group_by checks; undefined for aggregates. */
  readonly identity: string | undefined;
  readonly nullable: boolean;
  readonly aggregate: boolean;
  readonly convert?: (value: unknown) => unknown;
}

type Draft = Omit<Selection, 'column'>;

// PostgreSQL truncates identifiers past 63 bytes, which would lose the key.
const SAFE_ALIAS = /^\w{1,63}$/;

function toNumber(value: unknown): unknown {
  if (typeof value === 'string' || typeof value === 'bigint') return Number(value);
  return value;
}

function fieldDraft(column: ResolvedColumn, alias: string | undefined): Draft {
  return {
    key: alias ?? column.name,
    alias,
    expr: column.expr,
    identity: column.identity,
    nullable: column.nullable,
    aggregate: false,
    convert: column.convert,
  };
}

function aggregateDraft(item: Extract<SelectItem, { kind: 'aggregate' }>, scope: QueryScope): Draft {
  const key = item.alias ?? `${item.fn}(${item.arg ? refText(item.arg) : '*'})`;
  const base = { key, alias: item.alias, identity: undefined, nullable: true, aggregate: true };
  if (item.arg === undefined) return { ...base, expr: sql`count(*)`, nullable: false, convert: toNumber };
  const column = scope.resolve(item.arg);
  if ((item.fn === 'sum' || item.fn === 'avg') && column.kind !== 'number') {
    throw new DataError(`${item.fn} needs a numeric field: ${refText(item.arg)}`);
  }
  // The function name comes from the fixed list of aggregates, never from request text.
  const expr = sql`${sql.raw(item.fn)}(${column.expr})`;
  if (item.fn === 'count') return { ...base, expr, nullable: false, convert: toNumber };
  return { ...base, expr, convert: item.fn === 'sum' || item.fn === 'avg' ? toNumber : column.convert };
}

/**
 * Resolves the select list: `*` expands to the DocType's columns, fields the caller may not read
 * are dropped (as the reference does), and each item gets a distinct SQL alias. More than
 * {@link MAX_COLUMNS} columns is a DataError (the engines' own limits are 1664 and 2000).
 */
export function selectList(items: readonly SelectItem[], scope: QueryScope): Selection[] {
  const drafts: Draft[] = [];
  for (const item of items) {
    if (item.kind === 'all') {
      drafts.push(...scope.allColumns().map((c) => fieldDraft(c, undefined)));
    } else if (item.kind === 'field') {
      const column = scope.resolveSelected(item.ref);
      if (column) drafts.push(fieldDraft(column, item.alias));
    } else if (item.kind === 'aggregate') {
      drafts.push(aggregateDraft(item, scope));
    }
    // Nested child tables are read by their own statements (child-rows.ts).
    if (drafts.length > MAX_COLUMNS) throw new DataError(`fields select more than ${MAX_COLUMNS} columns`);
  }
  const used = new Set<string>();
  return drafts.map((d, i) => {
    let column = d.key;
    for (let n = i; !SAFE_ALIAS.test(column) || used.has(column); n++) column = `_c${n}`;
    used.add(column);
    return { ...d, column };
  });
}
