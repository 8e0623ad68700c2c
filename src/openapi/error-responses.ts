import * as catalogue from '../errors/catalogue.js';
import { FwError } from '../errors/fw-error.js';
import { ref, type JsonSchema, type OpenApiObject } from './json-schema.js';

/** The API version of a path: which error body it answers with (docs/api.md "Errors"). */
export type ApiStyle = 'v1' | 'v2';

/**
 * Statuses fw answers for a catalogue class beside the class's own, where HTTP has a more precise
 * code for the same complaint (http/framework-errors.ts): a body that stopped arriving, an
 * overlong URL segment, oversize headers.
 */
const FRAMEWORK_STATUSES: ReadonlyArray<readonly [number, string]> = [
  [408, 'InvalidRequestBody'],
  [414, 'RequestTooLarge'],
  [431, 'RequestTooLarge'],
];

/** Every status of the error catalogue with the `exc_type` names answered with it. */
export function catalogueStatuses(): ReadonlyMap<number, readonly string[]> {
  const byStatus = new Map<number, Set<string>>();
  const add = (status: number, excType: string) => byStatus.set(status, (byStatus.get(status) ?? new Set()).add(excType));
  for (const value of Object.values(catalogue)) {
    if (typeof value === 'function' && value.prototype instanceof FwError) {
      const cls = value as unknown as typeof FwError;
      add(cls.status, cls.excType);
    }
  }
  for (const [status, excType] of FRAMEWORK_STATUSES) add(status, excType);
  return new Map([...byStatus].sort((a, b) => a[0] - b[0]).map(([status, names]) => [status, [...names].sort()]));
}

/** The error bodies: v1 `{exc_type, exception, exc, _server_messages}`, v2 `{errors: [...]}`. */
export function errorSchemas(): Record<string, JsonSchema> {
  return {
    FwError: {
      type: 'object',
      title: 'Error (v1)',
      description: 'The error body of every path outside /api/v2 (docs/api.md "Errors").',
      required: ['exc_type', 'exception', 'exc', '_server_messages'],
      properties: {
        exc_type: { type: 'string', description: 'The error class.' },
        exception: { type: 'string', description: '`fw.exceptions.<Class>: <message>`.' },
        exc: { type: 'string', description: 'A JSON-encoded list: the stack trace in developer mode, else the `exception` line.' },
        _server_messages: {
          type: 'string',
          description: 'A JSON-encoded list of JSON-encoded `{message, title, indicator, raise_exception}` objects.',
        },
        message: { type: 'string', description: 'A short answer some errors add (a failed login).' },
        request_id: { type: 'string', description: 'On 5xx answers: the id the server log records.' },
      },
      additionalProperties: false,
    },
    FwErrorV2: {
      type: 'object',
      title: 'Error (v2)',
      description: 'The error body of /api/v2 paths.',
      required: ['errors'],
      properties: {
        errors: {
          type: 'array',
          minItems: 1,
          items: {
            type: 'object',
            required: ['type', 'message', 'title', 'indicator'],
            properties: {
              type: { type: 'string', description: 'The error class.' },
              message: { type: 'string' },
              title: { type: 'string' },
              indicator: { type: 'string' },
              exception: { type: 'string', description: 'The stack trace, in developer mode only.' },
            },
            additionalProperties: false,
          },
        },
        request_id: { type: 'string' },
      },
      additionalProperties: false,
    },
  };
}

/** The response component name of an error status for a style. */
export function errorResponseName(style: ApiStyle, status: number): string {
  return style === 'v1' ? `Error${status}` : `ErrorV2_${status}`;
}

/**
 * One response component per status of the catalogue and style, its `exc_type` limited to the
 * classes answered with that status (500 names any class in developer mode, so it is not limited).
 */
export function errorResponses(): Record<string, OpenApiObject> {
  const responses: Record<string, OpenApiObject> = {};
  const statuses = new Map(catalogueStatuses());
  statuses.set(500, ['Exception']);
  for (const [status, excTypes] of statuses) {
    const listed = excTypes.map((e) => `\`${e}\``).join(', ');
    const limited = status !== 500;
    responses[errorResponseName('v1', status)] = {
      description: `${status}: ${listed}`,
      content: {
        'application/json': {
          schema: limited ? { allOf: [ref('FwError'), { properties: { exc_type: { enum: excTypes } } }] } : ref('FwError'),
        },
      },
    };
    const v2Item = { properties: { type: { enum: excTypes } } };
    responses[errorResponseName('v2', status)] = {
      description: `${status}: ${listed}`,
      content: {
        'application/json': {
          schema: limited ? { allOf: [ref('FwErrorV2'), { properties: { errors: { items: v2Item } } }] } : ref('FwErrorV2'),
        },
      },
    };
  }
  return responses;
}

/** The error statuses every API call may meet. */
export const COMMON_ERRORS: readonly number[] = [400, 401, 403, 404, 417, 500, 503];
/** Those of calls with a body that may write: also an idle body, a name clash, an oversize body. */
export const WRITE_ERRORS: readonly number[] = [...COMMON_ERRORS, 408, 409, 413];

/** `responses` entries referring to the error responses of `statuses`. */
export function errorRefs(style: ApiStyle, statuses: readonly number[]): Record<string, OpenApiObject> {
  const out: Record<string, OpenApiObject> = {};
  for (const status of [...statuses].sort((a, b) => a - b)) {
    out[String(status)] = { $ref: `#/components/responses/${errorResponseName(style, status)}` };
  }
  return out;
}
