import type { Doc } from '../meta/doctype.js';
import type { Meta } from '../meta/meta.js';
import { isWithheld } from './field-level.js';
import { permittedLevels, type Actor } from './role-permissions.js';

/**
 * Undoes, in place, what the client sent for fields the actor may not write (permlevel > 0 without
 * a row granting write at that level): an update keeps the stored value, an insert (no `before`)
 * drops the value so the field's default applies. Child rows follow the parent DocType's levels; a
 * row that is not stored yet is treated like an insert. The reference resets these silently
 * (`validate_higher_perm_levels`), so this never raises.
 */
export function keepUnwritableFields(actor: Actor, meta: Meta, doc: Doc, before: Doc | undefined, metaOf: (doctype: string) => Meta): void {
  if (actor.isAdministrator) return;
  reset(meta, doc, before, permittedLevels(actor, meta, 'write'), metaOf);
}

function reset(meta: Meta, doc: Doc, before: Doc | undefined, levels: ReadonlySet<number>, metaOf: (doctype: string) => Meta): void {
  for (const f of meta.fields) {
    // Layout fields hold no value to undo.
    if (!isWithheld(f.def, levels) || (f.column === undefined && !f.type.isTable)) continue;
    const key = f.def.fieldname;
    if (before === undefined) delete doc[key];
    else doc[key] = structuredClone(before[key]);
  }
  for (const tf of meta.tableFields) {
    if (isWithheld(tf.def, levels)) continue;
    const rows = doc[tf.def.fieldname];
    if (!Array.isArray(rows)) continue;
    const childMeta = metaOf(tf.def.options ?? '');
    const stored = Array.isArray(before?.[tf.def.fieldname]) ? (before[tf.def.fieldname] as Doc[]) : [];
    for (const row of rows) {
      if (row === null || typeof row !== 'object' || Array.isArray(row)) continue;
      const name = (row as Doc).name;
      const match = name === undefined || name === null || name === '' ? undefined : stored.find((r) => r.name === name);
      reset(childMeta, row as Doc, match, levels, metaOf);
    }
  }
}
