import { CHILD_FIELDS, STANDARD_FIELDS, type DocTypeDef } from './doctype.js';
import type { FieldTypeRegistry } from './field-types/registry.js';
import { COLLABORATION_COLUMNS, Meta } from './meta.js';

const RESERVED = new Set<string>([...STANDARD_FIELDS, ...CHILD_FIELDS, ...COLLABORATION_COLUMNS, 'doctype']);
const FIELDNAME = /^[a-z_][a-z0-9_]{0,63}$/;
const DOCTYPE_NAME = /^[A-Za-z][A-Za-z0-9 _-]{0,60}$/;

/** What a definition is checked against: the field types, and the DocTypes its fields may point at. */
export interface DefinitionWorld {
  readonly types: FieldTypeRegistry;
  /** The DocType of that name, or undefined when none exists (the one being checked is known without it). */
  doctype(name: string): Pick<DocTypeDef, 'istable'> | undefined;
}

/**
 * The first thing wrong with a DocType definition, or undefined when it may be stored: its name,
 * its fieldnames, its field types, and what Link, Dynamic Link and Table fields point at. One
 * checker for DocTypes made through the API (the DocType controller) and DocTypes apps ship
 * (docs/apps.md "DocTypes"), so both follow the same rules.
 */
export function definitionProblem(def: DocTypeDef, world: DefinitionWorld): string | undefined {
  if (!DOCTYPE_NAME.test(def.name)) {
    return `DocType name "${def.name}" must start with a letter and hold only letters, digits, spaces, _ and - (at most 61 characters)`;
  }
  const seen = new Set<string>();
  for (const f of def.fields) {
    const field = `Field ${String(f.fieldname)}`;
    if (!FIELDNAME.test(f.fieldname ?? '')) {
      return `Fieldname "${String(f.fieldname)}" must be lower case letters, digits and _, starting with a letter or _`;
    }
    if (RESERVED.has(f.fieldname)) return `Fieldname "${f.fieldname}" is reserved for a standard field`;
    if (seen.has(f.fieldname)) return `Fieldname "${f.fieldname}" appears more than once`;
    seen.add(f.fieldname);
    if (!world.types.has(f.fieldtype)) return `${field}: unknown field type "${f.fieldtype}"`;
    const target = !f.options ? undefined : f.options === def.name ? def : world.doctype(f.options);
    switch (world.types.get(f.fieldtype).options) {
      case 'child-doctype':
        if (target?.istable !== 1) return `${field}: options must name a child table DocType (istable)`;
        break;
      case 'doctype':
        if (target === undefined) return `${field}: options must name the DocType the Link points to`;
        break;
      case 'doctype-field':
        if (!def.fields.some((o) => o.fieldname === f.options)) return `${field}: options must name the field that holds the DocType`;
        break;
    }
  }
  const autoname = def.autoname ?? '';
  if (autoname.startsWith('field:') && !seen.has(autoname.slice(6).trim())) return `autoname ${autoname}: no such field`;
  // Compiling resolves every field type once more and catches anything left.
  new Meta(def, world.types);
  return undefined;
}
