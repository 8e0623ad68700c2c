import type { Doc } from '../meta/doctype.js';
import type { Meta, ResolvedField } from '../meta/meta.js';
import { andThen, type MaybePromise } from '../async/maybe-promise.js';
import { statementRows, type Queryable, type Row, type SqlStatement } from '../storage/database.js';
import type { Dialect } from '../storage/dialect.js';
import { docFromRow } from './doc-from-row.js';
import { docstatusStatements, FoundDocstatuses, type DocstatusLookups } from './links/docstatus-lookup.js';
import { ShapeCache, statementShape, type StatementShape } from '../storage/statement-shape.js';

/** Where child rows of one table field live. */
interface ChildLink {
  readonly field: ResolvedField;
  readonly meta: Meta;
}

/** `select * from <table> where name = ?`, the statement behind every document read. */
const byNameShapes = new ShapeCache<Dialect, Meta, StatementShape<[string]>>();
/** `select name ... limit 1`: does a name exist (renames, installation). */
const existsShapes = new ShapeCache<Dialect, Meta, StatementShape<[string]>>();
/** The row writes of a DocType: every column, in `meta.columnNames` order (the update's last value is the name). */
const insertShapes = new ShapeCache<Dialect, Meta, StatementShape<unknown[]>>();
const updateShapes = new ShapeCache<Dialect, Meta, StatementShape<unknown[]>>();
/** A child row's write: every column, matched by name and by the parent row and table it belongs to. */
const childUpdateShapes = new ShapeCache<Dialect, Meta, StatementShape<unknown[]>>();

/** `{ column: value }` for the columns in order, from a list of values in the same order. */
function byColumn(columns: readonly string[], values: readonly unknown[]): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  columns.forEach((column, i) => (row[column] = values[i]));
  return row;
}

const NO_CHILDREN: readonly ChildLink[] = [];

/**
 * Reads and writes document rows: the parent row and its child rows, converted between stored
 * values and JSON values by the field types. Knows nothing of permissions or validation.
 */
export class DocumentRepository {
  readonly #dialect: Dialect;
  readonly #metaOf: (doctype: string) => Meta;

  constructor(dialect: Dialect, metaOf: (doctype: string) => Meta) {
    this.#dialect = dialect;
    this.#metaOf = metaOf;
  }

  #children(meta: Meta): readonly ChildLink[] {
    if (meta.tableFields.length === 0) return NO_CHILDREN;
    return meta.tableFields
      .filter((f) => f.def.options && this.#hasMeta(f.def.options))
      .map((field) => ({ field, meta: this.#metaOf(field.def.options as string) }));
  }

  #hasMeta(doctype: string): boolean {
    try {
      this.#metaOf(doctype);
      return true;
    } catch {
      return false;
    }
  }

  /** Turns a stored row into a document: JSON values, `doctype` set (see doc-from-row.ts). */
  toDoc(meta: Meta, row: Row): Doc {
    return docFromRow(meta)(row);
  }

  /** The document named `name` with its child rows, or undefined. `forUpdate` locks the row where the engine can. */
  load(q: Queryable, meta: Meta, name: string, opts: { forUpdate?: boolean } = {}): MaybePromise<Doc | undefined> {
    const statement = this.#loadStatement(meta, name, opts.forUpdate === true && this.#dialect.supportsRowLocks);
    // A document without tables, read where statements answer at once (SQLite), needs no promise.
    if (this.#children(meta).length === 0) return andThen(statementRows(q, statement), (rows) => (rows.length === 0 ? undefined : this.toDoc(meta, rows[0])));
    return this.#loadWithChildren(q, meta, statement);
  }

  async #loadWithChildren(q: Queryable, meta: Meta, statement: SqlStatement): Promise<Doc | undefined> {
    const rows = await q.all(statement);
    if (rows.length === 0) return undefined;
    const doc = this.toDoc(meta, rows[0]);
    for (const child of this.#children(meta)) {
      const childRows = await q.all(
        this.#dialect.builder
          .selectFrom(child.meta.tableName)
          .selectAll()
          .where('parent', '=', doc.name as string)
          .where('parenttype', '=', meta.name)
          .where('parentfield', '=', child.field.def.fieldname)
          .orderBy('idx')
          .compile(),
      );
      doc[child.field.def.fieldname] = childRows.map((r) => this.toDoc(child.meta, r));
    }
    return doc;
  }

  #loadStatement(meta: Meta, name: string, forUpdate: boolean): SqlStatement {
    const select = (n: string) => this.#dialect.builder.selectFrom(meta.tableName).selectAll().where('name', '=', n);
    if (forUpdate) return select(name).forUpdate().compile();
    return byNameShapes.get(this.#dialect, meta, () => statementShape(1, (n: string) => select(n).compile()))(name);
  }

  /** True when a document of `meta` named `name` exists. */
  async exists(q: Queryable, meta: Meta, name: string): Promise<boolean> {
    const shape = existsShapes.get(this.#dialect, meta, () =>
      statementShape(1, (n: string) => this.#dialect.builder.selectFrom(meta.tableName).select('name').where('name', '=', n).limit(1).compile()),
    );
    const rows = await q.all(shape(name));
    return rows.length > 0;
  }

  /**
   * The docstatus of every looked-up document, absent ones undefined: one statement for every
   * table and name a save checks (see docstatus-lookup.ts), not one per Link value.
   */
  async docstatuses(q: Queryable, lookups: DocstatusLookups): Promise<FoundDocstatuses> {
    const found = new FoundDocstatuses();
    for (const { statement, metas } of docstatusStatements(this.#dialect, lookups)) found.add(metas, await q.all(statement));
    return found;
  }

  /** The column values of `doc` for `meta`'s table (stored forms, as the document holds them), in `meta.columnNames` order. */
  #columnValues(meta: Meta, doc: Doc): unknown[] {
    const values: unknown[] = [];
    for (const col of meta.standardColumns) values.push(doc[col] ?? null);
    for (const f of meta.valueFields) values.push(toStorable(doc[f.def.fieldname]));
    return values;
  }

  /** `insert into <table> (every column) values (...)`. */
  #insertStatement(meta: Meta, values: unknown[]): SqlStatement {
    const shape = insertShapes.get(this.#dialect, meta, () => {
      const columns = meta.columnNames;
      return statementShape(columns.length, (...slots: unknown[]) =>
        this.#dialect.builder.insertInto(meta.tableName).values(byColumn(columns, slots)).compile(),
      );
    });
    return shape(...values);
  }

  /** `update <table> set (every column) where name = ?`. */
  #updateStatement(meta: Meta, values: unknown[], name: string): SqlStatement {
    const shape = updateShapes.get(this.#dialect, meta, () => {
      const columns = meta.columnNames;
      return statementShape(columns.length + 1, (...slots: unknown[]) =>
        this.#dialect.builder.updateTable(meta.tableName).set(byColumn(columns, slots)).where('name', '=', slots[columns.length]).compile(),
      );
    });
    return shape(...values, name);
  }

  /**
   * `update <child table> set (every column) where name = ? and parent = ? and parenttype = ? and
   * parentfield = ?`: a row name alone never reaches a row of another document.
   */
  #childUpdateStatement(child: Meta, values: unknown[], row: Doc): SqlStatement {
    const shape = childUpdateShapes.get(this.#dialect, child, () => {
      const columns = child.columnNames;
      return statementShape(columns.length + 4, (...slots: unknown[]) =>
        this.#dialect.builder
          .updateTable(child.tableName)
          .set(byColumn(columns, slots))
          .where('name', '=', slots[columns.length])
          .where('parent', '=', slots[columns.length + 1])
          .where('parenttype', '=', slots[columns.length + 2])
          .where('parentfield', '=', slots[columns.length + 3])
          .compile(),
      );
    });
    return shape(...values, row.name, row.parent, row.parenttype, row.parentfield);
  }

  /**
   * Inserts the document and its child rows. With `describe`, where the connection can queue
   * writes (Queryable.runLater), the rows travel with the unit's next message instead of a round
   * trip of their own, and a failure reaches the caller as `describe(error)` from that message.
   */
  async insert(q: Queryable, meta: Meta, doc: Doc, describe?: (error: unknown) => unknown): Promise<void> {
    const statements = [this.#insertStatement(meta, this.#columnValues(meta, doc))];
    for (const child of this.#children(meta)) {
      for (const row of rowsOf(doc, child.field)) statements.push(this.#insertStatement(child.meta, this.#columnValues(child.meta, row)));
    }
    if (describe && q.runLater) {
      for (const statement of statements) q.runLater(statement, describe);
      return;
    }
    for (const statement of statements) await q.run(statement);
  }

  /**
   * Writes the document over its stored row. Child tables present in `doc` replace the stored
   * ones: listed rows are updated or inserted, the others deleted.
   */
  async update(q: Queryable, meta: Meta, doc: Doc, previousName = doc.name as string): Promise<void> {
    await q.run(this.#updateStatement(meta, this.#columnValues(meta, doc), previousName));
    for (const child of this.#children(meta)) {
      const rows = rowsOf(doc, child.field);
      const keep = rows.map((r) => r.name as string);
      let del = this.#dialect.builder
        .deleteFrom(child.meta.tableName)
        .where('parent', '=', doc.name as string)
        .where('parenttype', '=', meta.name)
        .where('parentfield', '=', child.field.def.fieldname);
      if (keep.length > 0) del = del.where('name', 'not in', keep);
      await q.run(del.compile());
      for (const row of rows) {
        const rowValues = this.#columnValues(child.meta, row);
        const { changes } = await q.run(this.#childUpdateStatement(child.meta, rowValues, row));
        if (changes === 0) await q.run(this.#insertStatement(child.meta, rowValues));
      }
    }
  }

  /** Deletes the document and its child rows. */
  async delete(q: Queryable, meta: Meta, name: string): Promise<void> {
    for (const child of this.#children(meta)) {
      await q.run(this.#dialect.builder.deleteFrom(child.meta.tableName).where('parent', '=', name).where('parenttype', '=', meta.name).compile());
    }
    await q.run(this.#dialect.builder.deleteFrom(meta.tableName).where('name', '=', name).compile());
  }

  /** The number of rows in a DocType's table. */
  async count(q: Queryable, meta: Meta): Promise<number> {
    const rows = await q.all<{ n: number | string }>(
      this.#dialect.builder
        .selectFrom(meta.tableName)
        .select((eb) => eb.fn.countAll().as('n'))
        .compile(),
    );
    return Number(rows[0]?.n ?? 0);
  }
}

function rowsOf(doc: Doc, field: ResolvedField): Doc[] {
  const rows = doc[field.def.fieldname];
  return Array.isArray(rows) ? (rows as Doc[]) : [];
}

/** JSON values (objects of JSON fields) are stored as text; everything else binds as it is. */
function toStorable(value: unknown): unknown {
  if (value === undefined) return null;
  if (value !== null && typeof value === 'object') return JSON.stringify(value);
  return value;
}
