import type { Principal } from '../auth/principal.js';
import { DoesNotExistError, PermissionError } from '../errors/index.js';
import type { Meta } from '../meta/meta.js';
import { roleGrant } from '../permissions/role-permissions.js';
import type { DocMethodDefinition } from '../rpc/doc-methods.js';
import type { JsonSchema } from '../rpc/method-params.js';
import { mayCallMethod, type MethodDefinition, type MethodRegistry } from '../rpc/method-registry.js';

/*
 * The reference's v2 discovery documents (docs/openapi.md "Discovery"), answered from the method
 * registry: the same parameter schemas that validate calls describe them here. Built on each
 * request (the registry is in memory), so there is no warm-up and no "being generated" 503.
 */

/** A method as the index lists it. */
export interface MethodSummary {
  readonly path: string;
  readonly allow_guest: boolean;
  readonly description?: string;
}

/** One parameter in a method document; `schema` is fw's addition to the reference's shape. */
export interface MethodParameter {
  readonly name: string;
  readonly required: boolean;
  readonly default?: unknown;
  readonly type?: string;
  readonly schema: JsonSchema;
}

/** The methods the principal may call: Guest only those that allow guests, and role-reserved ones only to their roles. */
function visible(methods: MethodRegistry, principal: Principal): MethodDefinition[] {
  return methods.list().filter((m) => mayCallMethod(m, principal));
}

function summary(def: MethodDefinition): MethodSummary {
  const description = def.description?.split('\n')[0];
  return { path: def.path, allow_guest: def.allowGuest, ...(description ? { description } : {}) };
}

/** `GET /api/v2/discovery`. */
export function discoveryRoot(methods: MethodRegistry, principal: Principal): object {
  return {
    type: 'discovery',
    resources: { methods: visible(methods, principal).length },
    links: {
      self: '/api/v2/discovery',
      search: '/api/v2/discovery/search?q={query}',
      methods: '/api/v2/discovery/method',
      method: '/api/v2/discovery/method/{method}',
    },
  };
}

/** `GET /api/v2/discovery/method`. */
export function methodIndex(methods: MethodRegistry, principal: Principal): object {
  return { type: 'method_index', methods: visible(methods, principal).map(summary) };
}

const MAX_RESULTS = 50;

/** `GET /api/v2/discovery/search?q=`: methods whose path and description hold every word of `q`. */
export function searchMethods(methods: MethodRegistry, principal: Principal, q: string): object {
  const tokens = q
    .trim()
    .toLowerCase()
    .split(/\s+/)
    .filter((t) => t !== '');
  const results = visible(methods, principal)
    .filter((def) => {
      const haystack = `method ${def.path} ${def.description ?? ''}`.toLowerCase();
      return tokens.every((t) => haystack.includes(t));
    })
    .slice(0, MAX_RESULTS)
    .map((def) => ({ type: 'method', ...summary(def) }));
  return { query: q, results };
}

/** A JSON Schema's type as one name: `string`, `integer`, `string | array`; undefined for any value. */
function typeName(schema: JsonSchema): string | undefined {
  if (typeof schema.type === 'string') return schema.type;
  if (Array.isArray(schema.type)) return schema.type.join(' | ');
  const options = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  const names = options?.map(typeName).filter((n): n is string => n !== undefined);
  return names?.length ? names.join(' | ') : undefined;
}

/** `GET /api/v2/discovery/method/<path>`: one method with its parameters; 404 when the caller cannot call it. */
export function methodDocument(methods: MethodRegistry, principal: Principal, path: string): object {
  const def = methods.resolve(path);
  if (!def || !mayCallMethod(def, principal)) {
    throw new DoesNotExistError(`Method ${path.slice(0, 140)} is not available for discovery`);
  }
  const required = new Set(def.schema.required ?? []);
  const params: MethodParameter[] = Object.entries(def.schema.properties).map(([name, schema]) => {
    const type = typeName(schema);
    return {
      name,
      required: required.has(name),
      ...(schema.default !== undefined ? { default: schema.default } : {}),
      ...(type ? { type } : {}),
      schema,
    };
  });
  return {
    type: 'method',
    path: def.path,
    name: def.path.split('.').pop(),
    http_methods: [...def.methods],
    allow_guest: def.allowGuest,
    params,
    endpoint: `/api/v2/method/${def.path}`,
    ...(def.description ? { docstring: def.description } : {}),
    ...(def.result ? { returns: def.result } : {}),
  };
}

/** Where the DocType's methods come from: the metadata and the method registry. */
export interface DocTypeMethodSource {
  readonly metas: { has(doctype: string): boolean; get(doctype: string): Meta };
  readonly methods: MethodRegistry;
}

/**
 * The DocType whose document methods the principal may discover: one they may read or write
 * (document methods need one or the other), not a child DocType (reached through its parent).
 * An unknown DocType is 404, one they cannot use 403, as for its documents.
 */
function discoverableDocType(source: DocTypeMethodSource, principal: Principal, doctype: string): Meta {
  if (!source.metas.has(doctype)) throw new DoesNotExistError(`DocType ${doctype.slice(0, 140)} not found`);
  const meta = source.metas.get(doctype);
  if (meta.isChild) throw new DoesNotExistError(`DocType ${doctype} is not available for discovery`);
  if (roleGrant(principal, meta, 'read') === 'none' && roleGrant(principal, meta, 'write') === 'none') {
    throw new PermissionError(`No permission for ${doctype}`, { doctype });
  }
  return meta;
}

function docMethodSummary(meta: Meta, def: DocMethodDefinition): object {
  const description = def.description?.split('\n')[0];
  return { type: 'method', kind: 'doctype', doctype: meta.name, method: def.name, ...(description ? { description } : {}) };
}

/** `GET /api/v2/discovery/doctype/<DocType>`: the whitelisted methods of its documents. */
export function doctypeMethodIndex(source: DocTypeMethodSource, principal: Principal, doctype: string): object {
  const meta = discoverableDocType(source, principal, doctype);
  const methods = source.methods.docMethods.forDocType(meta).map((def) => docMethodSummary(meta, def));
  return { type: 'method_index', doctype: meta.name, methods };
}

/** `GET /api/v2/discovery/doctype/<DocType>/method/<m>`: one document method and how to call it. */
export function doctypeMethodDocument(source: DocTypeMethodSource, principal: Principal, doctype: string, method: string): object {
  const meta = discoverableDocType(source, principal, doctype);
  const def = source.methods.docMethods.forDocType(meta).find((d) => d.name === method);
  if (!def) throw new DoesNotExistError(`Method ${method.slice(0, 140)} is not available for discovery on DocType ${doctype}`);
  return {
    type: 'method',
    kind: 'doctype',
    doctype: meta.name,
    method: def.name,
    endpoint: `/api/v2/document/${encodeURIComponent(meta.name)}/{name}/method/${def.name}`,
    // The v2 document-method route takes GET (read permission) and POST (write permission).
    http_methods: def.methods.filter((v) => v === 'GET' || v === 'POST'),
    permission: { GET: 'read', POST: 'write' },
    params: [],
    ...(def.description ? { docstring: def.description } : {}),
  };
}
