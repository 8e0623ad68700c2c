import assert from 'node:assert/strict';

/** One decoded `_server_messages` entry (API.md "Errors"). */
export interface DecodedServerMessage {
  readonly message: string;
  readonly title: string;
  readonly indicator: string;
  readonly raise_exception: number;
}

/** A response as the HTTP layer gives it, whether from Fastify inject or a real client. */
export interface JsonResponse {
  readonly statusCode: number;
  readonly headers: Record<string, unknown>;
  readonly body: string;
}

/**
 * Decodes `_server_messages`: a JSON string of a list of JSON strings, each an object with
 * message, title, indicator and raise_exception. Fails the test on any other shape, because
 * frappe-ui and the SDKs decode it twice and would break on anything else.
 */
export function decodeServerMessages(value: unknown): DecodedServerMessage[] {
  assert.equal(typeof value, 'string', '_server_messages is a JSON string');
  const outer: unknown = JSON.parse(value as string);
  assert.ok(Array.isArray(outer), '_server_messages decodes to a list');
  return outer.map((entry: unknown, i) => {
    assert.equal(typeof entry, 'string', `_server_messages[${i}] is itself a JSON string`);
    const inner = JSON.parse(entry as string) as Record<string, unknown>;
    assert.equal(typeof inner.message, 'string', `_server_messages[${i}].message is a string`);
    assert.equal(typeof inner.title, 'string', `_server_messages[${i}].title is a string`);
    assert.equal(typeof inner.indicator, 'string', `_server_messages[${i}].indicator is a string`);
    assert.ok('raise_exception' in inner, `_server_messages[${i}] has raise_exception`);
    return inner as unknown as DecodedServerMessage;
  });
}

/** The v1 error body, checked to carry all four keys with the right types. */
export interface V1ErrorBody {
  readonly exc_type: string;
  readonly exception: string;
  readonly exc: string;
  readonly _server_messages: string;
  readonly message?: unknown;
  readonly [key: string]: unknown;
}

/**
 * Asserts a v1 error answer: the status, JSON content type, and a body with `exc_type`,
 * `exception` (`fw.exceptions.<Class>...`), `exc` (a JSON list of strings) and a decodable
 * `_server_messages` with at least one entry. Returns the parsed body and decoded messages.
 */
export function assertV1Error(res: JsonResponse, status: number, excType: string): { body: V1ErrorBody; messages: DecodedServerMessage[]; exc: string[] } {
  assert.equal(res.statusCode, status, `status ${res.statusCode}, body ${res.body.slice(0, 500)}`);
  assert.match(String(res.headers['content-type']), /^application\/json; charset=utf-8$/i);
  const body = JSON.parse(res.body) as V1ErrorBody;
  for (const key of ['exc_type', 'exception', 'exc', '_server_messages']) {
    assert.ok(key in body, `error body has ${key}: ${res.body.slice(0, 500)}`);
  }
  assert.equal(body.exc_type, excType);
  assert.ok(body.exception.startsWith(`fw.exceptions.${excType}`), `exception names the class: ${body.exception}`);
  const exc: unknown = JSON.parse(body.exc);
  assert.ok(Array.isArray(exc) && exc.every((e) => typeof e === 'string'), 'exc is a JSON list of strings');
  const messages = decodeServerMessages(body._server_messages);
  assert.ok(messages.length >= 1, '_server_messages holds at least one message');
  return { body, messages, exc: exc as string[] };
}

/**
 * Asserts a v2 error answer: the status and `{errors: [{type, message, title, indicator}]}`,
 * without the v1 keys at the top level. Returns the first entry.
 */
export function assertV2Error(res: JsonResponse, status: number, type: string): Record<string, unknown> {
  assert.equal(res.statusCode, status, `status ${res.statusCode}, body ${res.body.slice(0, 500)}`);
  assert.match(String(res.headers['content-type']), /^application\/json; charset=utf-8$/i);
  const body = JSON.parse(res.body) as { errors?: Array<Record<string, unknown>> } & Record<string, unknown>;
  assert.ok(Array.isArray(body.errors) && body.errors.length >= 1, `v2 error body has errors[]: ${res.body.slice(0, 500)}`);
  assert.ok(!('exc_type' in body) && !('_server_messages' in body), 'v2 errors do not use the v1 envelope');
  const first = body.errors[0];
  assert.equal(first.type, type);
  assert.equal(typeof first.message, 'string');
  return first;
}

/** True when text looks like a stack trace or leaks a source path. */
export function leaksInternals(text: string): boolean {
  return /^\s*at\s/m.test(text) || /\bat\s+\S+\s+\(/.test(text) || /(file:\/\/|node:internal|\/src\/|\.ts:\d+|\.js:\d+)/.test(text);
}
