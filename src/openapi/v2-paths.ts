import { dataEnvelope, methodDataEnvelope } from './common-components.js';
import { WRITE_ERRORS } from './error-responses.js';
import { ref, type JsonSchema, type OpenApiObject } from './json-schema.js';
import { operation, pathParameter } from './operation.js';
import type { DocTypeView } from './resource-paths.js';

/*
 * The v2 routes beyond plain documents (docs/api.md "API v2"): DocType meta and count, a document's
 * copy and its methods, and the bulk requests, templated and per DocType.
 */

type PathItems = Record<string, Record<string, OpenApiObject>>;

const NAME = pathParameter('name', 'The document name. Percent-encode it; it may hold `/`.');
const DOCTYPE = pathParameter('doctype', 'The DocType.');
const ANY_OBJECT: JsonSchema = { type: 'object', additionalProperties: true };
const MESSAGES: JsonSchema = { type: 'array', items: { type: 'object', additionalProperties: true } };

function bulkResult(key: 'deleted' | 'updated', item: JsonSchema, failedKeys: readonly string[]): JsonSchema {
  const failed: JsonSchema = {
    type: 'object',
    required: [...failedKeys, 'error'],
    properties: { ...Object.fromEntries(failedKeys.map((k) => [k, {}])), error: { type: 'string' } },
    additionalProperties: false,
  };
  return {
    type: 'object',
    required: [key, 'failed', 'total', 'success_count', 'failure_count'],
    properties: {
      [key]: { type: 'array', items: item },
      failed: { type: 'array', items: failed },
      total: { type: 'integer' },
      success_count: { type: 'integer' },
      failure_count: { type: 'integer' },
    },
    additionalProperties: false,
  };
}

/** `{data, docs}`: the bulk updates and document methods also send the saved documents. */
function withDocs(data: JsonSchema, doc: JsonSchema): JsonSchema {
  return {
    type: 'object',
    required: ['data', 'docs'],
    properties: { data, docs: { type: 'array', items: doc }, messages: MESSAGES },
    additionalProperties: false,
  };
}

const BULK_NOTE = 'Each item in a savepoint of its own: a refused one is reported in `failed`, the others are stored. At most 200 items.';

interface Scope {
  readonly doctypePath: string;
  readonly id: string;
  readonly tags: readonly string[];
  readonly params: readonly OpenApiObject[];
  readonly doc: JsonSchema;
  readonly guest: { read: boolean; write: boolean; delete: boolean };
  readonly may: { read: boolean; write: boolean; delete: boolean };
}

function scopePaths(s: Scope): PathItems {
  const documentBase = `/api/v2/document/${s.doctypePath}`;
  const paths: PathItems = {};
  if (s.may.delete) {
    paths[`${documentBase}/bulk_delete`] = {
      post: operation({
        operationId: `bulkDelete${s.id}`,
        summary: 'Delete documents by name',
        description: BULK_NOTE,
        tags: s.tags,
        style: 'v2',
        guest: s.guest.delete,
        parameters: s.params,
        body: { type: 'object', required: ['names'], properties: { names: { type: 'array', items: { type: ['string', 'number'] } } } },
        ok: { description: 'What was deleted and what was refused.', schema: dataEnvelope(bulkResult('deleted', { type: 'string' }, ['name']), 'v2') },
        errors: WRITE_ERRORS,
      }),
    };
  }
  if (s.may.write) {
    paths[`${documentBase}/bulk_update`] = {
      post: operation({
        operationId: `bulkUpdate${s.id}`,
        summary: 'Update documents, each by its name',
        description: BULK_NOTE,
        tags: s.tags,
        style: 'v2',
        guest: s.guest.write,
        parameters: s.params,
        body: { type: 'object', required: ['docs'], properties: { docs: { type: 'array', items: { type: 'object', required: ['name'] } } } },
        ok: {
          description: 'What was saved (also in `docs`) and what was refused.',
          schema: withDocs(bulkResult('updated', { type: 'string' }, ['name']), s.doc),
        },
        errors: WRITE_ERRORS,
      }),
    };
  }
  if (s.may.read) {
    paths[`${documentBase}/{name}/copy`] = {
      get: operation({
        operationId: `copy${s.id}`,
        summary: 'A document as the body of a new one',
        description: 'Without name, owner, timestamps, docstatus and null fields; nothing is stored.',
        tags: s.tags,
        style: 'v2',
        guest: s.guest.read,
        parameters: [...s.params, NAME],
        ok: { description: 'The copy.', schema: dataEnvelope(ANY_OBJECT, 'v2') },
      }),
    };
    paths[`/api/v2/doctype/${s.doctypePath}/count`] = {
      get: operation({
        operationId: `count${s.id}`,
        summary: 'How many documents the caller may read match the filters',
        tags: s.tags,
        style: 'v2',
        guest: s.guest.read,
        parameters: [...s.params, ...['filters', 'or_filters', 'parent'].map((n) => ({ $ref: `#/components/parameters/list.${n}` }))],
        ok: { description: 'The count.', schema: dataEnvelope({ type: 'integer', minimum: 0 }, 'v2') },
      }),
    };
  }
  const method = pathParameter('method', 'A whitelisted document method.');
  const runVerb = (verb: 'get' | 'post') =>
    operation({
      operationId: `documentMethod${s.id}_${verb}`,
      summary: 'Run a whitelisted document method',
      description: verb === 'get' ? 'For methods that allow GET; read permission; read-only.' : 'Write permission; one transaction.',
      tags: s.tags,
      style: 'v2',
      guest: false,
      parameters: [...s.params, NAME, method],
      ...(verb === 'post' ? { body: ANY_OBJECT, bodyRequired: false } : {}),
      ok: { description: "The method's result and the document after it.", schema: withDocs({}, s.doc) },
      errors: verb === 'post' ? WRITE_ERRORS : undefined,
    });
  if (s.may.read || s.may.write) {
    paths[`${documentBase}/{name}/method/{method}`] = {
      ...(s.may.read ? { get: runVerb('get') } : {}),
      ...(s.may.write ? { post: runVerb('post') } : {}),
    };
  }
  return paths;
}

/** The templated v2 paths beyond documents, the DocType meta and the cross-DocType bulk methods. */
export function genericV2Paths(): PathItems {
  const all = { read: true, write: true, delete: true };
  const paths = scopePaths({
    doctypePath: '{doctype}',
    id: 'Documents',
    tags: ['Documents'],
    params: [DOCTYPE],
    doc: ref('FwDocument'),
    guest: { read: false, write: false, delete: false },
    may: all,
  });
  paths['/api/v2/doctype/{doctype}/meta'] = {
    get: operation({
      operationId: 'doctypeMeta',
      summary: "A DocType's definition",
      description: 'Any signed-in user (Guest: 403).',
      tags: ['Documents'],
      style: 'v2',
      guest: false,
      parameters: [DOCTYPE],
      ok: { description: 'The DocType document: fields, permissions, naming.', schema: dataEnvelope(ref('FwDocument'), 'v2') },
    }),
  };
  const acrossItems = (extra: JsonSchema) => ({ type: 'array', items: { type: 'object', required: ['doctype', 'name'], ...extra } });
  const key = {
    type: 'object',
    required: ['doctype', 'name'],
    properties: { doctype: { type: 'string' }, name: { type: 'string' } },
    additionalProperties: false,
  };
  paths['/api/v2/method/bulk_delete'] = {
    post: operation({
      operationId: 'bulkDeleteAcross',
      summary: 'Delete documents of any DocTypes',
      description: BULK_NOTE,
      tags: ['Documents'],
      style: 'v2',
      guest: false,
      body: { type: 'object', required: ['docs'], properties: { docs: acrossItems({}) } },
      ok: { description: 'What was deleted and what was refused.', schema: dataEnvelope(bulkResult('deleted', key, ['doctype', 'name']), 'v2') },
      errors: WRITE_ERRORS,
    }),
  };
  paths['/api/v2/method/bulk_update'] = {
    post: operation({
      operationId: 'bulkUpdateAcross',
      summary: 'Update documents of any DocTypes',
      description: BULK_NOTE,
      tags: ['Documents'],
      style: 'v2',
      guest: false,
      body: { type: 'object', required: ['docs'], properties: { docs: acrossItems({}) } },
      ok: {
        description: 'What was saved (also in `docs`) and what was refused.',
        schema: withDocs(bulkResult('updated', key, ['doctype', 'name']), ref('FwDocument')),
      },
      errors: WRITE_ERRORS,
    }),
  };
  const shorthand: Record<string, OpenApiObject> = {};
  for (const verb of ['get', 'post', 'put', 'delete', 'patch']) {
    shorthand[verb] = operation({
      operationId: `doctypeMethod_${verb}`,
      summary: "Call a method of a DocType's controller module",
      description: 'The shorthand of `/api/v2/method/<module path>.<method>` (docs/api.md "API v2").',
      tags: ['Methods'],
      style: 'v2',
      guest: true,
      parameters: [DOCTYPE, pathParameter('method', 'The method name.')],
      ...(verb === 'get' ? {} : { body: ANY_OBJECT, bodyRequired: false }),
      ok: { description: 'The result.', schema: methodDataEnvelope({}) },
      errors: WRITE_ERRORS,
    });
  }
  paths['/api/v2/method/{doctype}/{method}'] = shorthand;
  return paths;
}

/** The v2 paths of one DocType beyond its documents, limited to what the caller may do. */
export function doctypeV2Paths(view: DocTypeView): PathItems {
  if (view.meta.isSingle) return {};
  return scopePaths({
    doctypePath: encodeURIComponent(view.meta.name),
    id: view.key,
    tags: [view.meta.name],
    params: [],
    doc: ref(view.key),
    guest: view.guest,
    may: view.may,
  });
}
