import type { Principal } from '../auth/principal.js';
import { GUEST } from '../auth/principal.js';
import { DoesNotExistError, PermissionError } from '../errors/index.js';
import type { Meta } from '../meta/meta.js';
import { permittedLevels, roleGrant, type Actor } from '../permissions/role-permissions.js';
import { mayCallMethod, type MethodDefinition } from '../rpc/method-registry.js';
import { GENERIC_SCHEMAS, LIST_PARAMETERS, SECURITY_SCHEMES } from './common-components.js';
import { ComponentNames } from './component-names.js';
import { doctypeSchemas, type FieldLevels } from './doctype-schemas.js';
import { errorResponses, errorSchemas } from './error-responses.js';
import type { JsonSchema, OpenApiObject } from './json-schema.js';
import { genericMethodPaths, methodPaths } from './method-paths.js';
import { otherPaths } from './other-paths.js';
import { doctypeResourcePaths, genericResourcePaths, type DocTypeView, type Rights } from './resource-paths.js';
import { doctypeV2Paths, genericV2Paths } from './v2-paths.js';

/** What the description is built from: the site's metadata and methods, and who asks. */
export interface DescribeInput {
  readonly metas: { names(): string[]; get(doctype: string): Meta };
  readonly methods: readonly MethodDefinition[];
  readonly principal: Principal;
  /** Only this DocType's paths and schemas (`?doctype=`). */
  readonly doctype?: string;
  /** fw's version, for `info.version`. */
  readonly version: string;
  /** Extra paths other modules serve (the discovery routes). */
  readonly extraPaths?: Record<string, Record<string, OpenApiObject>>;
}

/** Names the fixed schemas take, which no DocType's schemas may take too. */
const RESERVED = ['FwError', 'FwErrorV2', 'FwDocument', 'FwDocumentInput', 'FwListRow', 'Documents'];

function rightsOf(actor: Actor, meta: Meta): Rights {
  const has = (right: 'read' | 'create' | 'write' | 'delete') => roleGrant(actor, meta, right) !== 'none';
  return { read: has('read'), create: has('create'), write: has('write'), delete: has('delete') };
}

const union = (a: ReadonlySet<number> | undefined, b: ReadonlySet<number>) => new Set([...(a ?? []), ...b]);

/**
 * The DocTypes the caller may read (a role grants read or write: docs/openapi.md "What you see"), and the child DocTypes their tables hold, each with the permlevels the caller may
 * read and write. Child rows take their parent's levels (docs/architecture.md "Permissions").
 */
function visibleDocTypes(input: DescribeInput): { views: Meta[]; levels: Map<string, FieldLevels> } {
  const actor = input.principal;
  const levels = new Map<string, FieldLevels>();
  const views: Meta[] = [];
  const wanted = input.doctype === undefined ? input.metas.names() : [input.doctype];
  for (const name of wanted.sort()) {
    const meta = input.metas.get(name);
    if (meta.isChild) {
      if (input.doctype !== undefined) throw new PermissionError(`${name} is a child DocType: ask for its parent`, { doctype: name });
      continue;
    }
    const rights = rightsOf(actor, meta);
    // Readable: a role grants read, or write (which reads too, as for field levels).
    if (!rights.read && !rights.write) {
      if (input.doctype !== undefined) throw new PermissionError(`No permission for ${name}`, { doctype: name });
      continue;
    }
    views.push(meta);
    const own: FieldLevels = { read: permittedLevels(actor, meta, 'read'), write: permittedLevels(actor, meta, 'write') };
    levels.set(name, own);
    addChildren(input, meta, own, levels, new Set([name]));
  }
  return { views, levels };
}

function addChildren(input: DescribeInput, meta: Meta, own: FieldLevels, levels: Map<string, FieldLevels>, seen: Set<string>): void {
  for (const table of meta.tableFields) {
    const child = table.def.options ?? '';
    if (seen.has(child)) continue;
    let childMeta: Meta;
    try {
      childMeta = input.metas.get(child);
    } catch (err) {
      if (err instanceof DoesNotExistError) continue;
      throw err;
    }
    const before = levels.get(child);
    levels.set(child, { read: union(before?.read, own.read), write: union(before?.write, own.write) });
    addChildren(input, childMeta, own, levels, new Set([...seen, child]));
  }
}

/**
 * The OpenAPI 3.1 description of the site as `input.principal` may use it (docs/openapi.md):
 * concrete v1 and v2 paths per DocType with component schemas generated from their fields, the
 * templated paths, every method the caller may call, files, the error bodies of the catalogue and
 * the security schemes.
 */
export function buildOpenApi(input: DescribeInput): OpenApiObject {
  if (input.doctype !== undefined) input.metas.get(input.doctype);
  const { views, levels } = visibleDocTypes(input);
  const names = new ComponentNames(levels.keys(), RESERVED);
  const schemas: Record<string, JsonSchema> = { ...errorSchemas(), ...GENERIC_SCHEMAS };
  for (const [doctype, fieldLevels] of [...levels].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    Object.assign(schemas, doctypeSchemas(input.metas.get(doctype), fieldLevels, names));
  }
  const narrowed = input.doctype !== undefined;
  // Only what the caller may call (docs/openapi.md): a method reserved to some roles is not listed for others.
  const methods = input.methods.filter((m) => mayCallMethod(m, input.principal));
  const paths: Record<string, Record<string, OpenApiObject>> = narrowed
    ? {}
    : { ...genericResourcePaths(), ...genericV2Paths(), ...genericMethodPaths(), ...methodPaths(methods), ...otherPaths(), ...input.extraPaths };
  for (const meta of views) {
    const view: DocTypeView = { meta, key: names.of(meta.name), may: rightsOf(input.principal, meta), guest: rightsOf(GUEST, meta) };
    Object.assign(paths, doctypeResourcePaths(view), doctypeV2Paths(view));
  }
  const tags = [
    { name: 'Documents', description: 'Any DocType, by name (docs/api.md "Documents").' },
    { name: 'Methods', description: 'Whitelisted methods (docs/api.md "Methods").' },
    { name: 'Files', description: 'Stored files (docs/files.md).' },
    { name: 'Realtime', description: 'Live events (docs/realtime.md).' },
    { name: 'Description', description: 'This description and method discovery (docs/openapi.md).' },
    { name: 'Operations', description: 'Metrics for monitoring (docs/deployment.md "Metrics").' },
    ...views.map((m) => ({ name: m.name, ...(m.def.description ? { description: m.def.description } : {}) })),
  ];
  return {
    openapi: '3.1.0',
    info: {
      title: 'fw',
      version: input.version,
      description:
        // No user name: the description is shared by everyone with the same roles (openapi-cache.ts).
        'The REST API of this fw site as the caller may use it: Frappe-compatible v1 (`/api/resource`, ' +
        '`/api/method`) and v2 (`/api/v2/...`). See docs/api.md and docs/openapi.md.',
    },
    servers: [{ url: '/' }],
    security: [{ cookieAuth: [] }, { tokenAuth: [] }, { basicAuth: [] }],
    tags: narrowed ? tags.filter((t) => t.name === input.doctype || t.name === 'Documents') : tags,
    paths,
    components: {
      schemas,
      responses: errorResponses(),
      parameters: LIST_PARAMETERS,
      securitySchemes: SECURITY_SCHEMES,
    },
  };
}
