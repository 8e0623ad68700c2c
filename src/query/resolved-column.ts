import { sql, type RawBuilder } from 'kysely';
import { formatStoredDatetime, parseDatetimeParts, partsFromDriverDate } from '../datetime/parse.js';
import type { ResolvedField } from '../meta/meta.js';
import type { ColumnKind } from '../storage/dialect.js';

/** How values of a column compare: as text, numbers, or one of the temporal stored forms. */
export type ValueKind = 'text' | 'number' | 'date' | 'datetime' | 'time';

/** A column that metadata vouches for, with what filters and output need to know about it. */
export interface ResolvedColumn {
  /** The quoted `"alias"."column"` reference. */
  readonly expr: RawBuilder<unknown>;
  /** `alias.column`: two references are the same column exactly when their identities match. */
  readonly identity: string;
  /** The column's own name: the output key unless the select item renames it. */
  readonly name: string;
  readonly kind: ValueKind;
  /** What NULL stands for in `!=`, `not in` and comparisons (docs/api.md "Lists"). */
  readonly emptyValue: string | number;
  /** For integer columns, the largest magnitude they hold (a bigger or fractional filter value is refused). */
  readonly integerLimit?: number;
  /** False for the standard columns, which the document layer always fills. */
  readonly nullable: boolean;
  /** Turns a driver value into its JSON form. */
  readonly convert?: (value: unknown) => unknown;
}

const KIND_OF_COLUMN: Readonly<Record<ColumnKind, ValueKind>> = {
  varchar: 'text',
  text: 'text',
  json: 'text',
  int: 'number',
  bigint: 'number',
  decimal: 'number',
  date: 'date',
  datetime: 'datetime',
  time: 'time',
};

const EMPTY_OF_KIND: Readonly<Record<ValueKind, string | number>> = {
  text: '',
  number: 0,
  date: '0001-01-01',
  datetime: '0001-01-01 00:00:00.000000',
  time: '00:00:00.000000',
};

function asText(value: unknown): unknown {
  return value === null || value === undefined ? value : String(value);
}

function asNumber(value: unknown): unknown {
  if (typeof value === 'string' || typeof value === 'bigint') return Number(value);
  return value;
}

/** A timestamp already in the stored form, which parsing and formatting again would give back unchanged. */
const STORED_TIMESTAMP = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}$/;

/** `creation` and `modified` always carry six fraction digits (docs/api.md "Requests and answers"). */
function asStoredTimestamp(value: unknown): unknown {
  if (value instanceof Date) return formatStoredDatetime(partsFromDriverDate(value));
  if (typeof value !== 'string') return value;
  // Every row fw wrote: no parse per row and column of a list (docs/benchmarks.md).
  if (STORED_TIMESTAMP.test(value)) return value;
  const parsed = parseDatetimeParts(value);
  return parsed ? formatStoredDatetime(parsed.parts) : value;
}

const INT_LIMIT = 2 ** 31 - 1;

const INTEGER_LIMITS: Partial<Record<ColumnKind, number>> = {
  int: INT_LIMIT,
  bigint: Number.MAX_SAFE_INTEGER,
};

const STANDARD_KINDS: Readonly<Record<string, ValueKind>> = {
  creation: 'datetime',
  modified: 'datetime',
  docstatus: 'number',
  idx: 'number',
};

const CONVERT_OF_KIND: Partial<Record<ValueKind, (value: unknown) => unknown>> = {
  text: asText,
  number: asNumber,
  datetime: asStoredTimestamp,
};

/** A standard column (`name`, `owner`, `creation`, ..., `parent`) of the table under `alias`. */
export function standardColumn(alias: string, column: string): ResolvedColumn {
  const kind = STANDARD_KINDS[column] ?? 'text';
  return {
    expr: sql.id(alias, column),
    identity: `${alias}.${column}`,
    name: column,
    kind,
    emptyValue: EMPTY_OF_KIND[kind],
    ...(kind === 'number' ? { integerLimit: INT_LIMIT } : {}),
    nullable: false,
    convert: CONVERT_OF_KIND[kind],
  };
}

/** The column of a value field of the table under `alias`. */
export function fieldColumn(alias: string, field: ResolvedField): ResolvedColumn {
  const { def, type } = field;
  const kind: ValueKind = type.numeric ? 'number' : KIND_OF_COLUMN[field.column?.kind ?? 'text'];
  const fromDb = type.fromDb;
  const integerLimit = field.column ? INTEGER_LIMITS[field.column.kind] : undefined;
  return {
    expr: sql.id(alias, def.fieldname),
    identity: `${alias}.${def.fieldname}`,
    name: def.fieldname,
    kind,
    emptyValue: type.emptyValue ?? EMPTY_OF_KIND[kind],
    ...(integerLimit === undefined ? {} : { integerLimit }),
    nullable: true,
    convert: fromDb && ((value) => (value === null || value === undefined ? null : fromDb.call(type, value, def))),
  };
}
