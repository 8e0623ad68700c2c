/** A JSON Schema (2020-12, the dialect of OpenAPI 3.1) as plain data. */
export type JsonSchema = { [keyword: string]: unknown };

/** An OpenAPI object (operation, path item, response...) as plain data. */
export type OpenApiObject = { [key: string]: unknown };

/** A `$ref` to a component schema. */
export function ref(name: string): JsonSchema {
  return { $ref: `#/components/schemas/${name}` };
}

/**
 * `schema` that also admits null: v2 bodies keep null fields and a field never set reads as null
 * (docs/api.md "Documents").
 */
export function nullable(schema: JsonSchema): JsonSchema {
  if (Array.isArray(schema.enum)) return { ...schema, enum: [...schema.enum, null], ...withNullType(schema) };
  if (typeof schema.type === 'string') return { ...schema, type: [schema.type, 'null'] };
  // No type, enum or reference: any JSON value, null included already.
  if (schema.type === undefined && schema.$ref === undefined && schema.anyOf === undefined) return schema;
  return { anyOf: [schema, { type: 'null' }] };
}

function withNullType(schema: JsonSchema): JsonSchema {
  return typeof schema.type === 'string' ? { type: [schema.type, 'null'] } : {};
}
