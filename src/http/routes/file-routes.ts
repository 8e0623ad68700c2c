import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GUEST } from '../../auth/principal.js';
import { DoesNotExistError, PermissionError, RangeNotSatisfiableError } from '../../errors/index.js';
import { parseRange, UNSATISFIABLE } from '../../files/byte-range.js';
import { presentationFor } from '../../files/content-types.js';
import { mayReadFile } from '../../files/file-access.js';
import { presignedLocation, redirectTtl, type RedirectTtl } from '../../files/file-delivery.js';
import { filesWithUrl } from '../../files/file-rows.js';
import type { FileStore, ObjectInfo } from '../../files/file-store.js';
import { isStorableName, localFile, type LocalFile } from '../../files/file-url.js';
import type { Site } from '../../site/site.js';
import { requestContext } from '../request-context.js';

/** Public files may be cached anywhere for an hour, then revalidated by ETag. */
const PUBLIC_CACHE = 'public, max-age=3600';
/** Private files: only the browser keeps them, and asks again every time. */
const PRIVATE_CACHE = 'private, no-cache';
/**
 * A file served as a download still gets a sandbox: should a browser ever render it (an old one
 * ignoring Content-Disposition), it runs no script as the site and loads nothing
 * (docs/security.md, "Files").
 */
const SANDBOX = "sandbox; default-src 'none'; frame-ancestors 'none'";

/**
 * `attachment` with the file's name: `filename` in plain ASCII (anything else, quotes and
 * backslashes included, becomes `_`) and `filename*` with the exact name percent-encoded (RFC 6266).
 */
function attachmentDisposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  // A lone surrogate cannot be percent-encoded: it becomes U+FFFD, as String#toWellFormed does.
  const exact = name.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
  const encoded = encodeURIComponent(exact).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/** A file to serve: where it is and the content hash its File records, if any. */
interface Servable {
  readonly file: LocalFile;
  readonly contentHash: string | undefined;
}

function notFound(): DoesNotExistError {
  return new DoesNotExistError('File not found', { messages: [{ message: 'File not found', title: 'Not Found' }] });
}

/** The requested name, or a 404 for anything that could leave the folder or reach a temporary file. */
function requestedFile(req: FastifyRequest, isPrivate: boolean): LocalFile {
  const name = (req.params as { '*'?: string })['*'] ?? '';
  if (!isStorableName(name)) throw notFound();
  return localFile(name, isPrivate);
}

function hashOf(rows: readonly Record<string, unknown>[]): string | undefined {
  const hash = rows.find((r) => typeof r.content_hash === 'string' && r.content_hash !== '')?.content_hash;
  return typeof hash === 'string' ? hash : undefined;
}

/** Public files are everyone's; their File (if any) gives the ETag. */
async function publicFile(site: Site, req: FastifyRequest): Promise<Servable> {
  const file = requestedFile(req, false);
  const rows = await site.read(GUEST, (ctx) => filesWithUrl(ctx, file.url));
  return { file, contentHash: hashOf(rows) };
}

/**
 * Private files go to signed-in users who may read one of the Files using them (owner, System
 * Manager, or a reader of the attached document): 403 to anyone else, Guest included, and the
 * same 403 when no File uses the name.
 */
async function privateFile(site: Site, req: FastifyRequest): Promise<Servable> {
  const file = requestedFile(req, true);
  const { principal } = await requestContext(site, req);
  if (principal.isGuest) throw new PermissionError('Login required to read private files', { doctype: 'File' });
  return site.read(principal, async (ctx) => {
    const rows = await filesWithUrl(ctx, file.url);
    for (const row of rows) {
      if (await mayReadFile(ctx, row)) return { file, contentHash: hashOf(rows) };
    }
    // No File uses the name, or none the principal may read: one answer, so which private files
    // exist is never learnt by asking (docs/security.md, "Files").
    throw new PermissionError(`No permission to read ${file.url}`, {
      doctype: 'File',
      messages: [{ message: 'You do not have enough permissions to access this file', title: 'Not permitted' }],
    });
  });
}

function entityTag(servable: Servable, info: ObjectInfo): string {
  if (servable.contentHash) return `"${servable.contentHash}"`;
  return `W/"${info.size.toString(16)}-${info.modified.getTime().toString(16)}"`;
}

function matchesTag(header: string, etag: string): boolean {
  const bare = (t: string) => t.trim().replace(/^W\//, '');
  return header.split(',').some((t) => t.trim() === '*' || bare(t) === bare(etag));
}

/** Whole seconds, as HTTP dates carry them. */
function httpSeconds(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}

/** RFC 9110 §13.2.2: If-None-Match decides when present, else If-Modified-Since. */
function isNotModified(req: FastifyRequest, etag: string, info: ObjectInfo): boolean {
  const noneMatch = req.headers['if-none-match'];
  if (noneMatch !== undefined) return matchesTag(noneMatch, etag);
  const since = Date.parse(req.headers['if-modified-since'] ?? '');
  return !Number.isNaN(since) && httpSeconds(info.modified) <= since / 1000;
}

/** If-Range: the range applies only while the client's copy is current (strong tag or exact date). */
function rangeStillValid(req: FastifyRequest, etag: string, info: ObjectInfo): boolean {
  const header = req.headers['if-range'];
  const ifRange = Array.isArray(header) ? header[0] : header;
  if (ifRange === undefined) return true;
  const value = ifRange.trim();
  if (value.startsWith('"') || value.startsWith('W/')) return !etag.startsWith('W/') && value === etag;
  const date = Date.parse(value);
  return !Number.isNaN(date) && date / 1000 === httpSeconds(info.modified);
}

/**
 * Streams a stored file with validators, conditional GET and single byte ranges; or, with a
 * redirect TTL, answers 302 to a presigned URL (the permission check has passed by now).
 */
async function send(store: FileStore, req: FastifyRequest, reply: FastifyReply, servable: Servable, cacheControl: string, redirect?: RedirectTtl) {
  const info = await store.stat(servable.file.key);
  if (!info) throw notFound();
  const location = redirect === undefined ? undefined : await presignedLocation(store, servable.file, redirect);
  // Never cached: the URL expires, and a private one must not outlive the check that allowed it.
  if (location) return reply.code(302).header('Location', location).header('Cache-Control', 'no-store').send();
  const etag = entityTag(servable, info);
  const validators = () => reply.header('ETag', etag).header('Last-Modified', info.modified.toUTCString()).header('Cache-Control', cacheControl);
  if (isNotModified(req, etag, info)) return validators().code(304).send();
  const asked = rangeStillValid(req, etag, info) ? parseRange(req.headers.range, info.size) : undefined;
  if (asked === UNSATISFIABLE) {
    reply.header('Content-Range', `bytes */${info.size}`);
    throw new RangeNotSatisfiableError(`Range not satisfiable: the file has ${info.size} bytes`);
  }
  const opened = await store.open(servable.file.key, asked);
  if (!opened) throw notFound();
  validators().header('Accept-Ranges', 'bytes').header('X-Content-Type-Options', 'nosniff');
  const { contentType, inline } = presentationFor(servable.file.name);
  if (!inline) reply.header('Content-Security-Policy', SANDBOX).header('Content-Disposition', attachmentDisposition(servable.file.name));
  reply.type(contentType);
  if (opened.range) {
    reply.code(206).header('Content-Range', `bytes ${opened.range.start}-${opened.range.end}/${opened.size}`);
    reply.header('Content-Length', String(opened.range.end - opened.range.start + 1));
  } else {
    reply.header('Content-Length', String(opened.size));
  }
  return reply.send(opened.stream);
}

/** `GET /files/<name>` (public) and `GET /private/files/<name>` (permission-checked); HEAD answers the same headers. */
export function registerFileRoutes(app: FastifyInstance, site: Site): void {
  const store = site.files;
  const publicRedirect = redirectTtl(site.config.file_storage, store, false);
  const privateRedirect = redirectTtl(site.config.file_storage, store, true);
  app.get('/files/*', async (req, reply) => send(store, req, reply, await publicFile(site, req), PUBLIC_CACHE, publicRedirect));
  app.get('/private/files/*', async (req, reply) => send(store, req, reply, await privateFile(site, req), PRIVATE_CACHE, privateRedirect));
}
