import type { Meta } from '../meta/meta.js';
import { dataEnvelope, listParameters } from './common-components.js';
import { WRITE_ERRORS } from './error-responses.js';
import { ref, type JsonSchema, type OpenApiObject } from './json-schema.js';
import { operation, pathParameter } from './operation.js';

/** The rights the caller holds on a DocType, and those Guest holds (for the "no credentials" option). */
export interface Rights {
  readonly read: boolean;
  readonly create: boolean;
  readonly write: boolean;
  readonly delete: boolean;
}

/** A DocType as a caller sees it in the description. */
export interface DocTypeView {
  readonly meta: Meta;
  /** Its component schema base name. */
  readonly key: string;
  readonly may: Rights;
  readonly guest: Rights;
}

type Style = 'v1' | 'v2';
type PathItems = Record<string, Record<string, OpenApiObject>>;

const NAME_NOTE = 'Percent-encode it; it may hold `/`.';

/** `?run_method=` on a v1 GET: a document method that allows GET, answered `{"data": <result>}` (docs/api.md "Document methods"). */
const RUN_METHOD_GET = {
  name: 'run_method',
  in: 'query',
  schema: { type: 'string' },
  description: 'Runs this whitelisted document method (one that allows GET; read permission) instead of reading the document.',
};

function deleted(style: Style): JsonSchema {
  if (style === 'v2') return dataEnvelope({ const: 'ok' }, 'v2');
  const messages = { type: 'string', description: 'A JSON-encoded list of JSON-encoded messages shown to the user.' };
  return { type: 'object', required: ['message'], properties: { message: { const: 'ok' }, _server_messages: messages }, additionalProperties: false };
}

function listEnvelope(row: JsonSchema, style: Style): JsonSchema {
  const rows = { type: 'array', items: row };
  return style === 'v1' ? dataEnvelope(rows, 'v1') : dataEnvelope(rows, 'v2', { has_next_page: { type: 'boolean' } });
}

/** Operations of one version for one DocType (`view`) or for any (`view` undefined: templated paths). */
function versionPaths(base: string, style: Style, view: DocTypeView | undefined, idBase: string): PathItems {
  // A separator DocType names cannot produce, so `list` + `Foo` + `_v2` never meets `list` + `FooV2`.
  const suffix = style === 'v2' ? '_v2' : base === '/api/v1/resource' ? '_v1' : '';
  const tags = view ? [view.meta.name] : ['Documents'];
  const doctypeParam = view ? [] : [pathParameter('doctype', 'The DocType.')];
  const collection = view ? `${base}/${encodeURIComponent(view.meta.name)}` : `${base}/{doctype}`;
  const item = `${collection}/{name}`;
  const nameParam = pathParameter('name', `The document name. ${NAME_NOTE}`);
  const doc = view ? ref(view.key) : ref('FwDocument');
  const input = (kind: 'Create' | 'Update') => (view ? ref(`${view.key}${kind}`) : ref('FwDocumentInput'));
  const row = view ? { anyOf: [ref(`${view.key}ListRow`), { type: 'array' }] } : ref('FwListRow');
  const may = view?.may ?? { read: true, create: true, write: true, delete: true };
  const guest = view?.guest ?? { read: false, create: false, write: false, delete: false };
  const what = view ? view.meta.name : 'documents';
  const paths: PathItems = {};

  const single = view?.meta.isSingle === true;
  const listed = !single && view?.meta.isChild !== true;
  if (listed || !view) {
    const ops: Record<string, OpenApiObject> = {};
    if (may.read) {
      ops.get = operation({
        operationId: `list${idBase}${suffix}`,
        summary: `List ${what}`,
        description: style === 'v2' ? 'Paging with `start` and `limit`; `has_next_page` tells whether more rows follow.' : undefined,
        tags,
        style,
        guest: guest.read,
        parameters: [...doctypeParam, ...listParameters(style)],
        ok: { description: 'The rows the caller may read.', schema: listEnvelope(row, style) },
      });
    }
    if (may.create) {
      ops.post = operation({
        operationId: `insert${idBase}${suffix}`,
        summary: `Insert a ${view ? what : 'document'}`,
        tags,
        style,
        guest: guest.create,
        parameters: doctypeParam,
        body: input('Create'),
        ok: { description: 'The document as stored.', schema: dataEnvelope(doc, style) },
        errors: WRITE_ERRORS,
      });
    }
    if (Object.keys(ops).length) paths[collection] = ops;
  }

  const ops: Record<string, OpenApiObject> = {};
  const itemPath = single ? `${collection}/${encodeURIComponent(view.meta.name)}` : item;
  const itemParams = single ? doctypeParam : [...doctypeParam, nameParam];
  if (may.read) {
    ops.get = operation({
      operationId: `get${idBase}${suffix}`,
      summary: `Read a ${view ? what : 'document'}`,
      description: style === 'v1' ? 'v1 bodies leave out null fields.' : 'v2 bodies keep null fields.',
      tags,
      style,
      guest: guest.read,
      parameters: !view && style === 'v1' ? [...itemParams, RUN_METHOD_GET] : itemParams,
      ok: {
        description: 'The document.',
        schema: dataEnvelope(!view && style === 'v1' ? { anyOf: [doc, { description: "With `run_method`: the method's result." }] } : doc, style),
      },
    });
  }
  if (may.write) {
    const update = (verb: string) =>
      operation({
        operationId: `${verb === 'patch' ? 'patch' : 'update'}${idBase}${suffix}`,
        summary: `Update a ${view ? what : 'document'}`,
        description: 'Merges the fields sent and saves; a table field sent replaces that child table.',
        tags,
        style,
        guest: guest.write,
        parameters: itemParams,
        body: input('Update'),
        ok: { description: 'The document as saved.', schema: dataEnvelope(doc, style) },
        errors: WRITE_ERRORS,
      });
    ops.put = update('put');
    if (style === 'v2') ops.patch = update('patch');
  }
  if (may.delete && !single) {
    ops.delete = operation({
      operationId: `delete${idBase}${suffix}`,
      summary: `Delete a ${view ? what : 'document'}`,
      tags,
      style,
      guest: guest.delete,
      parameters: itemParams,
      ok: { status: 202, description: 'Deleted.', schema: deleted(style) },
    });
  }
  if (!view && style === 'v1') ops.post = runMethodOperation(suffix);
  if (Object.keys(ops).length) paths[itemPath] = ops;
  return paths;
}

/** `POST …/<name>?run_method=<m>` on the templated v1 path (docs/api.md "Document methods"). */
function runMethodOperation(suffix: string): OpenApiObject {
  return operation({
    operationId: `runDocumentMethod${suffix}`,
    summary: 'Run a whitelisted document method',
    description: 'GET runs methods that allow it with read permission; POST needs write permission.',
    tags: ['Documents'],
    style: 'v1',
    guest: false,
    parameters: [
      pathParameter('doctype', 'The DocType.'),
      pathParameter('name', `The document name. ${NAME_NOTE}`),
      { name: 'run_method', in: 'query', required: true, schema: { type: 'string' } },
    ],
    body: { type: 'object', additionalProperties: true, description: 'The method arguments.' },
    bodyRequired: false,
    ok: { description: "The method's result.", schema: dataEnvelope({}, 'v1') },
    errors: WRITE_ERRORS,
  });
}

/** The templated resource paths of v1 (`/api/resource`, `/api/v1/resource`) and v2 (`/api/v2/document`). */
export function genericResourcePaths(): PathItems {
  return {
    ...versionPaths('/api/resource', 'v1', undefined, 'Documents'),
    ...versionPaths('/api/v1/resource', 'v1', undefined, 'Documents'),
    ...versionPaths('/api/v2/document', 'v2', undefined, 'Documents'),
  };
}

/** The concrete paths of one DocType, v1 and v2, limited to what the caller may do. */
export function doctypeResourcePaths(view: DocTypeView): PathItems {
  return {
    ...versionPaths('/api/resource', 'v1', view, view.key),
    ...versionPaths('/api/v2/document', 'v2', view, view.key),
  };
}
