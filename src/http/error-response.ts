import type { FastifyBaseLogger } from 'fastify';
import { FwError, type ServerMessage } from '../errors/index.js';

/** An error body in the v1 shape (docs/api.md "Errors"). */
export interface ErrorBody {
  exc_type: string;
  exception: string;
  exc: string;
  /** Only the messages the code added (an unexpected error has none: docs/api.md "Errors"). */
  _server_messages?: string;
  message?: string;
  request_id?: string;
}

/** Everything the mapper needs to know about the failed request. */
export interface ErrorScope {
  readonly requestId: string;
  readonly developerMode: boolean;
  readonly log: FastifyBaseLogger;
}

/** An error answered to the client: its status and body. */
export interface MappedError {
  readonly status: number;
  readonly error: FwError | undefined;
  readonly excType: string;
  readonly message: string;
  readonly stack: string | undefined;
  readonly messages: readonly ServerMessage[];
}

/**
 * The one place errors become HTTP answers. Catalogue errors keep their status and message;
 * anything else is a 500 that is logged with the request id and shown without internals, and
 * carries no message for the user: no code printed one (the reference's answer to an unhandled
 * exception has no `_server_messages`; docs/api.md "Errors").
 */
export function mapError(err: unknown, scope: ErrorScope): MappedError {
  if (err instanceof FwError) {
    return { status: err.status, error: err, excType: err.excType, message: err.message, stack: err.stack, messages: err.messages };
  }
  scope.log.error({ err, requestId: scope.requestId }, 'unhandled error');
  const message = scope.developerMode && err instanceof Error ? err.message : `Internal Server Error (request ${scope.requestId})`;
  return {
    status: 500,
    error: undefined,
    excType: scope.developerMode && err instanceof Error ? err.constructor.name : 'Exception',
    message,
    stack: err instanceof Error ? err.stack : undefined,
    messages: [],
  };
}

/** The v1 error body: exc_type, exception and exc every time; _server_messages when there are messages. */
export function v1ErrorBody(mapped: MappedError, scope: ErrorScope): ErrorBody {
  const exception = mapped.message ? `fw.exceptions.${mapped.excType}: ${mapped.message}` : `fw.exceptions.${mapped.excType}`;
  const body: ErrorBody = {
    exc_type: mapped.excType,
    exception,
    exc: JSON.stringify([scope.developerMode && mapped.stack ? mapped.stack : exception]),
  };
  if (mapped.messages.length > 0) {
    body._server_messages = JSON.stringify(
      mapped.messages.map((m) => JSON.stringify({ message: m.message, title: m.title ?? 'Message', indicator: m.indicator ?? 'red', raise_exception: 1 })),
    );
  }
  const responseMessage = mapped.error?.details.responseMessage;
  if (typeof responseMessage === 'string') body.message = responseMessage;
  if (mapped.status >= 500) body.request_id = scope.requestId;
  return body;
}

/** The v2 error body: `errors[]` with type, message, title and indicator. */
export function v2ErrorBody(mapped: MappedError, scope: ErrorScope): { errors: Array<Record<string, unknown>>; request_id?: string } {
  const first = mapped.messages[0];
  const entry: Record<string, unknown> = {
    type: mapped.excType,
    message: first?.message ?? mapped.message,
    title: first?.title ?? 'Message',
    indicator: 'red',
  };
  if (scope.developerMode && mapped.stack) entry.exception = mapped.stack;
  const body: { errors: Array<Record<string, unknown>>; request_id?: string } = { errors: [entry] };
  if (mapped.status >= 500) body.request_id = scope.requestId;
  return body;
}
