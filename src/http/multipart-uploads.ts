import { PassThrough, type Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { FastifyRequest } from 'fastify';
import type { FastifyMultipartBaseOptions } from '@fastify/multipart';
import { FwError, InvalidRequestBody, MaxFileSizeReachedError, PermissionError, RequestTooLarge } from '../errors/index.js';
import type { FileStore } from '../files/file-store.js';
import { UploadedFile } from '../files/uploaded-file.js';
import type { SiteConfig } from '../site/site-config.js';
import { siteSettings } from '../settings/site-settings.js';
import type { Site } from '../site/site.js';
import { authenticate } from './authenticate.js';
import { DEFAULT_BODY_IDLE_TIMEOUT_MS, setConnectionTimeout } from './body-idle-timeout.js';
import { requestTimeout } from './framework-errors.js';
import { ClosingDelimiter } from './multipart-closing.js';
import type { RequestStep } from './request-pipeline.js';

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

const CUT_SHORT = 'Malformed multipart body: it ended before its closing boundary';

/**
 * The bytes of a file part, relayed through a stream of our own. The parser destroys a part the
 * body ended inside of without an error, which a pipeline may then wait on forever (keeping its
 * staging file open); here such a part fails the watch at once, and the relay fails with it, so
 * whoever stages it removes what it wrote.
 */
function relayPart(file: Readable, watch: BodyWatch): PassThrough {
  const relay = new PassThrough();
  // Whoever reads the relay learns of its failure through the stream itself; until one does, or
  // after it stopped reading, an error must not go unheard (it would end the process).
  relay.on('error', () => undefined);
  const cutShort = () => {
    const err = new InvalidRequestBody(CUT_SHORT);
    watch.abort(err);
    relay.destroy(err);
  };
  // The whole body may have been parsed before this part was handed over: destroyed already.
  if (file.destroyed && !file.readableEnded) {
    cutShort();
    return relay;
  }
  let ended = false;
  file.once('end', () => (ended = true));
  file.once('error', (err) => relay.destroy(err));
  file.once('close', () => {
    if (!ended) cutShort();
  });
  file.pipe(relay);
  return relay;
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
 * Watches the connection a body arrives on: `failed` rejects when the client goes away before the
 * body is complete, or sends nothing for `idleMs`. `stop()` ends the watch once the body is read.
 */
class BodyWatch {
  readonly failed: Promise<never>;
  /** Set by the reader: the file stream being staged now, cut off when the body is given up. */
  current: Readable | undefined;
  #fail!: (err: Error) => void;
  #error: Error | undefined;
  readonly #req: FastifyRequest;
  readonly #raw: FastifyRequest['raw'];
  readonly #onClose = () => {
    if (!this.#raw.complete) this.abort(new InvalidRequestBody('The client closed the connection before the body was complete'));
  };
  readonly #onIdle = () => this.abort(requestTimeout('The upload stopped arriving; send it again'));

  constructor(req: FastifyRequest, idleMs: number) {
    this.#req = req;
    const raw = req.raw;
    this.#raw = raw;
    this.failed = new Promise<never>((_, reject) => {
      this.#fail = reject;
    });
    // Nobody may be awaiting it at the moment it fails; the reader learns of it through `error`.
    this.failed.catch(() => undefined);
    raw.on('close', this.#onClose);
    // The client may have gone while the caller was being authenticated.
    if (raw.destroyed) this.#onClose();
    // A timeout listener on the request keeps Node from destroying the socket, so a 408 can still go out.
    if (idleMs > 0 && setConnectionTimeout(req, idleMs)) raw.on('timeout', this.#onIdle);
  }

  /** The reason the body was given up, if it was. */
  get error(): Error | undefined {
    return this.#error;
  }

  /** Gives the body up: the part being staged is cut off, and the reader learns why. */
  abort(err: Error): void {
    if (this.#error) return;
    this.#error = err;
    this.current?.destroy(err);
    this.#fail(err);
  }

  stop(): void {
    this.#raw.off('close', this.#onClose);
    this.#raw.off('timeout', this.#onIdle);
    setConnectionTimeout(this.#req, 0);
  }
}

/** The next part of the body, or a rejection as soon as the watch gives the body up. */
async function nextPart<T>(parts: AsyncIterator<T>, watch: BodyWatch): Promise<IteratorResult<T>> {
  const next = parts.next();
  // The parser may fail after the watch already did; that rejection is expected and unread.
  next.catch(() => undefined);
  return Promise.race([next, watch.failed]);
}

/**
 * Reads a multipart body into arguments: form fields as strings (the first of a repeated name
 * wins), and the `file` part streamed into the store's staging area as an UploadedFile, never
 * held in memory. Other file parts, and every file part when `stageFiles` is false, are read past
 * and dropped. A client that goes away, or stops sending for `idleMs`, ends the read at once; a
 * body that ends before its closing boundary is a 400 at once. None leaves staged bytes behind.
 */
async function readMultipart(req: FastifyRequest, store: FileStore, config: SiteConfig, idleMs: number, stageFiles: boolean): Promise<Record<string, unknown>> {
  const body: Record<string, unknown> = {};
  const uploads: UploadedFile[] = [];
  uploadsOf.set(req, uploads);
  let fieldBytes = 0;
  const watch = new BodyWatch(req, idleMs);
  const parts = req.parts({ limits: { fileSize: config.max_file_size } })[Symbol.asyncIterator]();
  const boundary = ClosingDelimiter.boundaryOf(req.headers['content-type']);
  const closing = boundary === undefined ? undefined : new ClosingDelimiter(boundary);
  const onData = (chunk: Buffer) => closing?.push(chunk);
  try {
    // The first step pipes the body into the parser; the delimiter watch listens beside it.
    const first = nextPart(parts, watch);
    req.raw.on('data', onData);
    for (let step = await first; !step.done; step = await nextPart(parts, watch)) {
      const part = step.value;
      if (part.type === 'file') {
        const source = relayPart(part.file, watch);
        if (watch.error) throw watch.error;
        watch.current = source;
        if (!stageFiles || part.fieldname !== FILE_PART || Object.hasOwn(body, FILE_PART)) {
          await drain(source);
          continue;
        }
        const upload = await UploadedFile.receive(store, source, part.filename, { maxBytes: config.max_file_size });
        watch.current = undefined;
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
    // The parser ends the parts quietly on a body cut short; its last part is then missing.
    if (closing && !closing.seen) throw new InvalidRequestBody(CUT_SHORT);
  } catch (err) {
    // The staged copies are of no use to a request that failed here; they go now, not at the answer.
    uploadsOf.delete(req);
    for (const upload of uploads) await upload.release(true);
    throw asClientError(watch.error ?? err);
  } finally {
    req.raw.off('data', onData);
    watch.stop();
  }
  return body;
}

/** The path of a method call URL (`/api/method/<path>`, v1 and v2), else undefined. */
function methodPath(url: string): string | undefined {
  return /^\/api\/(?:v1\/|v2\/)?method\/([^/?]+)/.exec(url)?.[1];
}

/**
 * Whether a Guest request may put files on disk: only a call of a method registered with
 * `allowGuest` may (upload_file is not, so Guest never uploads; docs/files.md). A call of a
 * protected method is refused before its body is read, with the 403 the route would answer;
 * any other URL has its file parts read past without staging.
 */
function guestMayStage(site: Site, req: FastifyRequest): boolean {
  const path = methodPath(req.url);
  const method = path === undefined ? undefined : site.methods.resolve(path);
  if (!method) return false;
  if (method.allowGuest) return true;
  throw new PermissionError('Not permitted', { messages: [{ message: `Login required to call ${path}`, title: 'Not permitted' }] });
}

async function releaseUploads(req: FastifyRequest, statusCode: number): Promise<void> {
  const uploads = uploadsOf.get(req);
  if (!uploads) return;
  uploadsOf.delete(req);
  for (const upload of uploads) await upload.release(statusCode >= 400);
}

/**
 * Multipart bodies become request arguments before any handler runs (the `file` part staged on
 * disk, hashed, within max_file_size, given up after `idleMs` without a byte), and whatever a
 * request staged is released when its answer is sent: the staged copy always, copies placed under
 * a key too when the request failed.
 */
export function uploadSteps(site: Site, idleMs = DEFAULT_BODY_IDLE_TIMEOUT_MS): { stage: RequestStep; release: RequestStep } {
  const store = site.files;
  const stage = async (req: FastifyRequest): Promise<void> => {
    // Staging runs before the route's metadata check, so it asks for fresh settings itself.
    // Who is asking is settled first: nothing a Guest sends reaches the disk unless it may upload.
    const { principal } = await authenticate(site, req);
    const stageFiles = !principal.isGuest || guestMayStage(site, req);
    const { max_file_size } = await siteSettings(site, { fresh: true });
    req.body = await readMultipart(req, store, { ...site.config, max_file_size }, idleMs, stageFiles);
  };
  return {
    // A preHandler step, before the argument checks.
    // Only routes in the multipart plugin's context (app.ts) have `isMultipart`.
    stage: (req) => (typeof req.isMultipart === 'function' && req.isMultipart() ? stage(req) : undefined),
    // An onSend step, and an onResponse one: a request whose answer was never sent (the client
    // went away) still lets go of its uploads.
    release: (req, reply) => (uploadsOf.has(req) ? releaseUploads(req, reply.statusCode) : undefined),
  };
}
