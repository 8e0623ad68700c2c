import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import type { Row } from '../../src/storage/database.js';
import { assertV1Error, decodeServerMessages } from './error-envelope.js';
import type { TestSite } from './test-site.js';

/** A document or DocType body as the API answers it. */
export type Json = Record<string, any>;

/** `YYYY-MM-DD HH:MM:SS.ffffff`, the form of `creation` and `modified`. */
export const TIMESTAMP = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}$/;

let counter = 0;

/** A DocType name no other test in the process uses (letters only, so it is a valid DocType name). */
export function uniqueDocTypeName(prefix: string): string {
  counter += 1;
  let suffix = '';
  for (let n = counter; n > 0; n = Math.floor((n - 1) / 26)) suffix = String.fromCharCode(97 + ((n - 1) % 26)) + suffix;
  return `${prefix} ${suffix}`;
}

/** `/api/resource/<doctype>[/<name>]` with both parts percent-encoded. */
export function resourceUrl(doctype: string, name?: string, base = '/api/resource'): string {
  const head = `${base}/${encodeURIComponent(doctype)}`;
  return name === undefined ? head : `${head}/${encodeURIComponent(name)}`;
}

/** `/api/v2/document/<doctype>[/<name>]` with both parts percent-encoded. */
export function v2Url(doctype: string, name?: string): string {
  return resourceUrl(doctype, name, '/api/v2/document');
}

/** The parsed body of a 200 answer's `data`, failing with the body when the status is not 200. */
export function dataOf(res: LightMyRequestResponse): Json {
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data as Json;
}

/** The message texts of an error body's `_server_messages`. */
export function serverMessages(body: Json): string[] {
  return decodeServerMessages(body._server_messages).map((m) => m.message);
}

/** Asserts a v1 error answer (status, `exc_type`, the full error envelope) and returns its body. */
export function assertError(res: LightMyRequestResponse, status: number, excType: string): Json {
  return assertV1Error(res, status, excType).body;
}

/** Creates a custom DocType through the API (Administrator) and returns its definition as answered. */
export async function createDocType(t: TestSite, def: Json): Promise<Json> {
  const body = { permissions: [{ role: 'System Manager' }], ...def };
  return dataOf(await t.request({ method: 'POST', url: '/api/resource/DocType', body }));
}

/** Inserts a document through v1 and returns it as answered. */
export async function insertDoc(t: TestSite, doctype: string, body: Json): Promise<Json> {
  return dataOf(await t.request({ method: 'POST', url: resourceUrl(doctype), body }));
}

/** Reads a document through v1 (or v2), failing unless it exists. */
export async function readDoc(t: TestSite, doctype: string, name: string, version: 'v1' | 'v2' = 'v1'): Promise<Json> {
  const url = version === 'v1' ? resourceUrl(doctype, name) : v2Url(doctype, name);
  return dataOf(await t.request({ method: 'GET', url }));
}

/** Asserts that a document reads back exactly as `expected` (after a refused request). */
export async function assertStoredAs(t: TestSite, doctype: string, expected: Json): Promise<void> {
  assert.deepEqual(await readDoc(t, doctype, String(expected.name)), expected);
}

/** Asserts that no document of that name exists (404 DoesNotExistError). */
export async function assertAbsent(t: TestSite, doctype: string, name: string): Promise<void> {
  assertError(await t.request({ method: 'GET', url: resourceUrl(doctype, name) }), 404, 'DoesNotExistError');
}

/**
 * The number of rows in a DocType's table, read straight from the database: proves that a refused
 * insert stored nothing without depending on the list endpoint.
 */
export async function storedCount(t: TestSite, doctype: string): Promise<number> {
  const b = t.site.db.dialect.builder;
  const statement = b.selectFrom(`tab${doctype}`).select(b.fn.countAll().as('n')).compile();
  const rows = await t.site.db.read((q) => q.all<{ n: unknown }>(statement));
  return Number(rows[0]?.n);
}

/** One stored row as the database holds it (to check what never reaches the API, such as secrets). */
export async function storedRow(t: TestSite, doctype: string, name: string): Promise<Row | undefined> {
  const statement = t.site.db.dialect.builder.selectFrom(`tab${doctype}`).selectAll().where('name', '=', name).compile();
  const rows = await t.site.db.read((q) => q.all(statement));
  return rows[0];
}
