import { sql, SqliteAdapter, SqliteIntrospector } from 'kysely';
import type { Queryable } from '../database.js';
import type { ColumnSpec, Dialect, ExistingColumn } from '../dialect.js';
import { compileOnlyBuilder } from '../compile-only.js';
import { FwSqliteQueryCompiler } from './sqlite-query-compiler.js';

const COLUMN_TYPES: Record<ColumnSpec['kind'], string> = {
  varchar: 'text',
  text: 'text',
  int: 'integer',
  bigint: 'integer',
  decimal: 'real',
  date: 'text',
  datetime: 'text',
  time: 'text',
  json: 'text',
};

/**
 * SQLite: dynamic typing, so every column kind maps to one of three storage classes and no column
 * ever needs widening. Dates and timestamps are stored as text in their output format, which sorts
 * and compares correctly as text.
 */
export class SqliteDialect implements Dialect {
  readonly name = 'sqlite' as const;
  readonly likeOperator = 'like' as const;
  readonly supportsRowLocks = false;
  readonly builder = compileOnlyBuilder({
    adapter: () => new SqliteAdapter(),
    compiler: () => new FwSqliteQueryCompiler(),
    introspector: (db) => new SqliteIntrospector(db),
  });

  columnType(spec: ColumnSpec): string {
    return COLUMN_TYPES[spec.kind];
  }

  needsWidening(): boolean {
    return false;
  }

  async widenColumn(): Promise<void> {}

  async listColumns(q: Queryable, table: string): Promise<ExistingColumn[]> {
    const rows = await q.all<{ name: string; type: string }>(sql`select name, type from pragma_table_info(${table})`.compile(this.builder));
    return rows.map((r) => ({ name: r.name, type: r.type.toLowerCase() }));
  }

  async listIndexes(q: Queryable, table: string): Promise<string[]> {
    const rows = await q.all<{ name: string }>(sql`select name from pragma_index_list(${table})`.compile(this.builder));
    return rows.map((r) => r.name);
  }
}
