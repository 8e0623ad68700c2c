import pg from 'pg';
import { countSql, deleteSql, insertSql, listSql, updateSql, type Filter, type ListSpec, type Sql } from './baseline-sql.js';
import { TABLE, type BaselineStore, type Row } from './baseline-store.js';

const placeholder = (i: number) => `$${i}`;

/** Timestamps and dates stay text, counts become numbers, as fw reads them. */
const TEXT_TYPES = new Set([1082, 1083, 1114, 1184]);
const NUMBER_TYPES = new Set([20, 1700]);
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (TEXT_TYPES.has(oid)) return (v: string) => v;
    if (NUMBER_TYPES.has(oid)) return (v: string) => Number(v);
    return pg.types.getTypeParser(oid, format as 'text');
  },
};

/** The baseline on a pg Pool of the size fw uses by default (10). */
export class PostgresBaselineStore implements BaselineStore {
  readonly engine = 'postgres';
  readonly #pool: pg.Pool;
  readonly #columns: ReadonlySet<string>;

  private constructor(pool: pg.Pool, columns: ReadonlySet<string>) {
    this.#pool = pool;
    this.#columns = columns;
  }

  /** Connects to the fw site's database. */
  static async open(url: string): Promise<PostgresBaselineStore> {
    const pool = new pg.Pool({ connectionString: url, max: 10, types: types as pg.CustomTypesConfig });
    const info = await pool.query<{ column_name: string }>('select column_name from information_schema.columns where table_name = $1', [TABLE]);
    if (info.rows.length === 0) {
      await pool.end();
      throw new Error(`baseline: no table ${TABLE} in the database`);
    }
    return new PostgresBaselineStore(pool, new Set(info.rows.map((r) => r.column_name)));
  }

  async #all(sql: Sql): Promise<Row[]> {
    return (await this.#pool.query(sql.text, sql.params)).rows as Row[];
  }

  async getOne(name: string): Promise<Row | undefined> {
    return (await this.#all({ text: `select * from "${TABLE}" where "name" = $1`, params: [name] }))[0];
  }

  async list(spec: ListSpec): Promise<Row[]> {
    return this.#all(listSql(TABLE, this.#columns, spec, placeholder));
  }

  async count(filters: readonly Filter[]): Promise<number> {
    return (await this.#all(countSql(TABLE, this.#columns, filters, placeholder)))[0].n as number;
  }

  async insert(rows: readonly Row[]): Promise<void> {
    const client = await this.#pool.connect();
    try {
      await client.query('begin');
      for (const row of rows) {
        const sql = insertSql(TABLE, this.#columns, row, placeholder);
        await client.query(sql.text, sql.params);
      }
      await client.query('commit');
    } catch (err) {
      await client.query('rollback').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  async update(name: string, values: Row): Promise<Row | undefined> {
    const sql = updateSql(TABLE, this.#columns, name, values, placeholder);
    const result = await this.#pool.query(sql.text, sql.params);
    return result.rowCount ? this.getOne(name) : undefined;
  }

  async remove(filters: readonly Filter[]): Promise<number> {
    const sql = deleteSql(TABLE, this.#columns, filters, placeholder);
    return (await this.#pool.query(sql.text, sql.params)).rowCount ?? 0;
  }

  async settle(): Promise<void> {
    await this.#pool.query(`vacuum analyze "${TABLE}"`);
  }

  async close(): Promise<void> {
    await this.#pool.end();
  }
}
