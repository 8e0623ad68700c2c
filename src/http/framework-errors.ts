import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger, FastifyError, FastifyRequest } from 'fastify';
import { FwError, InvalidRequestBody, RequestTooLarge, ServiceUnavailableError } from '../errors/index.js';
import { securityHeaderPairs } from './security-headers.js';
import { mapError, v1ErrorBody, type ErrorScope, type MappedError } from './error-response.js';

/**
 * A request error raised by Fastify, Node's HTTP parser or the socket layer, in the catalogue's
 * terms. `status` differs from the class's own only where HTTP has a more precise code for the
 * same complaint (414 URI too long, 431 header fields too large, 408 request timeout), which
 * clients and proxies act on; the body still names a catalogue class.
 */
export interface FrameworkError {
  readonly error: FwError;
  readonly status?: number;
}

/** Fastify's own request errors (bad URL, body too large, bad content) in the catalogue's terms. */
export function fromFastify(err: FastifyError): FrameworkError | undefined {
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { error: new RequestTooLarge('Request body is too large') };
    case 'FST_ERR_BAD_URL':
      return { error: new InvalidRequestBody('The URL holds an invalid percent-escape') };
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return { error: new RequestTooLarge('A path segment of the URL is too long'), status: 414 };
    case 'FST_ERR_ASYNC_CONSTRAINT':
      return undefined;
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return { error: new InvalidRequestBody(err.message) };
    default:
      return typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500 ? { error: new InvalidRequestBody(err.message) } : undefined;
  }
}

/** A body that stopped arriving: 408, so the client knows to send it again rather than fix it. */
export function requestTimeout(message: string): InvalidRequestBody {
  return new InvalidRequestBody(message, { details: { httpStatus: 408 } });
}

/** The HTTP status a catalogue error asks for in place of its class's (see requestTimeout). */
function statusOverride(err: FwError): number | undefined {
  const status = err.details.httpStatus;
  return typeof status === 'number' && status >= 400 && status < 600 ? status : undefined;
}

/** Maps `err` and applies the HTTP status a framework error carries. */
export function mapRequestError(err: unknown, scope: ErrorScope): MappedError {
  const framework = err instanceof FwError ? { error: err, status: statusOverride(err) } : fromFastify(err as FastifyError);
  const mapped = mapError(framework?.error ?? err, scope);
  return framework?.status === undefined ? mapped : { ...mapped, status: framework.status };
}

/** A socket-level complaint of Node's HTTP parser (RFC 9110 statuses). */
function fromClientError(err: NodeJS.ErrnoException): FrameworkError {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return { error: new RequestTooLarge('The request headers are too large'), status: 431 };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { error: requestTimeout('The request did not arrive in time'), status: 408 };
    default:
      return { error: new InvalidRequestBody('Malformed HTTP request') };
  }
}

/** The head and body of an error answered outside Fastify (on the socket, a bare ServerResponse, or by the site dispatcher). */
export function rawErrorAnswer(
  framework: FrameworkError,
  developerMode: boolean,
  log: FastifyBaseLogger,
): { status: number; headers: Record<string, string>; body: string } {
  const scope: ErrorScope = { requestId: randomUUID(), developerMode, log };
  const mapped = mapError(framework.error, scope);
  const body = JSON.stringify(v1ErrorBody(mapped, scope));
  return {
    status: framework.status ?? mapped.status,
    headers: {
      'Content-Type': 'application/json; charset=utf-8',
      'Cache-Control': 'no-store',
      ...Object.fromEntries(securityHeaderPairs()),
      Connection: 'close',
      'Content-Length': String(Buffer.byteLength(body)),
    },
    body,
  };
}

/**
 * Fastify's `clientErrorHandler`: errors Node's HTTP parser raises before any request object
 * exists (oversize headers, a garbled request line, a header timeout) are answered with the same
 * JSON envelope as every other error, then the connection is closed, as Node's own handler does.
 */
export function clientErrorHandler(developerMode: boolean) {
  return function (this: { log: FastifyBaseLogger }, err: NodeJS.ErrnoException, socket: Socket): void {
    // The peer is gone: there is nobody to answer.
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    this.log.debug({ code: err.code }, 'client error');
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    const { status, headers, body } = rawErrorAnswer(fromClientError(err), developerMode, this.log);
    const head = Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    // end() rather than destroy(): the answer is flushed before the connection closes.
    socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\n${head}\r\n${body}`);
  };
}

/**
 * Node answers an `Expect` other than `100-continue` with a bare 417 of its own unless the server
 * listens for 'checkExpectation'; this listener gives that 417 the envelope (RFC 9110: a server
 * that does not understand an expectation answers 417).
 */
export function expectationFailedHandler(developerMode: boolean, log: FastifyBaseLogger) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const expectation = String(req.headers.expect).slice(0, 60);
    const error = new InvalidRequestBody(`Unsupported Expect header "${expectation}": only 100-continue is understood`);
    const { status, headers, body } = rawErrorAnswer({ error, status: 417 }, developerMode, log);
    res.writeHead(status, headers);
    res.end(body);
  };
}

/**
 * RFC 9112 asks a 400 for an HTTP/1.1 request without `Host`. Node's own check answers it empty,
 * so the server is built with `requireHostHeader: false` and this refusal is raised in the first
 * hook instead, answered through the error handler like every other 400.
 */
export function missingHost(req: FastifyRequest): InvalidRequestBody | undefined {
  if (req.headers.host !== undefined || req.raw.httpVersionMajor !== 1 || req.raw.httpVersionMinor < 1) return undefined;
  return new InvalidRequestBody('An HTTP/1.1 request must carry a Host header');
}

/**
 * A request the client gave up on (it closed the connection before its body was complete, or
 * while waiting for the answer) is normal traffic, not a server fault: it becomes a quiet
 * catalogue error nobody will read, logged at debug level rather than as an unhandled error.
 */
export function clientAbort(err: unknown, req: FastifyRequest): InvalidRequestBody | undefined {
  if (err instanceof FwError) return undefined;
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const gone = req.raw.destroyed || req.raw.socket?.destroyed === true;
  const aborted = req.raw.aborted || (gone && (code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE' || code === 'EPIPE'));
  if (!aborted) return undefined;
  req.log.debug({ code, requestId: req.id }, 'request aborted by the client');
  return new InvalidRequestBody('The client closed the connection before the request was complete');
}

/** The answer to a request that arrives while the server is shutting down. */
export function shuttingDown(): ServiceUnavailableError {
  return new ServiceUnavailableError('The server is shutting down; try again');
}
