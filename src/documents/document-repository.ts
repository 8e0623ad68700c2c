import type { Doc } from '../meta/doctype.js';
import type { Meta, ResolvedField } from '../meta/meta.js';
import type { Queryable, Row } from '../storage/database.js';
import type { Dialect } from '../storage/dialect.js';

/** Where child rows of one table field live. */
interface ChildLink {
  readonly field: ResolvedField;
  readonly meta: Meta;
}

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

  #children(meta: Meta): ChildLink[] {
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

  /** Turns a stored row into a document: JSON values, `doctype` set. */
  toDoc(meta: Meta, row: Row): Doc {
    const doc: Doc = {};
    for (const col of meta.standardColumns) {
      const v = row[col];
      doc[col] = col === 'name' && v !== null && v !== undefined ? String(v) : v ?? null;
    }
    for (const f of meta.valueFields) {
      const v = row[f.def.fieldname];
      doc[f.def.fieldname] = v === null || v === undefined ? null : f.type.fromDb ? f.type.fromDb(v, f.def) : v;
    }
    doc.docstatus = Number(doc.docstatus ?? 0);
    doc.idx = Number(doc.idx ?? 0);
    doc.doctype = meta.name;
    return doc;
  }

  /** The document named `name` with its child rows, or undefined. `forUpdate` locks the row where the engine can. */
  async load(q: Queryable, meta: Meta, name: string, opts: { forUpdate?: boolean } = {}): Promise<Doc | undefined> {
    let query = this.#dialect.builder.selectFrom(meta.tableName).selectAll().where('name', '=', name);
    if (opts.forUpdate && this.#dialect.supportsRowLocks) query = query.forUpdate();
    const rows = await q.all(query.compile());
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

  /** True when a document of `meta` named `name` exists. */
  async exists(q: Queryable, meta: Meta, name: string): Promise<boolean> {
    const rows = await q.all(
      this.#dialect.builder.selectFrom(meta.tableName).select('name').where('name', '=', name).limit(1).compile(),
    );
    return rows.length > 0;
  }

  /** The column values of `doc` for `meta`'s table (stored forms, as the document holds them). */
  #columnValues(meta: Meta, doc: Doc): Record<string, unknown> {
    const values: Record<string, unknown> = {};
    for (const col of meta.standardColumns) values[col] = doc[col] ?? null;
    for (const f of meta.valueFields) values[f.def.fieldname] = toStorable(doc[f.def.fieldname]);
    return values;
  }

  /** Inserts the document and its child rows. */
  async insert(q: Queryable, meta: Meta, doc: Doc): Promise<void> {
    await q.run(this.#dialect.builder.insertInto(meta.tableName).values(this.#columnValues(meta, doc)).compile());
    for (const child of this.#children(meta)) {
      for (const row of rowsOf(doc, child.field)) {
        await q.run(this.#dialect.builder.insertInto(child.meta.tableName).values(this.#columnValues(child.meta, row)).compile());
      }
    }
  }

  /**
   * Writes the document over its stored row. Child tables present in `doc` replace the stored
   * ones: listed rows are updated or inserted, the others deleted.
   */
  async update(q: Queryable, meta: Meta, doc: Doc, previousName = doc.name as string): Promise<void> {
    const values = this.#columnValues(meta, doc);
    await q.run(this.#dialect.builder.updateTable(meta.tableName).set(values).where('name', '=', previousName).compile());
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
        const { changes } = await q.run(
          this.#dialect.builder.updateTable(child.meta.tableName).set(rowValues).where('name', '=', row.name as string).compile(),
        );
        if (changes === 0) await q.run(this.#dialect.builder.insertInto(child.meta.tableName).values(rowValues).compile());
      }
    }
  }

  /** Deletes the document and its child rows. */
  async delete(q: Queryable, meta: Meta, name: string): Promise<void> {
    for (const child of this.#children(meta)) {
      await q.run(
        this.#dialect.builder
          .deleteFrom(child.meta.tableName)
          .where('parent', '=', name)
          .where('parenttype', '=', meta.name)
          .compile(),
      );
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
