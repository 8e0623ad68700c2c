import { randomBytes } from 'node:crypto';
import type { DocContext } from '../documents/doc-context.js';
import { DuplicateEntryError } from '../errors/index.js';
import type { FileStore } from './file-store.js';
import { fileUrlsWithContent } from './file-rows.js';
import { localFile, parseFileUrl, type LocalFile } from './file-url.js';
import { markFreshUpload } from './fresh-uploads.js';
import { sanitizeFileName, withSuffix } from './sanitize-file-name.js';
import type { UploadedFile } from './uploaded-file.js';

/** Where an upload ended up: the stored file, and the name the File document shows. */
export interface PlacedUpload {
  readonly file: LocalFile;
  readonly fileName: string;
}

/** Names to try, in order: as given, with the hash's last 6 characters (the reference's rule), then random tails. */
function candidateNames(name: string, contentHash: string): string[] {
  const hashed = withSuffix(name, contentHash.slice(-6));
  return [name, hashed, ...Array.from({ length: 3 }, () => withSuffix(name, `${contentHash.slice(-6)}-${randomBytes(3).toString('hex')}`))];
}

/**
 * Gives an upload its stored file (docs/files.md): the same content with the same privacy reuses
 * the stored file an earlier File points at; otherwise the bytes go under the cleaned name, or,
 * when a different file holds that name, under the name with the content hash's last 6
 * characters appended. A stored file no File points at is never reused: it may be another
 * request's upload whose document is not committed yet.
 */
export async function placeUpload(
  ctx: DocContext,
  store: FileStore,
  upload: UploadedFile,
  options: { isPrivate: boolean; fileName: string },
): Promise<PlacedUpload> {
  const fileName = sanitizeFileName(options.fileName);
  const written = { size: upload.size, contentHash: upload.contentHash };
  const place = (file: LocalFile, shownName: string): PlacedUpload => {
    markFreshUpload(ctx, file.url, written);
    return { file, fileName: shownName };
  };

  const ownKey = upload.placedKey((key) => parseFileUrl(`/${key}`)?.isPrivate === options.isPrivate);
  const own = ownKey === undefined ? undefined : parseFileUrl(`/${ownKey}`);
  if (own) return place(own, own.name);

  for (const url of await fileUrlsWithContent(ctx, upload.contentHash, options.isPrivate)) {
    const existing = parseFileUrl(url);
    if (existing && existing.isPrivate === options.isPrivate && (await store.stat(existing.key))) return place(existing, fileName);
  }

  for (const name of candidateNames(fileName, upload.contentHash)) {
    const file = localFile(name, options.isPrivate);
    if (await upload.place(file.key)) return place(file, name);
  }
  throw new DuplicateEntryError(`Could not find a free name for ${fileName}`);
}
