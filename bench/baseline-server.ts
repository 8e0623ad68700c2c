import { randomBytes } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { badRequest, parseFilters, parseListSpec } from './baseline-sql.js';
import type { BaselineStore, Row } from './baseline-store.js';

/** The ToDo columns a client may write: a hand-written endpoint knows its table, not a DocType. */
const WRITABLE = new Set([
  'status',
  'priority',
  'color',
  'date',
  'allocated_to',
  'description',
  'reference_type',
  'reference_name',
  'role',
  'assigned_by',
  'assigned_by_full_name',
  'sender',
  'assignment_rule',
]);
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

function randomName(): string {
  return Array.from(randomBytes(10), (b) => BASE32[b & 31]).join('');
}

/** `YYYY-MM-DD HH:MM:SS.ffffff` in UTC, the form fw stores. */
function timestamp(): string {
  const iso = new Date().toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 23)}000`;
}

function writable(values: unknown): Row {
  if (values === null || typeof values !== 'object' || Array.isArray(values)) throw badRequest('expected a JSON object');
  const row: Row = {};
  for (const [key, value] of Object.entries(values)) if (WRITABLE.has(key)) row[key] = value;
  return row;
}

function newRow(values: unknown): Row {
  const now = timestamp();
  return {
    name: randomName(),
    owner: 'Administrator',
    creation: now,
    modified: now,
    modified_by: 'Administrator',
    docstatus: 0,
    idx: 0,
    status: 'Open',
    priority: 'Medium',
    date: now.slice(0, 10),
    ...writable(values),
  };
}

/** A row as fw's v1 document body: nulls dropped, `doctype` added. */
function asDocument(row: Row): Row {
  const doc: Row = {};
  for (const [key, value] of Object.entries(row)) if (value !== null && value !== undefined) doc[key] = value;
  doc.doctype = 'ToDo';
  return doc;
}

function notFound(what: string): Error {
  return Object.assign(new Error(`${what} not found`), { statusCode: 404 });
}

function toDoOnly(doctype: string): void {
  if (doctype !== 'ToDo') throw notFound(`DocType ${doctype}`);
}

/** Arguments of a method call: the JSON body when there is one, else the query string. */
function methodArgs(req: { body: unknown; query: unknown }): Record<string, unknown> {
  const body = req.body;
  if (body && typeof body === 'object' && !Array.isArray(body) && Object.keys(body).length) return body as Record<string, unknown>;
  return (req.query ?? {}) as Record<string, unknown>;
}

/**
 * The baseline: bare Fastify answering the bench's URLs straight from `tabToDo` with no metadata,
 * authentication or permissions. It shows what the same machine, runtime and database give
 * without fw's pipeline, so fw's figures can be read as ratios of it.
 */
export function buildBaselineApp(store: BaselineStore): FastifyInstance {
  const app = Fastify({ logger: false, bodyLimit: 10 * 1024 * 1024, routerOptions: { maxParamLength: 2000 } });

  app.get<{ Params: { doctype: string; name: string } }>('/api/resource/:doctype/:name', async (req) => {
    toDoOnly(req.params.doctype);
    const row = await store.getOne(req.params.name);
    if (!row) throw notFound(`ToDo ${req.params.name}`);
    return { data: asDocument(row) };
  });

  app.get<{ Params: { doctype: string } }>('/api/resource/:doctype', async (req) => {
    toDoOnly(req.params.doctype);
    return { data: await store.list(parseListSpec(req.query as Record<string, unknown>)) };
  });

  app.post<{ Params: { doctype: string } }>('/api/resource/:doctype', async (req) => {
    toDoOnly(req.params.doctype);
    const row = newRow(req.body);
    await store.insert([row]);
    return { data: asDocument(row) };
  });

  app.put<{ Params: { doctype: string; name: string } }>('/api/resource/:doctype/:name', async (req) => {
    toDoOnly(req.params.doctype);
    const row = await store.update(req.params.name, { ...writable(req.body), modified: timestamp(), modified_by: 'Administrator' });
    if (!row) throw notFound(`ToDo ${req.params.name}`);
    return { data: asDocument(row) };
  });

  const method = async (req: { params: { method: string }; body: unknown; query: unknown }) => {
    const args = methodArgs(req);
    switch (req.params.method.replace(/^(fw|frappe)\./, '')) {
      case 'ping':
        return { message: 'pong' };
      case 'client.get_count':
        toDoOnly(String(args.doctype));
        return { message: await store.count(parseFilters(args.filters)) };
      case 'client.insert_many': {
        const docs = typeof args.docs === 'string' ? JSON.parse(args.docs) : args.docs;
        if (!Array.isArray(docs) || docs.length > 200) throw badRequest('docs must be a list of at most 200 documents');
        const rows = docs.map((doc: Row) => (toDoOnly(String(doc.doctype ?? 'ToDo')), newRow(doc)));
        await store.insert(rows);
        return { message: rows.map((r) => r.name) };
      }
      default:
        throw notFound(`method ${req.params.method}`);
    }
  };
  app.get<{ Params: { method: string } }>('/api/method/:method', method);
  app.post<{ Params: { method: string } }>('/api/method/:method', method);

  return app;
}
