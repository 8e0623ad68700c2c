import type { Filter, ListSpec } from './baseline-sql.js';

/** A database row as plain values. */
export type Row = Record<string, unknown>;

/**
 * The baseline's whole data layer over the fw site's `tabToDo`: the few statements its endpoints
 * need, nothing else. One implementation per engine.
 */
export interface BaselineStore {
  readonly engine: 'sqlite' | 'postgres';
  getOne(name: string): Promise<Row | undefined>;
  list(spec: ListSpec): Promise<Row[]>;
  count(filters: readonly Filter[]): Promise<number>;
  /** Inserts all rows in one transaction. */
  insert(rows: readonly Row[]): Promise<void>;
  /** Updates one row and reads it back; undefined when no row has that name. */
  update(name: string, values: Row): Promise<Row | undefined>;
  /** Deletes the matching rows; resolves with how many went. */
  remove(filters: readonly Filter[]): Promise<number>;
  /**
   * Brings the planner's statistics up to date after a bulk load: what PostgreSQL's autovacuum
   * does on its own within a minute; nothing on SQLite, which never gathers them unasked.
   */
  settle(): Promise<void>;
  close(): Promise<void>;
}

/** The table every bench scenario works on. */
export const TABLE = 'tabToDo';

/** Opens a store for `sqlite:<file>` or `postgres://...`. */
export async function openBaselineStore(url: string): Promise<BaselineStore> {
  if (url.startsWith('sqlite:')) {
    const { SqliteBaselineStore } = await import('./baseline-sqlite.js');
    return SqliteBaselineStore.open(url.slice('sqlite:'.length));
  }
  if (/^postgres(ql)?:\/\//.test(url)) {
    const { PostgresBaselineStore } = await import('./baseline-postgres.js');
    return PostgresBaselineStore.open(url);
  }
  throw new Error(`baseline: unsupported database URL ${url}`);
}
