import BetterSqlite3 from 'better-sqlite3';
import { countSql, deleteSql, insertSql, listSql, updateSql, type Filter, type ListSpec, type Sql } from './baseline-sql.js';
import { TABLE, type BaselineStore, type Row } from './baseline-store.js';

const placeholder = () => '?';

/** The baseline on better-sqlite3: one connection, the same pragmas fw uses, prepared statements cached. */
export class SqliteBaselineStore implements BaselineStore {
  readonly engine = 'sqlite';
  readonly #db: BetterSqlite3.Database;
  readonly #columns: ReadonlySet<string>;
  readonly #statements = new Map<string, BetterSqlite3.Statement>();

  private constructor(db: BetterSqlite3.Database) {
    this.#db = db;
    const info = db.prepare(`select name from pragma_table_info('${TABLE}')`).all() as { name: string }[];
    if (info.length === 0) throw new Error(`baseline: no table ${TABLE} in the database`);
    this.#columns = new Set(info.map((c) => c.name));
  }

  /** Opens the fw site's database file read/write. */
  static open(file: string): SqliteBaselineStore {
    const db = new BetterSqlite3(file, { fileMustExist: true, timeout: 5000 });
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('cache_size = -32000');
    return new SqliteBaselineStore(db);
  }

  #prepare(sql: Sql): BetterSqlite3.Statement {
    let stmt = this.#statements.get(sql.text);
    if (!stmt) {
      stmt = this.#db.prepare(sql.text);
      this.#statements.set(sql.text, stmt);
    }
    return stmt;
  }

  async getOne(name: string): Promise<Row | undefined> {
    return this.#prepare({ text: `select * from "${TABLE}" where "name" = ?`, params: [] }).get(name) as Row | undefined;
  }

  async list(spec: ListSpec): Promise<Row[]> {
    const sql = listSql(TABLE, this.#columns, spec, placeholder);
    return this.#prepare(sql).all(...sql.params) as Row[];
  }

  async count(filters: readonly Filter[]): Promise<number> {
    const sql = countSql(TABLE, this.#columns, filters, placeholder);
    return (this.#prepare(sql).get(...sql.params) as { n: number }).n;
  }

  async insert(rows: readonly Row[]): Promise<void> {
    this.#db.transaction(() => {
      for (const row of rows) {
        const sql = insertSql(TABLE, this.#columns, row, placeholder);
        this.#prepare(sql).run(...sql.params);
      }
    })();
  }

  async update(name: string, values: Row): Promise<Row | undefined> {
    const sql = updateSql(TABLE, this.#columns, name, values, placeholder);
    const changed = this.#db.transaction(() => this.#prepare(sql).run(...sql.params).changes)();
    return changed ? this.getOne(name) : undefined;
  }

  async remove(filters: readonly Filter[]): Promise<number> {
    const sql = deleteSql(TABLE, this.#columns, filters, placeholder);
    return this.#prepare(sql).run(...sql.params).changes;
  }

  async settle(): Promise<void> {
    // fw never runs ANALYZE, so neither does the bench: both servers plan without statistics.
  }

  async close(): Promise<void> {
    this.#db.close();
  }
}
