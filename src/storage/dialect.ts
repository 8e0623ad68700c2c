import type { Kysely } from 'kysely';
import type { Queryable } from './database.js';

/** Portable column kinds; each dialect maps them to its own DDL type. */
export type ColumnKind = 'varchar' | 'text' | 'int' | 'bigint' | 'decimal' | 'date' | 'datetime' | 'time' | 'json';

/** A column as the schema synchroniser wants it. */
export interface ColumnSpec {
  readonly kind: ColumnKind;
  /** For varchar: the maximum length. */
  readonly length?: number;
}

/** A column as the database reports it. */
export interface ExistingColumn {
  readonly name: string;
  /** The declared type in the dialect's own words, lower case (e.g. `varchar(140)`, `text`). */
  readonly type: string;
  /** For character columns with a limit. */
  readonly length?: number;
}

/**
 * What differs between SQL engines. Shared code calls these hooks; nothing outside storage/
 * asks which engine it is talking to.
 */
export interface Dialect {
  readonly name: 'sqlite' | 'postgres';
  /** A compile-only query builder for this dialect: build, `.compile()`, then run through a Queryable. */
  // biome-ignore lint/suspicious/noExplicitAny: a compile-only Kysely builder has no schema type (src/storage/compile-only.ts)
  readonly builder: Kysely<any>;
  /** The DDL type for a portable column kind. */
  columnType(spec: ColumnSpec): string;
  /** True when `existing` must be altered to hold values of `wanted` (only widening is ever done). */
  needsWidening(existing: ExistingColumn, wanted: ColumnSpec): boolean;
  /** The columns of a table, or an empty list when the table does not exist. */
  listColumns(q: Queryable, table: string): Promise<ExistingColumn[]>;
  /** The index names on a table. */
  listIndexes(q: Queryable, table: string): Promise<string[]>;
  /** Changes a column to the wanted type, or does nothing where the engine has no fixed widths. */
  widenColumn(q: Queryable, table: string, column: string, wanted: ColumnSpec): Promise<void>;
  /** The operator for a case-insensitive pattern match. */
  readonly likeOperator: 'like' | 'ilike';
  /** True when `SELECT ... FOR UPDATE` is meaningful (a write transaction already locks all of SQLite). */
  readonly supportsRowLocks: boolean;
}

/** Creating and dropping the database of a new site on a database server. */
export interface ServerDatabases {
  /** Creates the database a URL names when the server lacks it; true when it did. */
  ensure(url: string): Promise<boolean>;
  /** Drops a database that `ensure` created. */
  drop(url: string): Promise<void>;
}

/**
 * What differs between the engines before a database is open, for the site's lifecycle (creating,
 * backing up, describing). `engineOf(url)` and `engineNamed(name)` in open-database.ts pick one, so
 * code outside storage/ never compares engine names (docs/architecture.md "The folders of `src/`").
 */
export interface DatabaseEngine {
  readonly name: Dialect['name'];
  /** The archive member that holds a backup's dump of this engine. */
  readonly dumpMember: string;
  /**
   * The files that make up the database a resolved URL names (the main file first), when the
   * database is files of the site's disk; none for a server or an in-memory database.
   */
  databaseFiles(resolvedUrl: string): readonly string[];
  /** The database in words: engine and file, or engine and server, never a password. */
  describe(resolvedUrl: string): string;
  /** For a server engine: its databases are created for a new site (loaded when asked for). */
  readonly serverDatabases?: () => Promise<ServerDatabases>;
}
