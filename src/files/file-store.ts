import type { Readable } from 'node:stream';

/**
 * Where file bytes live. Keys are the file URL without its leading slash (`files/<name>`,
 * `private/files/<name>`); `local-file-store.ts` keeps them on disk, an object store (S3 and kin)
 * can keep them under the same keys. Nothing here knows of File documents or permissions.
 */
export interface FileStore {
  /** Writes `body` under `key`, replacing what was there; nothing is visible under `key` until all of it is written. */
  put(key: string, body: Readable, limits?: WriteLimits): Promise<WrittenObject>;
  /**
   * Writes `body` where no key reaches it, hashing it on the way, for a caller that picks the key
   * only once it knows the content (name clashes, deduplication). Throws MaxFileSizeReachedError
   * past `limits.maxBytes`, leaving nothing behind.
   */
  stage(body: Readable, limits?: WriteLimits): Promise<StagedObject>;
  /** Makes a staged object visible under `key`, unless `key` is taken (then false, and nothing changes). The staged copy stays until discarded. */
  commit(staged: StagedObject, key: string): Promise<boolean>;
  /** Forgets a staged object; committed copies stay. */
  discard(staged: StagedObject): Promise<void>;
  /** The object's bytes (all, or `range`), or undefined when there is no object under `key`. */
  open(key: string, range?: ByteRange): Promise<OpenedObject | undefined>;
  /** Size and modification time of the object, or undefined. */
  stat(key: string): Promise<ObjectInfo | undefined>;
  /** Removes the object; removing a missing object is not an error. */
  remove(key: string): Promise<void>;
  /** Every key held (staged uploads excluded), for migration and backups; in no particular order. */
  keys(): AsyncIterable<string>;
  /**
   * A URL that hands the object's bytes to whoever holds it until it expires, for stores that have
   * one (object stores presign); absent on local disk. It decides no access: callers check the
   * reader's permission first (docs/files.md "Storage backends").
   */
  directUrl?(key: string, options: DirectUrlOptions): Promise<string>;
  /** Lets go of connections when the site closes. */
  close?(): void;
}

/** How a direct URL answers. */
export interface DirectUrlOptions {
  readonly expiresInSeconds: number;
  readonly contentType: string;
  /** Content-Disposition the bucket sends with the bytes. */
  readonly contentDisposition?: string;
}

/** Limits of one write. */
export interface WriteLimits {
  /** More bytes than this is MaxFileSizeReachedError. */
  readonly maxBytes?: number;
}

/** What a write stored. */
export interface WrittenObject {
  readonly size: number;
  /** sha256 of the bytes, lower-case hex. */
  readonly contentHash: string;
}

/** Bytes held by a store under no key yet; `id` means something only to the store that staged it. */
export interface StagedObject extends WrittenObject {
  readonly id: string;
}

/** A byte range, both ends included, as HTTP's Range header counts. */
export interface ByteRange {
  readonly start: number;
  readonly end: number;
}

/** Facts about a stored object. */
export interface ObjectInfo {
  readonly size: number;
  readonly modified: Date;
  /** sha256 of the bytes when the store keeps it beside them (object metadata); undefined: read the bytes to know. */
  readonly contentHash?: string;
}

/** An opened object: a stream of the asked bytes, and the facts of the whole object. */
export interface OpenedObject extends ObjectInfo {
  readonly stream: Readable;
  /** The range streamed; undefined when the stream holds the whole object. */
  readonly range: ByteRange | undefined;
}
