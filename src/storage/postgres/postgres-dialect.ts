import { PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, sql, ValueNode, type LimitNode, type OffsetNode, type OperationNode } from 'kysely';
import type { Queryable } from '../database.js';
import type { ColumnSpec, Dialect, ExistingColumn } from '../dialect.js';
import { compileOnlyBuilder } from '../compile-only.js';

const DEFAULT_VARCHAR_LENGTH = 140;

/*
 * Character columns use the "C" collation so that ORDER BY and comparisons follow code points, as
 * SQLite's default BINARY collation does ('B' < 'a'); results then sort the same on both engines.
 * JSON is kept as text: it round-trips exactly as written (jsonb would reorder keys and drop
 * duplicates), and the JSON field type parses it on the way out on either engine.
 */
const FIXED_TYPES: Record<Exclude<ColumnSpec['kind'], 'varchar'>, string> = {
  text: 'text collate "C"',
  int: 'integer',
  bigint: 'bigint',
  decimal: 'numeric(21,9)',
  date: 'date',
  datetime: 'timestamp(6)',
  time: 'time(6)',
  json: 'text',
};

interface InformationSchemaColumn {
  name: string;
  data_type: string;
  character_maximum_length: number | null;
  numeric_precision: number | null;
  numeric_scale: number | null;
  datetime_precision: number | null;
}

/** The declared type in the words columnType uses (`varchar(140)`, `numeric(21,9)`, `timestamp(6)`). */
function declaredType(c: InformationSchemaColumn): string {
  switch (c.data_type) {
    case 'character varying':
      return c.character_maximum_length === null ? 'varchar' : `varchar(${c.character_maximum_length})`;
    case 'numeric':
      return c.numeric_precision === null ? 'numeric' : `numeric(${c.numeric_precision},${c.numeric_scale ?? 0})`;
    case 'timestamp without time zone':
      return `timestamp(${c.datetime_precision ?? 6})`;
    case 'time without time zone':
      return `time(${c.datetime_precision ?? 6})`;
    default:
      return c.data_type.toLowerCase();
  }
}

/**
 * Writes a LIMIT or OFFSET that is a whole number as a literal, not a bound parameter. Statements
 * are kept prepared by name (prepared-statements.ts), and for a prepared statement PostgreSQL may
 * settle on a generic plan, made without the values: with the limit unknown it assumes a few rows
 * and prefers walking an index in the ORDER BY's order, filtering as it goes (measured: 1.7 ms
 * against 0.06 ms for the bench's list page, docs/benchmarks.md "Prepared statements on
 * PostgreSQL"). A page size is part of what makes a list request distinct anyway.
 */
class PostgresCompiler extends PostgresQueryCompiler {
  protected override visitLimit(node: LimitNode): void {
    if (!this.#literal('limit ', node.limit)) super.visitLimit(node);
  }

  protected override visitOffset(node: OffsetNode): void {
    if (!this.#literal('offset ', node.offset)) super.visitOffset(node);
  }

  #literal(keyword: string, node: OperationNode): boolean {
    if (!ValueNode.is(node) || !Number.isSafeInteger(node.value) || (node.value as number) < 0) return false;
    this.append(keyword);
    this.append(String(node.value));
    return true;
  }
}

/**
 * PostgreSQL: fixed column types, so a varchar that is too short for a field's new length is
 * widened in place. Only the current schema (the connection's search_path) is looked at.
 */
export class PostgresDialect implements Dialect {
  readonly name = 'postgres' as const;
  readonly likeOperator = 'ilike' as const;
  readonly supportsRowLocks = true;
  readonly builder = compileOnlyBuilder({
    adapter: () => new PostgresAdapter(),
    compiler: () => new PostgresCompiler(),
    introspector: (db) => new PostgresIntrospector(db),
  });

  columnType(spec: ColumnSpec): string {
    if (spec.kind === 'varchar') return `varchar(${spec.length ?? DEFAULT_VARCHAR_LENGTH}) collate "C"`;
    return FIXED_TYPES[spec.kind];
  }

  needsWidening(existing: ExistingColumn, wanted: ColumnSpec): boolean {
    if (!existing.type.startsWith('varchar')) return false;
    if (wanted.kind === 'text' || wanted.kind === 'json') return true;
    if (wanted.kind !== 'varchar' || existing.length === undefined) return false;
    return existing.length < (wanted.length ?? DEFAULT_VARCHAR_LENGTH);
  }

  async widenColumn(q: Queryable, table: string, column: string, wanted: ColumnSpec): Promise<void> {
    const type = sql.raw(this.columnType(wanted));
    await q.run(
      this.builder.schema
        .alterTable(table)
        .alterColumn(column, (c) => c.setDataType(type))
        .compile(),
    );
  }

  async listColumns(q: Queryable, table: string): Promise<ExistingColumn[]> {
    const rows = await q.all<InformationSchemaColumn>(
      sql`select column_name as name, data_type, character_maximum_length, numeric_precision, numeric_scale,
            datetime_precision
          from information_schema.columns
          where table_schema = current_schema() and table_name = ${table}
          order by ordinal_position`.compile(this.builder),
    );
    return rows.map((r) => {
      const length = r.character_maximum_length ?? undefined;
      return length === undefined ? { name: r.name, type: declaredType(r) } : { name: r.name, type: declaredType(r), length };
    });
  }

  async listIndexes(q: Queryable, table: string): Promise<string[]> {
    const rows = await q.all<{ name: string }>(
      sql`select indexname as name from pg_indexes
          where schemaname = current_schema() and tablename = ${table}
          order by indexname`.compile(this.builder),
    );
    return rows.map((r) => r.name);
  }
}
