import { CORE_DOCTYPES } from '../meta/core-doctypes/index.js';
import { CHILD_FIELDS, STANDARD_FIELDS, type DocTypeDef } from '../meta/doctype.js';
import type { FieldTypeRegistry } from '../meta/field-types/registry.js';
import { Meta } from '../meta/meta.js';

/** An app's name and the DocTypes it ships, as far as the checks need them. */
export interface AppDocTypes {
  readonly name: string;
  readonly doctypes: readonly DocTypeDef[];
}

const RESERVED = new Set<string>([...STANDARD_FIELDS, ...CHILD_FIELDS, 'doctype']);
const FIELDNAME = /^[a-z_][a-z0-9_]{0,63}$/;
const DOCTYPE_NAME = /^[A-Za-z][A-Za-z0-9 _-]{0,60}$/;

/**
 * Checks the DocTypes of every app of a site before anything is stored, with the rules the DocType
 * controller applies to DocTypes made through the API: names, fieldnames, field types, and that
 * Table and Link fields point at a built-in DocType or one of the apps'. A DocType name may belong
 * to one app only and never to a built-in. Throws an Error naming the app, DocType and field.
 */
export function checkAppDocTypes(apps: readonly AppDocTypes[], types: FieldTypeRegistry): void {
  const known = new Map<string, DocTypeDef>(CORE_DOCTYPES.map((d) => [d.name, d]));
  const owner = new Map<string, string>();
  for (const app of apps) {
    for (const def of app.doctypes) {
      const fail = (problem: string): never => {
        throw new Error(`App "${app.name}": DocType ${def.name}: ${problem}`);
      };
      if (!DOCTYPE_NAME.test(def.name)) {
        fail('the name must start with a letter and hold only letters, digits, spaces, _ and - (at most 61 characters)');
      }
      if (CORE_DOCTYPES.some((d) => d.name === def.name)) fail('a built-in DocType has this name');
      const other = owner.get(def.name);
      if (other !== undefined) fail(other === app.name ? 'defined twice' : `app "${other}" defines it too`);
      owner.set(def.name, app.name);
      known.set(def.name, def);
    }
  }
  for (const app of apps) {
    for (const def of app.doctypes) checkFields(app.name, def, known, types);
  }
}

function checkFields(app: string, def: DocTypeDef, known: ReadonlyMap<string, DocTypeDef>, types: FieldTypeRegistry): void {
  const fail = (problem: string): never => {
    throw new Error(`App "${app}": DocType ${def.name}: ${problem}`);
  };
  const seen = new Set<string>();
  for (const f of def.fields) {
    const field = `field ${f.fieldname}`;
    if (!FIELDNAME.test(f.fieldname)) fail(`${field}: a fieldname is lower case letters, digits and _, starting with a letter or _`);
    if (RESERVED.has(f.fieldname)) fail(`${field}: the name is reserved for a standard field`);
    if (seen.has(f.fieldname)) fail(`${field}: appears more than once`);
    seen.add(f.fieldname);
    if (!types.has(f.fieldtype)) fail(`${field}: unknown field type "${f.fieldtype}"`);
    const target = f.options === undefined ? undefined : known.get(f.options);
    if ((f.fieldtype === 'Table' || f.fieldtype === 'Table MultiSelect') && target?.istable !== 1) {
      fail(`${field}: options must name a child table DocType (istable 1), built in or shipped by an app`);
    }
    if (f.fieldtype === 'Link' && target === undefined) {
      fail(`${field}: options must name the DocType the Link points to, built in or shipped by an app`);
    }
    if (f.fieldtype === 'Dynamic Link' && !def.fields.some((o) => o.fieldname === f.options)) {
      fail(`${field}: options must name the field that holds the DocType`);
    }
  }
  const autoname = def.autoname ?? '';
  if (autoname.startsWith('field:') && !seen.has(autoname.slice(6).trim())) fail(`autoname ${autoname}: no such field`);
  // Compiling resolves every field type once more and catches anything left.
  new Meta(def, types);
}
