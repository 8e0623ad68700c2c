import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { constants, copyFile, link, mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ValidationError } from '../errors/index.js';
import { Meter } from './content-meter.js';
import type { ByteRange, FileStore, ObjectInfo, OpenedObject, StagedObject, WriteLimits, WrittenObject } from './file-store.js';
import { isStorableName, localFile, parseFileUrl } from './file-url.js';
import { storageFailure, type StorageFailureReport } from './storage-failure.js';

/** The two folders of a site's files. */
export interface FileFolders {
  readonly publicFiles: string;
  readonly privateFiles: string;
}

const STAGED_ID = /^\.upload-[0-9a-f-]{36}\.part$/;

function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/**
 * Files on local disk: `files/<name>` in the site's public folder, `private/files/<name>` in its
 * private folder. Every write goes to a dot-named temporary file in the target's folder first
 * (no URL can reach a dot-name), so a failed or oversize upload leaves nothing under any key.
 */
export class LocalFileStore implements FileStore {
  readonly #folders: FileFolders;
  readonly #report: StorageFailureReport | undefined;

  /** `report` hears of folders that cannot be written (the site logs them); clients get a 503. */
  constructor(folders: FileFolders, report?: StorageFailureReport) {
    this.#folders = folders;
    this.#report = report;
  }

  /** Runs a write into `folder`, turning "cannot write there" into the catalogue's 503. */
  async #writing<T>(folder: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      throw storageFailure(err, folder, this.#report);
    }
  }

  /** The path of a key, or undefined for a key that names no stored file. */
  #path(key: string): string | undefined {
    const file = parseFileUrl(`/${key}`);
    if (!file) return undefined;
    return join(file.isPrivate ? this.#folders.privateFiles : this.#folders.publicFiles, file.name);
  }

  #writablePath(key: string): string {
    const path = this.#path(key);
    if (!path) throw new ValidationError(`"${key}" is not a file key`);
    return path;
  }

  #stagedPath(staged: StagedObject): string {
    if (!STAGED_ID.test(staged.id)) throw new ValidationError('Unknown staged upload');
    return join(this.#folders.privateFiles, staged.id);
  }

  /** Streams `body` into a new temporary file in `folder`, hashing it; on any failure the file is gone. */
  async #writeTemp(folder: string, body: Readable, limits: WriteLimits): Promise<WrittenObject & { path: string; id: string }> {
    await this.#writing(folder, () => mkdir(folder, { recursive: true }));
    const id = `.upload-${randomUUID()}.part`;
    const path = join(folder, id);
    const meter = new Meter(limits.maxBytes ?? Number.POSITIVE_INFINITY);
    const file = createWriteStream(path, { flags: 'wx' });
    try {
      await this.#writing(folder, () => pipeline(body, meter, file));
    } catch (err) {
      // The file is opened asynchronously: a body that fails at once must not let it appear after
      // the removal, so the removal waits until the stream let go of it.
      if (!file.closed) await new Promise<void>((resolve) => file.once('close', () => resolve()));
      await rm(path, { force: true }).catch(() => {});
      throw err;
    }
    return { path, id, size: meter.bytesSeen, contentHash: meter.digest() };
  }

  async put(key: string, body: Readable, limits: WriteLimits = {}): Promise<WrittenObject> {
    const target = this.#writablePath(key);
    const temp = await this.#writeTemp(dirname(target), body, limits);
    try {
      await this.#writing(dirname(target), () => rename(temp.path, target));
    } catch (err) {
      await rm(temp.path, { force: true });
      throw err;
    }
    return { size: temp.size, contentHash: temp.contentHash };
  }

  async stage(body: Readable, limits: WriteLimits = {}): Promise<StagedObject> {
    const temp = await this.#writeTemp(this.#folders.privateFiles, body, limits);
    return { id: temp.id, size: temp.size, contentHash: temp.contentHash };
  }

  async commit(staged: StagedObject, key: string): Promise<boolean> {
    const source = this.#stagedPath(staged);
    const target = this.#writablePath(key);
    await this.#writing(dirname(target), () => mkdir(dirname(target), { recursive: true }));
    try {
      // A hard link appears whole or not at all, and never replaces what is there.
      await link(source, target);
      return true;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') return false;
      if (code !== 'EXDEV' && code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EMLINK') throw storageFailure(err, dirname(target), this.#report);
    }
    // The folders sit on file systems without shared hard links: copy, still refusing to replace.
    try {
      await copyFile(source, target, constants.COPYFILE_EXCL);
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
      await rm(target, { force: true }).catch(() => {});
      throw storageFailure(err, dirname(target), this.#report);
    }
  }

  async discard(staged: StagedObject): Promise<void> {
    await rm(this.#stagedPath(staged), { force: true });
  }

  async open(key: string, range?: ByteRange): Promise<OpenedObject | undefined> {
    const path = this.#path(key);
    if (!path) return undefined;
    let handle: Awaited<ReturnType<typeof open>>;
    try {
      handle = await open(path, 'r');
    } catch (err) {
      if (isMissing(err) || (err as NodeJS.ErrnoException).code === 'EISDIR') return undefined;
      throw err;
    }
    const info = await handle.stat();
    if (!info.isFile()) {
      await handle.close();
      return undefined;
    }
    // Reading from the handle opened above, a file removed meanwhile is still read whole.
    const stream = handle.createReadStream(range ? { start: range.start, end: range.end } : {});
    return { stream, size: info.size, modified: info.mtime, range };
  }

  async stat(key: string): Promise<ObjectInfo | undefined> {
    const path = this.#path(key);
    if (!path) return undefined;
    try {
      const info = await stat(path);
      return info.isFile() ? { size: info.size, modified: info.mtime } : undefined;
    } catch (err) {
      if (isMissing(err)) return undefined;
      throw err;
    }
  }

  async remove(key: string): Promise<void> {
    const path = this.#path(key);
    if (path) await rm(path, { force: true });
  }

  async *keys(): AsyncIterable<string> {
    for (const [folder, isPrivate] of [
      [this.#folders.publicFiles, false],
      [this.#folders.privateFiles, true],
    ] as const) {
      const entries = await readdir(folder, { withFileTypes: true }).catch((err: unknown) => {
        if (isMissing(err)) return [];
        throw err;
      });
      // Temporary `.upload-*` files and anything else no URL reaches are not keys.
      for (const entry of entries) if (entry.isFile() && isStorableName(entry.name)) yield localFile(entry.name, isPrivate).key;
    }
  }
}
