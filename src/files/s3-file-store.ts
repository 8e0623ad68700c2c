import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { FwError, ServiceUnavailableError, ValidationError } from '../errors/index.js';
import { Meter } from './content-meter.js';
import type { ByteRange, DirectUrlOptions, FileStore, ObjectInfo, OpenedObject, StagedObject, WriteLimits, WrittenObject } from './file-store.js';
import type { S3FileStorage } from './file-storage-config.js';
import { isStorableName, localFile, parseFileUrl } from './file-url.js';
import type { StorageFailureReport } from './storage-failure.js';

/** Object metadata key holding the sha256 of the bytes, so a stat knows the hash without a download. */
const HASH_METADATA = 'sha256';
const STAGED_ID = /^[0-9a-f-]{36}$/;
/** lib-storage's part size: 8 MiB parts, 2 in flight, bound an upload's memory to a few parts. */
const PART_SIZE = 8 * 1024 * 1024;
const QUEUE_SIZE = 2;

/** The SDK client for a site's `file_storage` (docs/files.md "Storage backends"). */
export function s3Client(config: S3FileStorage): S3Client {
  return new S3Client({
    region: config.region,
    ...(config.endpoint ? { endpoint: config.endpoint } : {}),
    forcePathStyle: config.force_path_style,
    ...(config.access_key_id && config.secret_access_key
      ? { credentials: { accessKeyId: config.access_key_id, secretAccessKey: config.secret_access_key } }
      : {}),
    // Checksums only where S3 demands them: several S3-compatible services reject the SDK's newer defaults.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

function isNotFound(err: unknown): boolean {
  if (!(err instanceof S3ServiceException)) return false;
  return err.$metadata.httpStatusCode === 404 || err.name === 'NotFound' || err.name === 'NoSuchKey';
}

function isPreconditionFailed(err: unknown): boolean {
  return err instanceof S3ServiceException && (err.$metadata.httpStatusCode === 412 || err.name === 'PreconditionFailed');
}

/**
 * Files in an S3-compatible bucket. Keys map to `<prefix>/public/files/<name>` and
 * `<prefix>/private/files/<name>`; uploads stage under `<prefix>/staging/<uuid>` while they are
 * hashed, and a commit copies the staged object to its key unless the key is taken. Each object
 * carries its sha256 as metadata. The bucket decides nothing about access: fw serves the bytes or
 * presigns a short-lived URL after its own permission check.
 */
export class S3FileStore implements FileStore {
  readonly #client: S3Client;
  readonly #bucket: string;
  readonly #prefix: string;
  readonly #report: StorageFailureReport | undefined;

  constructor(config: S3FileStorage, report?: StorageFailureReport, client: S3Client = s3Client(config)) {
    this.#client = client;
    this.#bucket = config.bucket;
    this.#prefix = config.prefix === '' ? '' : `${config.prefix}/`;
    this.#report = report;
  }

  /** The bucket and prefix, for messages (never the credentials). */
  get location(): string {
    return `s3://${this.#bucket}/${this.#prefix}`;
  }

  /** Runs a bucket call; the service failing or refusing becomes the catalogue's 503, reported with its cause. */
  async #calling<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      if (err instanceof FwError || !(err instanceof Error)) throw err;
      this.#report?.(err, this.location);
      throw new ServiceUnavailableError("The site cannot reach its file storage right now. Tell the site's administrator (the server log names the cause).", {
        cause: err,
      });
    }
  }

  /** The object name of a key, or undefined for a key that names no stored file. */
  #objectName(key: string): string | undefined {
    const file = parseFileUrl(`/${key}`);
    if (!file) return undefined;
    return `${this.#prefix}${file.isPrivate ? 'private' : 'public'}/files/${file.name}`;
  }

  #writableName(key: string): string {
    const name = this.#objectName(key);
    if (!name) throw new ValidationError(`"${key}" is not a file key`);
    return name;
  }

  #stagedName(staged: StagedObject): string {
    if (!STAGED_ID.test(staged.id)) throw new ValidationError('Unknown staged upload');
    return `${this.#prefix}staging/${staged.id}`;
  }

  /** Streams `body` into `name` through a hashing meter (multipart past one part); nothing is left on failure. */
  async #upload(name: string, body: Readable, limits: WriteLimits): Promise<WrittenObject> {
    const meter = new Meter(limits.maxBytes ?? Number.POSITIVE_INFINITY);
    // The hash is known only at the end; it goes on the object by the commit's copy (staging) or a metadata copy (put).
    const upload = new Upload({
      client: this.#client,
      params: { Bucket: this.#bucket, Key: name, Body: meter },
      partSize: PART_SIZE,
      queueSize: QUEUE_SIZE,
      leavePartsOnError: true,
    });
    body.on('error', (err) => meter.destroy(err));
    body.pipe(meter);
    try {
      await Promise.all([
        upload.done(),
        new Promise<void>((resolve, reject) => {
          meter.once('error', reject);
          meter.once('end', resolve);
        }),
      ]);
    } catch (err) {
      body.unpipe(meter);
      body.resume();
      await upload.abort().catch(() => {});
      await this.#client.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key: name })).catch(() => {});
      // The body's own error (too large, client gone) is the answer, not a storage failure.
      if (err instanceof FwError || meter.errored === err || body.errored === err) throw err;
      return this.#calling(() => Promise.reject(err));
    }
    return { size: meter.bytesSeen, contentHash: meter.digest() };
  }

  /** Copies `from` to `to` with the hash as metadata; with `onlyNew`, false when `to` already exists. */
  async #copy(from: string, to: string, contentHash: string, onlyNew: boolean): Promise<boolean> {
    return this.#calling(async () => {
      // A service without conditional copies (s3rver, older MinIO) ignores If-None-Match: look first.
      if (onlyNew && (await this.#head(to))) return false;
      try {
        await this.#client.send(
          new CopyObjectCommand({
            Bucket: this.#bucket,
            Key: to,
            CopySource: `${this.#bucket}/${from.split('/').map(encodeURIComponent).join('/')}`,
            MetadataDirective: 'REPLACE',
            Metadata: { [HASH_METADATA]: contentHash },
            ...(onlyNew ? { IfNoneMatch: '*' } : {}),
          }),
        );
        return true;
      } catch (err) {
        if (onlyNew && isPreconditionFailed(err)) return false;
        throw err;
      }
    });
  }

  async #head(name: string): Promise<ObjectInfo | undefined> {
    try {
      const head = await this.#client.send(new HeadObjectCommand({ Bucket: this.#bucket, Key: name }));
      const hash = head.Metadata?.[HASH_METADATA];
      return { size: head.ContentLength ?? 0, modified: head.LastModified ?? new Date(0), ...(hash ? { contentHash: hash } : {}) };
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  async put(key: string, body: Readable, limits: WriteLimits = {}): Promise<WrittenObject> {
    const target = this.#writableName(key);
    // Through staging, so the key shows either the old object or the whole new one, hash included.
    const staged = await this.stage(body, limits);
    try {
      await this.#copy(this.#stagedName(staged), target, staged.contentHash, false);
    } finally {
      await this.discard(staged);
    }
    return { size: staged.size, contentHash: staged.contentHash };
  }

  async stage(body: Readable, limits: WriteLimits = {}): Promise<StagedObject> {
    const id = randomUUID();
    const written = await this.#upload(`${this.#prefix}staging/${id}`, body, limits);
    return { id, ...written };
  }

  async commit(staged: StagedObject, key: string): Promise<boolean> {
    return this.#copy(this.#stagedName(staged), this.#writableName(key), staged.contentHash, true);
  }

  async discard(staged: StagedObject): Promise<void> {
    const name = this.#stagedName(staged);
    await this.#calling(() => this.#client.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key: name })));
  }

  async open(key: string, range?: ByteRange): Promise<OpenedObject | undefined> {
    const name = this.#objectName(key);
    if (!name) return undefined;
    return this.#calling(async () => {
      try {
        const got = await this.#client.send(
          new GetObjectCommand({ Bucket: this.#bucket, Key: name, ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}) }),
        );
        // With a range, the object's size is the part of Content-Range after the slash.
        const total = range ? Number(/\/(\d+)$/.exec(got.ContentRange ?? '')?.[1]) : got.ContentLength;
        const hash = got.Metadata?.[HASH_METADATA];
        return {
          stream: got.Body as Readable,
          size: Number.isFinite(total) ? (total as number) : 0,
          modified: got.LastModified ?? new Date(0),
          range,
          ...(hash ? { contentHash: hash } : {}),
        };
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    });
  }

  async stat(key: string): Promise<ObjectInfo | undefined> {
    const name = this.#objectName(key);
    if (!name) return undefined;
    return this.#calling(() => this.#head(name));
  }

  async remove(key: string): Promise<void> {
    const name = this.#objectName(key);
    if (name) await this.#calling(() => this.#client.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key: name })));
  }

  async *keys(): AsyncIterable<string> {
    for (const isPrivate of [false, true]) {
      const folder = `${this.#prefix}${isPrivate ? 'private' : 'public'}/files/`;
      let token: string | undefined;
      do {
        const page = await this.#calling(() => this.#client.send(new ListObjectsV2Command({ Bucket: this.#bucket, Prefix: folder, ContinuationToken: token })));
        for (const object of page.Contents ?? []) {
          const name = (object.Key ?? '').slice(folder.length);
          if (isStorableName(name)) yield localFile(name, isPrivate).key;
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
    }
  }

  async directUrl(key: string, options: DirectUrlOptions): Promise<string> {
    const name = this.#writableName(key);
    return getSignedUrl(
      this.#client,
      new GetObjectCommand({
        Bucket: this.#bucket,
        Key: name,
        ResponseContentType: options.contentType,
        ...(options.contentDisposition ? { ResponseContentDisposition: options.contentDisposition } : {}),
      }),
      { expiresIn: options.expiresInSeconds },
    );
  }

  /** Lets the SDK's sockets go (the site is closing). */
  close(): void {
    this.#client.destroy();
  }
}
