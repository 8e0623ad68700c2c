import { jsonResponse, security } from './common-components.js';
import { COMMON_ERRORS, errorRefs, type ApiStyle } from './error-responses.js';
import type { JsonSchema, OpenApiObject } from './json-schema.js';

/** What an operation is made of; `operation` turns it into an OpenAPI Operation Object. */
export interface OperationSpec {
  readonly operationId: string;
  readonly summary: string;
  readonly description?: string;
  readonly tags: readonly string[];
  readonly style: ApiStyle;
  /** True when Guest may call it: the operation then also lists "no credentials". */
  readonly guest: boolean;
  readonly parameters?: readonly OpenApiObject[];
  /** A JSON request body. */
  readonly body?: JsonSchema;
  readonly bodyRequired?: boolean;
  readonly ok: { readonly status?: number; readonly description: string; readonly schema: JsonSchema };
  readonly errors?: readonly number[];
  readonly extensions?: Record<string, unknown>;
}

/** An OpenAPI Operation Object. */
export function operation(spec: OperationSpec): OpenApiObject {
  const op: OpenApiObject = {
    operationId: spec.operationId,
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    tags: [...spec.tags],
    security: security(spec.guest),
  };
  if (spec.parameters?.length) op.parameters = [...spec.parameters];
  if (spec.body) {
    op.requestBody = { required: spec.bodyRequired ?? true, content: { 'application/json': { schema: spec.body } } };
  }
  op.responses = {
    [String(spec.ok.status ?? 200)]: jsonResponse(spec.ok.description, spec.ok.schema),
    ...errorRefs(spec.style, spec.errors ?? COMMON_ERRORS),
  };
  if (spec.extensions) Object.assign(op, spec.extensions);
  return op;
}

/** A path parameter. */
export function pathParameter(name: string, description: string): OpenApiObject {
  return { name, in: 'path', required: true, description, schema: { type: 'string' } };
}
