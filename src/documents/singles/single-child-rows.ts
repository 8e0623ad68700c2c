import type { Doc } from '../../meta/doctype.js';
import type { Meta, ResolvedField } from '../../meta/meta.js';
import type { DocContext } from '../doc-context.js';
import { DocumentRepository } from '../document-repository.js';

/*
 * Table fields of a Single DocType: the rows live in the child DocType's table like any child rows,
 * with `parent` and `parenttype` set to the Single's name. The parent has no row of its own, so the
 * repository's load/update (which go through the parent's table) cannot be used for them.
 */

function childTables(ctx: DocContext, meta: Meta): Array<{ field: ResolvedField; child: Meta }> {
  return meta.tableFields
    .filter((f) => f.def.options && ctx.metas.has(f.def.options))
    .map((field) => ({ field, child: ctx.metas.get(field.def.options as string) }));
}

/** The column values of a child row, as the repository writes them. */
function columnValues(child: Meta, row: Doc): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const col of child.standardColumns) values[col] = row[col] ?? null;
  for (const f of child.valueFields) {
    const v = row[f.def.fieldname];
    values[f.def.fieldname] = v === undefined ? null : v !== null && typeof v === 'object' ? JSON.stringify(v) : v;
  }
  return values;
}

/** Puts the stored rows of every table field of the Single into `doc`, in their JSON form. */
export async function loadSingleChildRows(ctx: DocContext, meta: Meta, doc: Doc): Promise<void> {
  const repo = new DocumentRepository(ctx.dialect, (d) => ctx.metas.get(d));
  for (const { field, child } of childTables(ctx, meta)) {
    const rows = await ctx.q.all(
      ctx.dialect.builder
        .selectFrom(child.tableName)
        .selectAll()
        .where('parent', '=', meta.name)
        .where('parenttype', '=', meta.name)
        .where('parentfield', '=', field.def.fieldname)
        .orderBy('idx')
        .compile(),
    );
    doc[field.def.fieldname] = rows.map((r) => repo.toDoc(child, r));
  }
}

/** Replaces the stored rows of each table field present in `doc` (rows stamped by stampChildRows). */
export async function saveSingleChildRows(ctx: DocContext, meta: Meta, doc: Doc): Promise<void> {
  const db = ctx.dialect.builder;
  for (const { field, child } of childTables(ctx, meta)) {
    const rows = doc[field.def.fieldname];
    if (!Array.isArray(rows)) continue;
    const keep = rows.map((r: Doc) => String(r.name));
    let del = db.deleteFrom(child.tableName).where('parent', '=', meta.name).where('parenttype', '=', meta.name).where('parentfield', '=', field.def.fieldname);
    if (keep.length > 0) del = del.where('name', 'not in', keep);
    await ctx.q.run(del.compile());
    for (const row of rows as Doc[]) {
      const values = columnValues(child, row);
      const own = db
        .updateTable(child.tableName)
        .set(values)
        .where('name', '=', String(row.name))
        .where('parent', '=', meta.name)
        .where('parenttype', '=', meta.name)
        .where('parentfield', '=', field.def.fieldname);
      const { changes } = await ctx.q.run(own.compile());
      if (changes === 0) await ctx.q.run(db.insertInto(child.tableName).values(values).compile());
    }
  }
}
