import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { FastifyMultipartBaseOptions } from '@fastify/multipart';
import { FwError, InvalidRequestBody, MaxFileSizeReachedError, RequestTooLarge } from '../errors/index.js';
import type { FileStore } from '../files/file-store.js';
import { openFileStore } from '../files/open-file-store.js';
import { UploadedFile } from '../files/uploaded-file.js';
import type { SiteConfig } from '../site/site-config.js';
import { siteSettings } from '../site/site-settings.js';
import type { Site } from '../site/site.js';

/** The multipart part that carries the upload, as in the reference and its clients. */
const FILE_PART = 'file';

/** Uploads staged for a request, released when its answer goes out. */
const uploadsOf = new WeakMap<FastifyRequest, UploadedFile[]>();

/** @fastify/multipart's limits from the site config: one upload up to max_file_size, fields up to max_request_size. */
export function multipartOptions(config: SiteConfig): FastifyMultipartBaseOptions {
  return {
    limits: { fileSize: config.max_file_size, fieldSize: config.max_request_size, parts: 1000, headerPairs: 200 },
  };
}

async function drain(stream: Readable): Promise<void> {
  stream.resume();
  await finished(stream);
}

/** A parser's complaint about the body in the catalogue's terms; a failing disk stays a server error. */
function asClientError(err: unknown): unknown {
  if (err instanceof FwError || (err as NodeJS.ErrnoException).syscall !== undefined) return err;
  const { code, statusCode, message } = err as { code?: string; statusCode?: number; message?: string };
  if (code === 'FST_REQ_FILE_TOO_LARGE') return new MaxFileSizeReachedError('File size exceeded the maximum allowed size');
  if (statusCode === 413) return new RequestTooLarge(`Multipart body refused: ${message ?? 'too many parts'}`);
  return new InvalidRequestBody(`Malformed multipart body: ${message ?? 'unreadable'}`);
}

/**
 * Reads a multipart body into arguments: form fields as strings (the first of a repeated name
 * wins), and the `file` part streamed into the store's staging area as an UploadedFile, never
 * held in memory. Other file parts are read past and dropped.
 */
async function readMultipart(req: FastifyRequest, store: FileStore, config: SiteConfig): Promise<Record<string, unknown>> {
  const body: Record<string, unknown> = {};
  const uploads: UploadedFile[] = [];
  uploadsOf.set(req, uploads);
  let fieldBytes = 0;
  try {
    for await (const part of req.parts({ limits: { fileSize: config.max_file_size } })) {
      if (part.type === 'file') {
        if (part.fieldname !== FILE_PART || Object.hasOwn(body, FILE_PART)) {
          await drain(part.file);
          continue;
        }
        const upload = await UploadedFile.receive(store, part.file, part.filename, { maxBytes: config.max_file_size });
        uploads.push(upload);
        if (part.file.truncated) {
          throw new MaxFileSizeReachedError(`File size exceeded the maximum allowed size of ${config.max_file_size} bytes`);
        }
        // An empty file input of a browser form: a part with neither name nor bytes.
        if (part.filename === '' && upload.size === 0) continue;
        body[FILE_PART] = upload;
        continue;
      }
      if (part.valueTruncated || part.fieldnameTruncated) throw new RequestTooLarge(`Form field ${part.fieldname.slice(0, 60)} is too large`);
      const value = typeof part.value === 'string' ? part.value : JSON.stringify(part.value);
      fieldBytes += Buffer.byteLength(value) + part.fieldname.length;
      if (fieldBytes > config.max_request_size) throw new RequestTooLarge('The form fields are too large');
      if (!Object.hasOwn(body, part.fieldname)) body[part.fieldname] = part.value;
    }
  } catch (err) {
    throw asClientError(err);
  }
  return body;
}

async function releaseUploads(req: FastifyRequest, statusCode: number): Promise<void> {
  const uploads = uploadsOf.get(req);
  if (!uploads) return;
  uploadsOf.delete(req);
  for (const upload of uploads) await upload.release(statusCode >= 400);
}

/**
 * Multipart bodies become request arguments before any handler runs (the `file` part staged on
 * disk, hashed, within max_file_size), and whatever a request staged is released when its answer
 * is sent: the staged copy always, copies placed under a key too when the request failed.
 */
export function registerUploadStaging(app: FastifyInstance, site: Site): void {
  const store = openFileStore(site.paths);
  app.addHook('preValidation', async (req) => {
    if (!req.isMultipart()) return;
    // Staging runs before the route's metadata check, so it asks for fresh settings itself.
    const { max_file_size } = await siteSettings(site, { fresh: true });
    req.body = await readMultipart(req, store, { ...site.config, max_file_size });
  });
  app.addHook('onSend', async (req, reply, payload) => {
    await releaseUploads(req, reply.statusCode);
    return payload;
  });
  // A request whose answer was never sent (the client went away) still lets go of its uploads.
  app.addHook('onResponse', async (req, reply) => releaseUploads(req, reply.statusCode));
}
