import { definitionProblem } from '../meta/check-definition.js';
import type { DocTypeDef } from '../meta/doctype.js';
import type { FieldTypeRegistry } from '../meta/field-types/registry.js';

/** An app's name and the DocTypes it ships, as far as the checks need them. */
export interface AppDocTypes {
  readonly name: string;
  readonly doctypes: readonly DocTypeDef[];
}

/**
 * Checks the DocTypes of every app of a site before anything is stored, with the rules the DocType
 * controller applies to DocTypes made through the API (meta/check-definition.ts): names, fieldnames,
 * field types, and that Table and Link fields point at a built-in DocType or one of the apps'. A
 * DocType name may belong to one app only and never to a built-in. Throws an Error naming the app,
 * DocType and field.
 */
export function checkAppDocTypes(apps: readonly AppDocTypes[], types: FieldTypeRegistry, builtIn: readonly DocTypeDef[]): void {
  const known = new Map<string, DocTypeDef>(builtIn.map((d) => [d.name, d]));
  const owner = new Map<string, string>();
  for (const app of apps) {
    for (const def of app.doctypes) {
      const fail = (problem: string): never => {
        throw new Error(`App "${app.name}": DocType ${def.name}: ${problem}`);
      };
      if (builtIn.some((d) => d.name === def.name)) fail('a built-in DocType has this name');
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
  const problem = definitionProblem(def, { types, doctype: (name) => known.get(name) });
  if (problem !== undefined) throw new Error(`App "${app}": DocType ${def.name}: ${problem}`);
}
