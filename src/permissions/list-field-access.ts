import type { Meta } from '../meta/meta.js';
import { fieldLevel } from './field-level.js';
import { permittedLevels, roleGrant, type Actor } from './role-permissions.js';

/** Decides, for the list compiler, whether a column may be selected, filtered or sorted on. */
export type FieldAccess = (meta: Meta, fieldname: string) => boolean;

/**
 * The list compiler's `canRead` for a list of `listed` whose permissions come from `subject` (the
 * parent DocType when a child table is listed): fields above permlevel 0 need read at their level;
 * fields of child tables follow the subject's levels; fields reached through a Link need select on
 * the linked DocType and read at their level there. A user who holds only `select` on the subject
 * sees the standard columns and the search fields (docs/api.md "Lists").
 */
export function listFieldAccess(actor: Actor, subject: Meta, listed: Meta): FieldAccess {
  if (actor.isAdministrator) return () => true;
  const levels = permittedLevels(actor, subject, 'read');
  const selectOnly = roleGrant(actor, subject, 'read') === 'none' && roleGrant(actor, subject, 'select') !== 'none';
  const searchFields = new Set(
    (subject.def.search_fields ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );
  const linked = new Map<string, FieldAccess>();

  const ownField: FieldAccess = (meta, fieldname) => {
    const level = fieldLevel(meta, fieldname);
    if (level > 0 && !levels.has(level)) return false;
    if (!selectOnly) return true;
    return meta.field(fieldname) === undefined || (meta.name === subject.name && searchFields.has(fieldname));
  };
  const isOwnTable = (meta: Meta) =>
    meta.name === listed.name || meta.name === subject.name || (meta.isChild && listed.tableFields.some((f) => f.def.options === meta.name));

  return (meta, fieldname) => {
    if (isOwnTable(meta)) return ownField(meta, fieldname);
    let access = linked.get(meta.name);
    if (!access) {
      access = linkedFieldAccess(actor, meta);
      linked.set(meta.name, access);
    }
    return access(meta, fieldname);
  };
}

function linkedFieldAccess(actor: Actor, target: Meta): FieldAccess {
  if (roleGrant(actor, target, 'select') === 'none') return () => false;
  const levels = permittedLevels(actor, target, 'read');
  return (meta, fieldname) => {
    const level = fieldLevel(meta, fieldname);
    return level === 0 || levels.has(level);
  };
}
