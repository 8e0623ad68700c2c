import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { DoesNotExistError } from '../errors/index.js';
import type { DeferredCheck, Queryable, Row } from '../storage/database.js';
import type { Dialect } from '../storage/dialect.js';
import { perOwner, statementShape } from '../storage/statement-shape.js';
import type { DocTypeDef } from './doctype.js';
import { docToDefinition } from './doctype-document.js';
import type { FieldTypeRegistry } from './field-types/registry.js';
import { Meta } from './meta.js';

const STATE_TABLE = '__fw_state';
const VERSION_KEY = 'meta_version';

/** Statements of the state table are built once per dialect. */
const readStateStatement = perOwner((dialect: Dialect) =>
  statementShape(1, (key: string) => dialect.builder.selectFrom(STATE_TABLE).select('value').where('key', '=', key).compile()),
);
/**
 * The metadata check every unit of work starts with. Its key is a constant in the SQL text: a
 * statement without values can share one message with the BEGIN of a PostgreSQL read unit.
 */
const readVersionStatement = perOwner((dialect: Dialect) =>
  dialect.builder.selectFrom(STATE_TABLE).select('value').where('key', '=', sql.lit(VERSION_KEY)).compile(),
);

/**
 * Every DocType of a site, compiled once and shared by all requests. The definitions live in
 * tabDocType/tabDocField/tabDocPerm; a version token in the database tells every process when a
 * DocType changed, so the next request anywhere reloads (no state lives only in one process).
 */
export class MetaRegistry {
  readonly types: FieldTypeRegistry;
  readonly #dialect: Dialect;
  #metas = new Map<string, Meta>();
  #version: string | undefined;
  /** The connection and change counter of the last version read, where the connection has one. */
  #checked: { readonly q: Queryable; readonly counter: number } | undefined;
  #bumps = 0;
  #loads = 0;

  constructor(dialect: Dialect, types: FieldTypeRegistry) {
    this.#dialect = dialect;
    this.types = types;
  }

  /** The compiled DocType, or a 404 DoesNotExistError. */
  get(doctype: string): Meta {
    const meta = this.#metas.get(doctype);
    if (!meta) throw new DoesNotExistError(`DocType ${doctype} not found`, { doctype: 'DocType' });
    return meta;
  }

  has(doctype: string): boolean {
    return this.#metas.has(doctype);
  }

  /** Every DocType name known. */
  names(): string[] {
    return [...this.#metas.keys()];
  }

  /** Replaces the whole set (used at install time, before the tables hold definitions). */
  setAll(defs: readonly DocTypeDef[]): void {
    this.#metas = new Map(defs.map((d) => [d.name, new Meta(d, this.types)]));
  }

  /** The DDL of the small key/value table holding the metadata version. */
  stateTableStatement() {
    return this.#dialect.builder.schema
      .createTable(STATE_TABLE)
      .ifNotExists()
      .addColumn('key', sql.raw(this.#dialect.columnType({ kind: 'varchar', length: 140 })), (c) => c.primaryKey())
      .addColumn('value', sql.raw(this.#dialect.columnType({ kind: 'text' })))
      .compile();
  }

  /**
   * Reloads the definitions when another process (or this one) changed a DocType since the last
   * load. Answers without a promise (undefined) when the connection's change counter shows that
   * nothing was committed since the last check: every unit of work starts here.
   */
  refreshIfStale(q: Queryable): Promise<void> | undefined {
    // The counter is read first, so a commit landing in between only costs one more read later.
    const counter = q.changeCounter?.();
    if (counter !== undefined && this.#checked?.q === q && this.#checked.counter === counter && this.#metas.size > 0) return undefined;
    return this.#reloadIfChanged(q, counter);
  }

  /**
   * The same check, sent with the unit's first statement where the connection can defer it
   * (Queryable.deferCheck: a PostgreSQL document read then costs one round trip, not two). Undefined
   * when it cannot, or when nothing is loaded yet: check at once then.
   */
  deferCheck(q: Queryable): DeferredCheck | undefined {
    if (!q.deferCheck || this.#metas.size === 0) return undefined;
    const version = this.#version;
    return q.deferCheck(readVersionStatement(this.#dialect), (rows) => rows[0]?.value === version);
  }

  async #reloadIfChanged(q: Queryable, counter: number | undefined): Promise<void> {
    const version = await this.#readVersion(q);
    if (version !== this.#version || this.#metas.size === 0) await this.load(q, version);
    this.#checked = counter === undefined ? undefined : { q, counter };
  }

  /** Marks the metadata changed; every process reloads on its next request. */
  async bumpVersion(q: Queryable): Promise<void> {
    await this.writeState(q, VERSION_KEY, randomUUID());
    this.#bumps++;
  }

  /**
   * How many times this process marked the metadata changed. Caches of what metadata-level
   * changes affect (a renamed Role, say) compare it around a unit of work.
   */
  get bumps(): number {
    return this.#bumps;
  }

  /** How many times the definitions were (re)loaded, for this process's changes or another's. */
  get loads(): number {
    return this.#loads;
  }

  /** A value of the site's small key/value state table, or undefined. */
  async readState(q: Queryable, key: string): Promise<string | undefined> {
    const rows = await q.all<{ value: string }>(readStateStatement(this.#dialect)(key));
    return rows[0]?.value;
  }

  /** Sets a value of the state table. */
  async writeState(q: Queryable, key: string, value: string): Promise<void> {
    await q.run(
      this.#dialect.builder
        .insertInto(STATE_TABLE)
        .values({ key, value })
        .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
        .compile(),
    );
  }

  /** Loads every definition from the metadata tables. */
  async load(q: Queryable, version?: string): Promise<void> {
    const db = this.#dialect.builder;
    // One after another: a PostgreSQL connection runs one statement at a time.
    const types = await q.all(db.selectFrom('tabDocType').selectAll().compile());
    const fields = await q.all(db.selectFrom('tabDocField').selectAll().orderBy('parent').orderBy('idx').compile());
    const perms = await q.all(db.selectFrom('tabDocPerm').selectAll().orderBy('parent').orderBy('idx').compile());
    const byParent = (rows: Row[]) => {
      const map = new Map<string, Row[]>();
      for (const r of rows) {
        const list = map.get(String(r.parent)) ?? [];
        list.push(r);
        map.set(String(r.parent), list);
      }
      return map;
    };
    const fieldsOf = byParent(fields);
    const permsOf = byParent(perms);
    const defs = types.map((t) => docToDefinition({ ...t, fields: fieldsOf.get(String(t.name)) ?? [], permissions: permsOf.get(String(t.name)) ?? [] }));
    this.setAll(defs);
    this.#version = version ?? (await this.#readVersion(q));
    this.#loads++;
  }

  async #readVersion(q: Queryable): Promise<string | undefined> {
    const rows = await q.all<{ value: string }>(readVersionStatement(this.#dialect));
    return rows[0]?.value;
  }
}
