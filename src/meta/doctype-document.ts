import { CHILD_FIELDS, STANDARD_FIELDS, type Doc, type DocField, type DocPerm, type DocTypeDef } from './doctype.js';

const NOT_DEFINITION_KEYS = new Set<string>([...STANDARD_FIELDS, ...CHILD_FIELDS, 'doctype']);

/** Copies the defined (non-null) definition keys of a stored row, dropping standard columns. */
function definitionKeys(row: Doc): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) {
    if (v === null || v === undefined || v === '' || NOT_DEFINITION_KEYS.has(k)) continue;
    out[k] = v;
  }
  return out;
}

/** A DocType document (as stored and returned by the API) turned into its definition. */
export function docToDefinition(doc: Doc): DocTypeDef {
  const head = definitionKeys(doc);
  delete head.fields;
  delete head.permissions;
  const rows = (value: unknown): Doc[] => (Array.isArray(value) ? (value as Doc[]) : []);
  return {
    ...(head as Omit<DocTypeDef, 'fields' | 'permissions'>),
    name: String(doc.name),
    fields: rows(doc.fields).map((r) => definitionKeys(r) as unknown as DocField),
    permissions: rows(doc.permissions).map((r) => definitionKeys(r) as unknown as DocPerm),
  };
}

/** A definition turned into the DocType document that stores it, child rows inline. */
export function definitionToDoc(def: DocTypeDef): Doc {
  return {
    ...def,
    fields: def.fields.map((f, i) => ({ ...f, idx: i + 1 })),
    permissions: (def.permissions ?? []).map((p, i) => ({ ...p, idx: i + 1 })),
  };
}
