import type { DocContext } from '../documents/doc-context.js';
import { CannotChangeConstantError, InvalidURLError, MandatoryError, PermissionError, ValidationError } from '../errors/index.js';
import type { Doc } from '../meta/doctype.js';
import { fileTypeFor } from './content-types.js';
import { checkAttachTarget, mayReadFile } from './file-access.js';
import { checkFolder, checkFolderName } from './file-folder.js';
import type { FileStore } from './file-store.js';
import { filesWithUrl } from './file-rows.js';
import { looksLocal, parseFileUrl, type LocalFile } from './file-url.js';
import { freshUpload } from './fresh-uploads.js';
import { sanitizeFileName } from './sanitize-file-name.js';

const text = (v: unknown): string => (typeof v === 'string' ? v.trim() : '');

/** The last path segment of a remote URL, as a file name. */
function remoteName(url: URL): string {
  const last = url.pathname.split('/').filter(Boolean).pop() ?? '';
  let decoded = last;
  try {
    decoded = decodeURIComponent(last);
  } catch {
    // A malformed escape: keep the raw segment.
  }
  return sanitizeFileName(decoded || url.hostname);
}

/**
 * Size and hash of a stored file a new File points at. Bytes uploaded in this unit of work are
 * the uploader's; any other stored file must already be public, or readable by the principal
 * through another File, so a File document can never be a key to someone else's private file.
 */
async function storedFacts(ctx: DocContext, store: FileStore, file: LocalFile): Promise<{ size: number; contentHash: string | null }> {
  const fresh = freshUpload(ctx, file.url);
  if (fresh) return fresh;
  const others = await filesWithUrl(ctx, file.url);
  if (file.isPrivate) {
    // A private file the principal may not read, and one that does not exist, answer alike: which
    // private files exist is itself not theirs to learn (docs/security.md, "Files").
    let readable = false;
    for (const other of others) if (!readable) readable = await mayReadFile(ctx, other);
    if (!readable) throw new PermissionError(`No permission to use the private file ${file.url}`);
  }
  const info = await store.stat(file.key);
  if (!info) throw new ValidationError(`File ${file.url} does not exist`);
  const hashed = others.find((o) => typeof o.content_hash === 'string' && o.content_hash !== '');
  return { size: info.size, contentHash: hashed ? String(hashed.content_hash) : null };
}

/** Fills in a new File from its file_url: privacy, size and hash from the store, never from the client. */
async function prepareNew(ctx: DocContext, store: FileStore, doc: Doc): Promise<void> {
  const url = text(doc.file_url);
  if (url === '') throw new MandatoryError('Fields `file_name` or `file_url` must be set for File');
  const local = parseFileUrl(url);
  if (local) {
    const facts = await storedFacts(ctx, store, local);
    doc.file_url = local.url;
    doc.is_private = local.isPrivate ? 1 : 0;
    doc.file_size = facts.size;
    doc.content_hash = facts.contentHash;
    doc.file_name = text(doc.file_name) === '' ? local.name : sanitizeFileName(doc.file_name);
  } else if (!looksLocal(url) && /^https?:\/\//i.test(url) && URL.canParse(url)) {
    doc.is_private = 0;
    doc.file_size = null;
    doc.content_hash = null;
    doc.file_name = text(doc.file_name) === '' ? remoteName(new URL(url)) : sanitizeFileName(doc.file_name);
  } else if (looksLocal(url)) {
    throw new ValidationError(`File ${url.slice(0, 200)} does not exist`);
  } else {
    throw new InvalidURLError('File URL must start with /files/, /private/files/, http:// or https://');
  }
  doc.file_type = fileTypeFor(String(doc.file_name));
  if (text(doc.folder) === '') doc.folder = text(doc.attached_to_name) === '' ? 'Home' : 'Home/Attachments';
}

/** True when the attachment fields of `doc` differ from `before`'s. */
function attachmentChanged(doc: Doc, before: Doc): boolean {
  return doc.attached_to_doctype !== before.attached_to_doctype || doc.attached_to_name !== before.attached_to_name;
}

/**
 * The File DocType's checks before validation: a new File needs a file_url that is an uploaded or
 * readable stored file or an http(s) URL; a saved File keeps its URL, privacy, size and hash; a
 * File attached to a document needs write permission on it.
 */
export async function prepareFileDocument(ctx: DocContext, store: FileStore, doc: Doc, before: Doc | undefined): Promise<void> {
  if (Number(doc.is_folder) === 1) {
    if (text(doc.file_name) === '') throw new MandatoryError('A folder needs a file_name');
    checkFolderName(String(doc.file_name));
    doc.file_url = null;
    if (text(doc.folder) === '') doc.folder = 'Home';
    if (before === undefined || doc.folder !== before.folder) await checkFolder(ctx, String(doc.folder));
    return;
  }
  if (before === undefined) await prepareNew(ctx, store, doc);
  else {
    for (const field of ['file_url', 'is_private'] as const) {
      if ((doc[field] ?? null) !== (before[field] ?? null)) {
        throw new CannotChangeConstantError(`The ${field} of File ${String(before.name)} cannot be changed`);
      }
    }
    for (const field of ['file_size', 'content_hash', 'file_type'] as const) doc[field] = before[field] ?? null;
  }
  // A folder the client names must exist; one the File was already in stays valid.
  if (text(doc.folder) === '') doc.folder = 'Home';
  if (before === undefined || doc.folder !== before.folder) await checkFolder(ctx, String(doc.folder));
  const doctype = text(doc.attached_to_doctype);
  const name = text(doc.attached_to_name);
  if ((doctype === '') !== (name === '')) {
    throw new ValidationError('A File is attached with both attached_to_doctype and attached_to_name, or neither');
  }
  if (doctype !== '' && (before === undefined || attachmentChanged(doc, before))) await checkAttachTarget(ctx, doctype, name);
}
