import { sql } from 'kysely';
import { ValidationError } from '../errors/index.js';
import type { Queryable } from '../storage/database.js';
import type { ColumnSpec, Dialect } from '../storage/dialect.js';
import { STANDARD_COLUMNS, type Meta } from './meta.js';

/** Index names are derived from the table so they are unique per schema on PostgreSQL too. */
function indexName(table: string, column: string, unique: boolean): string {
  const base = `${unique ? 'uq' : 'ix'}_${table}_${column}`.replace(/[^A-Za-z0-9_]/g, '_');
  return base.length <= 60 ? base : `${base.slice(0, 48)}_${hash(base)}`;
}

function hash(text: string): string {
  let h = 5381;
  for (let i = 0; i < text.length; i++) h = ((h << 5) + h + text.charCodeAt(i)) >>> 0;
  return h.toString(36);
}

/** The wanted columns of a DocType's table: standard and collaboration columns, then one per value field. */
function wantedColumns(meta: Meta): Map<string, ColumnSpec> {
  const columns = new Map<string, ColumnSpec>();
  for (const name of [...meta.standardColumns, ...meta.collaborationColumns]) columns.set(name, STANDARD_COLUMNS[name]);
  for (const f of meta.valueFields) if (f.column) columns.set(f.def.fieldname, f.column);
  return columns;
}

/** The wanted indexes: modified, creation, parent (child tables), search_index and unique fields. */
function wantedIndexes(meta: Meta): Array<{ column: string; unique: boolean }> {
  const out = [
    { column: 'modified', unique: false },
    { column: 'creation', unique: false },
  ];
  if (meta.isChild) out.push({ column: 'parent', unique: false });
  for (const f of meta.valueFields) {
    if (f.def.unique === 1) out.push({ column: f.def.fieldname, unique: true });
    else if (f.def.search_index === 1) out.push({ column: f.def.fieldname, unique: false });
  }
  return out;
}

/**
 * Brings a DocType's table in line with its metadata: creates it, adds missing columns, widens
 * columns that are too narrow, adds missing indexes. Never drops a column or narrows one, so a
 * metadata change never loses data.
 */
export async function syncTable(q: Queryable, dialect: Dialect, meta: Meta): Promise<void> {
  if (meta.isSingle) return;
  const table = meta.tableName;
  const wanted = wantedColumns(meta);
  const existing = await dialect.listColumns(q, table);
  const db = dialect.builder;

  if (existing.length === 0) {
    let create = db.schema.createTable(table);
    for (const [name, spec] of wanted) {
      create = create.addColumn(name, sql.raw(dialect.columnType(spec)), (c) => (name === 'name' ? c.primaryKey() : c));
    }
    await q.run(create.compile());
  } else {
    const byName = new Map(existing.map((c) => [c.name, c]));
    for (const [name, spec] of wanted) {
      const have = byName.get(name);
      if (!have) {
        await q.run(
          db.schema
            .alterTable(table)
            .addColumn(name, sql.raw(dialect.columnType(spec)))
            .compile(),
        );
      } else if (dialect.needsWidening(have, spec)) {
        await dialect.widenColumn(q, table, name, spec);
      }
    }
  }

  const indexes = new Set(await dialect.listIndexes(q, table));
  const wantedIndexNames = new Set(wantedIndexes(meta).map((i) => indexName(table, i.column, i.unique)));
  // An index fw made for a field that is no longer unique or indexed goes; an index is not data.
  const ours = [indexName(table, '', true), indexName(table, '', false)];
  for (const existing of indexes) {
    if (!wantedIndexNames.has(existing) && ours.some((prefix) => existing.startsWith(prefix))) {
      await q.run(db.schema.dropIndex(existing).ifExists().compile());
    }
  }
  for (const { column, unique } of wantedIndexes(meta)) {
    const name = indexName(table, column, unique);
    if (indexes.has(name)) continue;
    let create = db.schema.createIndex(name).on(table).column(column);
    if (unique) create = create.unique();
    try {
      await q.run(create.compile());
    } catch (err) {
      if (unique) {
        throw new ValidationError(`Cannot make ${meta.label(column)} unique: ${meta.name} already holds duplicate values`, { cause: err });
      }
      throw err;
    }
  }
}

/** Drops a DocType's table; the caller makes sure it holds no documents. */
export async function dropTable(q: Queryable, dialect: Dialect, meta: Meta): Promise<void> {
  if (meta.isSingle) return;
  await q.run(dialect.builder.schema.dropTable(meta.tableName).ifExists().compile());
}
