import type { JsonSchema, OpenApiObject } from './json-schema.js';

/** The three ways to authenticate (docs/api.md "Authentication"). */
export const SECURITY_SCHEMES: Record<string, OpenApiObject> = {
  cookieAuth: {
    type: 'apiKey',
    in: 'cookie',
    name: 'sid',
    description:
      'The session cookie `POST /api/method/login` sets. A write it authenticates from another origin is refused ' +
      '(400 CSRFTokenError) unless that origin is allowed; send `X-Frappe-CSRF-Token` when the session has a token (docs/security.md).',
  },
  tokenAuth: {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description: '`token <api_key>:<api_secret>`; keys come from `fw.core.doctype.user.user.generate_keys`.',
  },
  basicAuth: { type: 'http', scheme: 'basic', description: '`<api_key>:<api_secret>` as Basic credentials.' },
  metricsToken: {
    type: 'http',
    scheme: 'bearer',
    description: 'site_config.json `metrics_token`, accepted by the metrics paths only (docs/deployment.md "Metrics").',
  },
};

/** Security requirements: any one scheme; with `guest`, no credentials too. */
export function security(guest: boolean): OpenApiObject[] {
  const schemes = [{ cookieAuth: [] }, { tokenAuth: [] }, { basicAuth: [] }];
  return guest ? [{}, ...schemes] : schemes;
}

const jsonText = (what: string): JsonSchema => ({ type: 'string', description: `${what} (JSON text; a JSON body may carry it as a value)` });

/** Query parameters of lists (docs/api.md "Lists"), as components named `list.<name>`. */
export const LIST_PARAMETERS: Record<string, OpenApiObject> = {
  'list.fields': { name: 'fields', in: 'query', schema: jsonText('A list of fields, `"*"`, aliases, `link.field`, aggregates') },
  'list.filters': { name: 'filters', in: 'query', schema: jsonText('`[[field, op, value], …]` or `{field: value}`') },
  'list.or_filters': { name: 'or_filters', in: 'query', schema: jsonText('Conditions ORed together') },
  'list.order_by': { name: 'order_by', in: 'query', schema: { type: 'string', description: '`field [asc|desc], …`' } },
  'list.group_by': { name: 'group_by', in: 'query', schema: { type: 'string' } },
  'list.limit_start': { name: 'limit_start', in: 'query', schema: { type: 'integer', minimum: 0 } },
  'list.limit_page_length': {
    name: 'limit_page_length',
    in: 'query',
    schema: { type: 'integer', minimum: 0, default: 20, description: '0: every row' },
  },
  'list.limit': {
    name: 'limit',
    in: 'query',
    schema: { type: 'integer', minimum: 0, description: 'Alias of limit_page_length (v1); the page size (v2, default 20).' },
  },
  'list.start': { name: 'start', in: 'query', schema: { type: 'integer', minimum: 0 } },
  'list.as_dict': { name: 'as_dict', in: 'query', schema: { type: 'integer', enum: [0, 1], default: 1, description: '0: rows as arrays' } },
  'list.parent': { name: 'parent', in: 'query', schema: { type: 'string', description: 'Required for a child DocType: its parent DocType.' } },
};

/** The list parameters of a version's list route. */
export function listParameters(style: 'v1' | 'v2'): OpenApiObject[] {
  const names =
    style === 'v1'
      ? ['fields', 'filters', 'or_filters', 'order_by', 'group_by', 'limit_start', 'limit_page_length', 'limit', 'as_dict', 'parent']
      : ['fields', 'filters', 'or_filters', 'order_by', 'group_by', 'start', 'limit', 'as_dict', 'parent'];
  return names.map((n) => ({ $ref: `#/components/parameters/list.${n}` }));
}

/** Schemas of any document, for the paths templated by DocType. */
export const GENERIC_SCHEMAS: Record<string, JsonSchema> = {
  FwDocument: {
    type: 'object',
    title: 'Document',
    description: 'A document of any DocType: the standard fields, its fields and its child tables as arrays of rows.',
    required: ['name', 'doctype'],
    properties: { name: { type: 'string' }, doctype: { type: 'string' } },
    additionalProperties: true,
  },
  FwDocumentInput: {
    type: 'object',
    title: 'Document fields',
    description: 'Field values to insert or merge; a table field replaces that child table.',
    additionalProperties: true,
  },
  FwListRow: {
    description: 'One row: an object of the requested columns, or an array of values with `as_dict=0`.',
    anyOf: [{ type: 'object', additionalProperties: true }, { type: 'array' }],
  },
};

/** A success answer: status 200 (unless given), JSON body `schema`. */
export function jsonResponse(description: string, schema: JsonSchema): OpenApiObject {
  return { description, content: { 'application/json': { schema } } };
}

/** The messages a successful answer may carry beside its result (the reference's `msgprint`). */
const MESSAGES_V1: JsonSchema = { type: 'string', description: 'A JSON-encoded list of JSON-encoded messages shown to the user.' };
const MESSAGES_V2: JsonSchema = { type: 'array', items: { type: 'object', additionalProperties: true } };

/** A `{"data": …}` body, with the messages of its version (v2 lists add `has_next_page` through `extra`). */
export function dataEnvelope(data: JsonSchema, style: 'v1' | 'v2', extra: Record<string, JsonSchema> = {}): JsonSchema {
  return {
    type: 'object',
    required: ['data', ...Object.keys(extra).filter((k) => k === 'has_next_page')],
    properties: { data, ...extra, ...(style === 'v1' ? { _server_messages: MESSAGES_V1 } : { messages: MESSAGES_V2 }) },
    additionalProperties: false,
  };
}

/** A method's v1 body: `{"message": result}`, or `{}` when it returns nothing, plus keys some methods add. */
export function messageEnvelope(result: JsonSchema): JsonSchema {
  return { type: 'object', properties: { message: result, _server_messages: MESSAGES_V1 }, additionalProperties: true };
}

/** A method's v2 body: `{"data": result}`, or `{}` when it returns nothing. */
export function methodDataEnvelope(result: JsonSchema): JsonSchema {
  return { type: 'object', properties: { data: result, messages: MESSAGES_V2 }, additionalProperties: true };
}
