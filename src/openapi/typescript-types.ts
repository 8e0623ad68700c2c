import type { JsonSchema } from './json-schema.js';

/*
 * TypeScript types for clients from the description's component schemas (docs/openapi.md "fw
 * types"): one interface per DocType schema (`ToDo`, `ToDoCreate`, `ToDoUpdate`, `ToDoListRow`),
 * the error bodies, and a map from DocType names to their types. Written here rather than with a
 * generator package so `fw types` needs nothing beyond fw's own dependencies; it handles exactly
 * the JSON Schema the description uses.
 */

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const REF = '#/components/schemas/';

function key(name: string): string {
  return IDENTIFIER.test(name) ? name : JSON.stringify(name);
}

function comment(schema: JsonSchema, indent: string): string {
  const parts = [schema.title, schema.description].filter((p): p is string => typeof p === 'string' && p !== '');
  const link = schema['x-fw-link'];
  if (typeof link === 'string' && typeof schema.description !== 'string') parts.push(`Link to ${link}.`);
  if (parts.length === 0) return '';
  const text = [...new Set(parts)].join(' ').replace(/\*\//g, '*\\/');
  return `${indent}/** ${text} */\n`;
}

const TYPES: Readonly<Record<string, string>> = {
  string: 'string',
  integer: 'number',
  number: 'number',
  boolean: 'boolean',
  null: 'null',
};

/** The TypeScript type of a schema. */
export function typeOf(schema: JsonSchema, indent = ''): string {
  if (typeof schema.$ref === 'string' && schema.$ref.startsWith(REF)) return schema.$ref.slice(REF.length);
  if ('const' in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  const alternatives = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (alternatives) return alternatives.map((s) => typeOf(s, indent)).join(' | ');
  if (Array.isArray(schema.allOf)) return (schema.allOf as JsonSchema[]).map((s) => typeOf(s, indent)).join(' & ');
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : typeof schema.type === 'string' ? [schema.type] : [];
  if (types.length === 0) return schema.properties ? objectType(schema, indent) : 'unknown';
  return types
    .map((t) => {
      if (t === 'array') return `Array<${schema.items ? typeOf(schema.items as JsonSchema, indent) : 'unknown'}>`;
      if (t === 'object') return objectType(schema, indent);
      return TYPES[t] ?? 'unknown';
    })
    .join(' | ');
}

function objectType(schema: JsonSchema, indent: string): string {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  if (Object.keys(properties).length === 0) return 'Record<string, unknown>';
  return `{\n${members(schema, `${indent}  `)}${indent}}`;
}

function members(schema: JsonSchema, indent: string): string {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  let out = '';
  for (const [name, property] of Object.entries(properties)) {
    const readonly = property.readOnly === true ? 'readonly ' : '';
    out += `${comment(property, indent)}${indent}${readonly}${key(name)}${required.has(name) ? '' : '?'}: ${typeOf(property, indent)};\n`;
  }
  // Objects declared open (list rows with aliases and aggregates, any document) take other keys too.
  if (schema.additionalProperties === true) {
    out += `${indent}[key: string]: unknown;\n`;
  }
  return out;
}

/** A method as the types describe it: its path and the schemas of its parameters and result. */
export interface MethodTypeSource {
  readonly path: string;
  readonly description?: string | undefined;
  readonly schema: JsonSchema;
  readonly result?: JsonSchema | undefined;
}

/** `Methods`: each method's parameters and result, by path. */
function methodsInterface(methods: readonly MethodTypeSource[]): string {
  let out = "\n/** Each method's parameters (the call's arguments) and result (`message` in v1, `data` in v2), by path. */\nexport interface Methods {\n";
  for (const m of methods) {
    const summary = m.description?.split('\n')[0];
    const params = typeOf({ ...m.schema, description: undefined }, '    ');
    out += `${summary ? comment({ description: summary }, '  ') : ''}  ${JSON.stringify(m.path)}: {\n    params: ${params};\n    result: ${m.result ? typeOf(m.result, '    ') : 'unknown'};\n  };\n`;
  }
  return `${out}}\n`;
}

/**
 * A TypeScript module declaring every component schema, `DocTypes` (the map from DocType names to
 * their types) and `Methods` (each method's parameters and result).
 */
export function typescriptTypes(schemas: Record<string, JsonSchema>, header: string, methods: readonly MethodTypeSource[] = []): string {
  let out = `${header}\n`;
  const doctypes = new Map<string, Record<string, string>>();
  for (const [name, schema] of Object.entries(schemas)) {
    out += `\n${comment(schema, '')}`;
    const type = typeOf(schema);
    out += type.startsWith('{') ? `export interface ${name} ${type}\n` : `export type ${name} = ${type};\n`;
    const doctype = schema['x-fw-doctype'];
    if (typeof doctype === 'string') {
      const kinds = doctypes.get(doctype) ?? {};
      const kind = name.endsWith('ListRow') ? 'listRow' : name.endsWith('Create') ? 'create' : name.endsWith('Update') ? 'update' : 'doc';
      kinds[kind] = name;
      doctypes.set(doctype, kinds);
    }
  }
  out += "\n/** Each DocType's types: the document as read, what an insert and an update take, a list row. */\nexport interface DocTypes {\n";
  for (const [doctype, kinds] of [...doctypes].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    const entries = Object.entries(kinds).map(([kind, name]) => `${kind}: ${name}`);
    out += `  ${JSON.stringify(doctype)}: { ${entries.join('; ')} };\n`;
  }
  out += '}\n\n/** Every DocType name. */\nexport type DocTypeName = keyof DocTypes;\n';
  return methods.length ? out + methodsInterface(methods) : out;
}
