import { NestingDepthExceeded } from '../errors/index.js';
import { MAX_JSON_DEPTH, valueNestingExceeds } from '../json/nesting-depth.js';
import type { RequestStep } from './request-pipeline.js';

/** The refusal for the first argument of `args` nested deeper than MAX_JSON_DEPTH, if any. */
export function deepArgument(args: unknown, source: string): NestingDepthExceeded | undefined {
  if (args === null || typeof args !== 'object') return undefined;
  for (const [key, value] of Object.entries(args)) {
    // The arguments object itself is the first level.
    if (valueNestingExceeds(value, MAX_JSON_DEPTH - 1)) {
      return new NestingDepthExceeded(`The ${source} parameter ${key.slice(0, 60)} is nested deeper than ${MAX_JSON_DEPTH} levels`);
    }
  }
  return undefined;
}

/**
 * Every request's arguments are measured before its handler runs: query parameters, the body
 * (JSON, form or multipart fields), and the JSON text in any of them (`filters`, `fields`,
 * `order_by`, `args`, `doc`, ...) that a handler would parse. Past MAX_JSON_DEPTH the answer is
 * 400 NestingDepthExceeded, so nothing downstream (validation, error messages, the stored text)
 * ever walks such a value recursively. The measuring itself keeps a stack of its own.
 */
export const refuseDeepArguments: RequestStep = (req) => deepArgument(req.query, 'query') ?? deepArgument(req.body, 'body');
