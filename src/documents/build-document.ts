import { ValidationError } from '../errors/index.js';
import type { Doc } from '../meta/doctype.js';
import type { FieldContext } from '../meta/field-types/field-type.js';
import type { Meta } from '../meta/meta.js';

/**
 * The first option of a Select, its implicit default (docs/architecture.md "The document pipeline", insert step 1). A blank first
 * option means "nothing chosen" (as the reference's `options.split("\n", 1)[0]`), so it gives none.
 */
/** Fills fields the client left empty with their DocField defaults (static, `Today`, `now`, `__user`). */
export function applyDefaults(meta: Meta, doc: Doc, ctx: FieldContext): void {
  for (const f of meta.valueFields) {
    const current = doc[f.def.fieldname];
    if (current !== undefined && current !== null && current !== '') continue;
    const text = f.def.default;
    if (text !== undefined && text !== null && text !== '') {
      doc[f.def.fieldname] = f.type.resolveDefault ? f.type.resolveDefault(String(text), f.def, ctx) : text;
    } else if (current === undefined && f.type.initialValue) {
      const initial = f.type.initialValue(f.def);
      if (initial !== undefined) doc[f.def.fieldname] = initial;
    }
  }
}

/**
 * Coerces every value field of `doc` into its stored form, in place; child tables are checked to
 * be lists and their rows coerced against the child DocType.
 */
export function coerceFields(meta: Meta, doc: Doc, ctx: FieldContext, metaOf: (doctype: string) => Meta): void {
  for (const f of meta.valueFields) {
    doc[f.def.fieldname] = f.type.coerce(doc[f.def.fieldname], f.def, { ...ctx, doctype: meta.name });
  }
  for (const f of meta.tableFields) {
    const rows = doc[f.def.fieldname];
    if (rows === undefined) continue;
    if (rows === null) {
      doc[f.def.fieldname] = [];
      continue;
    }
    if (!Array.isArray(rows)) {
      throw new ValidationError(`Value for ${meta.label(f.def.fieldname)} must be a list of rows`);
    }
    const childMeta = metaOf(f.def.options ?? '');
    rows.forEach((row, i) => {
      if (row === null || typeof row !== 'object' || Array.isArray(row)) {
        throw new ValidationError(`Row #${i + 1} of ${meta.label(f.def.fieldname)} must be an object`);
      }
      const rowDoctype = (row as Doc).doctype;
      if (rowDoctype !== undefined && rowDoctype !== null && rowDoctype !== childMeta.name) {
        throw new ValidationError(`Row #${i + 1} of ${meta.label(f.def.fieldname)} must be a ${childMeta.name}, not ${String(rowDoctype)}`);
      }
      // A row without a name is new: it gets its DocField defaults like a new document.
      const name = (row as Doc).name;
      if (name === undefined || name === null || name === '') applyDefaults(childMeta, row as Doc, ctx);
      coerceFields(childMeta, row as Doc, ctx, metaOf);
    });
  }
}

/** Copies `patch` onto `doc`, skipping keys that are not fields of the DocType and the standard fields clients may not set. */
export function mergePatch(meta: Meta, doc: Doc, patch: Doc): void {
  for (const [key, value] of Object.entries(patch)) {
    if (meta.field(key) !== undefined) doc[key] = value;
  }
}
