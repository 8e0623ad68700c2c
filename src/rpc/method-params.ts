import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { FrappeTypeError } from '../errors/index.js';

/** The declared type of a method parameter; values are coerced leniently, as the reference does. */
export type ParamType = 'string' | 'int' | 'bool' | 'json' | 'object' | 'list' | 'any';

/** One declared parameter of a whitelisted method (the short form of a parameter schema). */
export interface ParamSpec {
  readonly name: string;
  readonly type: ParamType;
  readonly required?: boolean;
  readonly description?: string;
}

/** A JSON Schema (2020-12) as plain data. */
export type JsonSchema = { readonly [keyword: string]: unknown };

/**
 * A method's parameters as one JSON Schema object (docs/openapi.md "Method parameters"): each
 * property is a parameter. The same schema validates calls, describes the method in the OpenAPI
 * description and answers `/api/v2/discovery/method/<path>`.
 */
export interface ParamsSchema {
  readonly type: 'object';
  readonly properties: { readonly [name: string]: JsonSchema };
  readonly required?: readonly string[];
  readonly description?: string;
}

const TYPE_SCHEMAS: Readonly<Record<ParamType, JsonSchema>> = {
  string: { type: 'string' },
  int: { type: 'integer' },
  bool: { type: 'boolean' },
  json: {},
  object: { type: 'object' },
  list: { type: 'array' },
  any: {},
};

/** True when `params` is the schema form rather than a list of ParamSpecs. */
export function isParamsSchema(params: readonly ParamSpec[] | ParamsSchema): params is ParamsSchema {
  return !Array.isArray(params);
}

/** The schema of a list of ParamSpecs. */
export function schemaOfSpecs(specs: readonly ParamSpec[]): ParamsSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const spec of specs) {
    properties[spec.name] = spec.description ? { ...TYPE_SCHEMAS[spec.type], description: spec.description } : TYPE_SCHEMAS[spec.type];
  }
  const required = specs.filter((s) => s.required).map((s) => s.name);
  return { type: 'object', properties, ...(required.length ? { required } : {}) };
}

/**
 * The coercions a schema asks for: numbers and booleans arrive as text in query strings and forms,
 * objects and lists as JSON text (docs/api.md "Requests and answers").
 */
export function specsOfSchema(schema: ParamsSchema): ParamSpec[] {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties).map(([name, property]) => ({
    name,
    type: paramTypeOf(property),
    ...(required.has(name) ? { required: true } : {}),
  }));
}

function paramTypeOf(schema: JsonSchema): ParamType {
  switch (schema.type) {
    case 'string':
      return 'string';
    case 'integer':
      return 'int';
    case 'boolean':
      return 'bool';
    case 'object':
      return 'object';
    case 'array':
      return 'list';
    default:
      return structuredAlternative(schema) ? 'json' : 'any';
  }
}

/** True for a schema such as `anyOf: [array, string]`: JSON text is parsed, other text kept. */
function structuredAlternative(schema: JsonSchema): boolean {
  const options = [...((schema.anyOf as JsonSchema[] | undefined) ?? []), ...((schema.oneOf as JsonSchema[] | undefined) ?? [])];
  return options.some((o) => o.type === 'array' || o.type === 'object');
}

// ajv-formats is CommonJS; its default export arrives wrapped under ES module interop.
type AddFormats = (ajv: Ajv) => Ajv;
const addFormats: AddFormats = (addFormatsModule as unknown as { default?: AddFormats }).default ?? (addFormatsModule as unknown as AddFormats);

/** One Ajv for every method schema; `x-` keywords are documentation, not validation. */
function createAjv(): Ajv {
  const ajv = new Ajv({ strict: false, allErrors: false, validateFormats: true });
  addFormats(ajv);
  return ajv;
}

let shared: Ajv | undefined;

/**
 * A validator of coerced arguments against a method's schema: a value of the wrong shape is 417
 * FrappeTypeError naming the parameter, as a missing required one is (docs/api.md "Methods").
 * Arguments the schema does not declare pass through untouched.
 */
export function paramsValidator(schema: ParamsSchema): (args: Record<string, unknown>) => void {
  let validate: ValidateFunction | undefined;
  return (args) => {
    if (Object.keys(schema.properties).length === 0) return;
    shared ??= createAjv();
    validate ??= shared.compile({ type: 'object', properties: schema.properties });
    const present: Record<string, unknown> = {};
    for (const name of Object.keys(schema.properties)) {
      const value = args[name];
      if (value !== undefined && value !== null && value !== '') present[name] = value;
    }
    if (validate(present)) return;
    throw argumentError(validate.errors ?? []);
  };
}

/**
 * The first complaint, in words: Ajv reports a failed `anyOf` after the complaint of each
 * alternative, so that one is told as "must be array or string".
 */
function argumentError(errors: readonly ErrorObject[]): FrappeTypeError {
  const last = errors[errors.length - 1];
  const alternatives = last?.keyword === 'anyOf' || last?.keyword === 'oneOf';
  const error = alternatives ? last : errors[0];
  let message = error?.message ?? 'is invalid';
  if (alternatives) {
    const types = errors.filter((e) => e.instancePath === last.instancePath && e.keyword === 'type').map((e) => String(e.params.type));
    if (types.length) message = `must be ${types.join(' or ')}`;
  }
  const path = (error?.instancePath ?? '').split('/').filter((p) => p !== '');
  const name = path[0] ?? 'arguments';
  const where = path.length > 1 ? ` (at ${path.slice(1).join('.')})` : '';
  return new FrappeTypeError(`Argument ${name}${where} ${message}`);
}
