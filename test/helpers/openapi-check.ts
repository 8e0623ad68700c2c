import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { JsonResponse } from './error-envelope.js';
import type { TestSite } from './test-site.js';

/** An OpenAPI description as the server sent it. */
export type OpenApi = Record<string, any>;

type AddFormats = (ajv: Ajv2020) => Ajv2020;
const addFormats: AddFormats = (addFormatsModule as unknown as { default?: AddFormats }).default ?? (addFormatsModule as unknown as AddFormats);

/** The description `auth` sees (the Administrator's by default). */
export async function fetchDescription(t: TestSite, auth?: string, query = ''): Promise<OpenApi> {
  const res = await t.request({
    method: 'GET',
    url: `/api/openapi.json${query}`,
    ...(auth === undefined ? {} : { anonymous: true, headers: auth === '' ? {} : { authorization: auth } }),
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as OpenApi;
}

function resolve(spec: OpenApi, value: any): any {
  let node = value;
  while (node && typeof node.$ref === 'string' && node.$ref.startsWith('#/components/responses/')) {
    node = spec.components.responses[node.$ref.slice('#/components/responses/'.length)];
  }
  return node;
}

/**
 * Checks an answer against the description: the operation `verb path` must document the answer's
 * status, and the body must match that response's JSON schema (Ajv, JSON Schema 2020-12, the
 * dialect of OpenAPI 3.1). Any mismatch fails the test with Ajv's errors and the body.
 */
export function assertMatchesDescription(spec: OpenApi, res: JsonResponse, verb: string, path: string): void {
  const item = spec.paths?.[path];
  assert.ok(item, `the description has no path ${path}`);
  const op = item[verb.toLowerCase()];
  assert.ok(op, `the description has no ${verb} ${path}`);
  const response = resolve(spec, op.responses[String(res.statusCode)]);
  assert.ok(response, `${verb} ${path} does not document status ${res.statusCode}: ${res.body.slice(0, 300)}`);
  const schema = response.content?.['application/json']?.schema;
  assert.ok(schema, `${verb} ${path} ${res.statusCode} has no JSON schema`);
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  // The schema is checked as part of a document holding the components, so `#/components/...` resolves.
  const validate = ajv.compile({ ...schema, components: spec.components });
  const body = JSON.parse(res.body);
  const ok = validate(body);
  assert.ok(
    ok,
    `${verb} ${path} ${res.statusCode}: the body does not match the description:\n${JSON.stringify(validate.errors, null, 1)}\n${res.body.slice(0, 1500)}`,
  );
}
