import type { Doc } from '../meta/doctype.js';
import type { Meta } from '../meta/meta.js';
import { isWithheld } from './field-level.js';
import { permittedLevels, type Actor } from './role-permissions.js';

/**
 * The document without the fields the actor may not read (permlevel > 0 without a row granting read
 * at that level), child rows included: their levels are the parent DocType's (docs/architecture.md "Permissions").
 * Returns a copy when a field may be withheld; otherwise (the Administrator, a DocType whose fields
 * all sit at level 0, nearly every read) the document itself.
 */
export function hideUnreadableFields(actor: Actor, meta: Meta, doc: Doc, metaOf: (doctype: string) => Meta): Doc {
  if (actor.isAdministrator || !hasLeveledFields(meta, metaOf)) return doc;
  return strip(meta, doc, permittedLevels(actor, meta, 'read'), metaOf);
}

/** True when a field of `meta` or of its child DocTypes sits above permlevel 0. */
function hasLeveledFields(meta: Meta, metaOf: (doctype: string) => Meta): boolean {
  return meta.leveledFields.length > 0 || meta.tableFields.some((tf) => metaOf(tf.def.options ?? '').leveledFields.length > 0);
}

function strip(meta: Meta, doc: Doc, levels: ReadonlySet<number>, metaOf: (doctype: string) => Meta): Doc {
  const out: Doc = { ...doc };
  for (const f of meta.fields) {
    if (isWithheld(f.def, levels)) delete out[f.def.fieldname];
  }
  for (const tf of meta.tableFields) {
    const rows = out[tf.def.fieldname];
    if (!Array.isArray(rows)) continue;
    const childMeta = metaOf(tf.def.options ?? '');
    out[tf.def.fieldname] = rows.map((row: Doc) => strip(childMeta, row, levels, metaOf));
  }
  return out;
}
