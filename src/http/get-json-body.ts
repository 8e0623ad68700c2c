import type { FastifyRequest } from 'fastify';
import { InvalidRequestBody, RequestTooLarge } from '../errors/index.js';
import { announcesBody } from './body-idle-timeout.js';
import type { RequestStep } from './request-pipeline.js';

/** The JSON media types the app parses (`application/json`, `application/*+json`). */
export const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/**
 * Parses a JSON request body: empty text is "no body" (undefined); anything but an object or an
 * array is refused with a 400, never a 500.
 */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new InvalidRequestBody('Invalid request body: malformed JSON');
  }
  if (parsed === null || typeof parsed !== 'object') {
    throw new InvalidRequestBody('Invalid request body: expected a JSON object or array');
  }
  return parsed;
}

/**
 * Reads the raw body of a request up to `limit` bytes (RequestTooLarge past it). The stream is
 * never destroyed here: past the limit it keeps flowing to nobody, so the connection stays up for
 * the 413 to be read (see linger.ts).
 */
function readBody(req: FastifyRequest, limit: number): Promise<string> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(new RequestTooLarge('Request body is too large'));
  const raw = req.raw;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      raw.off('data', onData);
      raw.off('end', onEnd);
      raw.off('error', onError);
    };
    const onData = (chunk: Buffer | string) => {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += buf.length;
      if (size <= limit) return void chunks.push(buf);
      stop();
      reject(new RequestTooLarge('Request body is too large'));
    };
    const onEnd = () => {
      stop();
      resolve(Buffer.concat(chunks).toString('utf8'));
    };
    const onError = (err: Error) => {
      stop();
      reject(err);
    };
    raw.on('data', onData).on('end', onEnd).on('error', onError);
  });
}

/**
 * A JSON body on GET is honoured (docs/api.md "Requests and answers"): Fastify does not parse bodies
 * of GET requests, so this hook reads and parses one before the handler builds its arguments,
 * with the same rules and size limit as any other JSON body.
 */
export function readJsonBodyOfGet(bodyLimit: number): RequestStep {
  return (req) => {
    if (req.method !== 'GET' || req.body !== undefined || !announcesBody(req)) return undefined;
    if (!JSON_TYPE.test(req.headers['content-type'] ?? '')) return undefined;
    return readBody(req, bodyLimit).then((text) => {
      req.body = parseJsonBody(text);
    });
  };
}
