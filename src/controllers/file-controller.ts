import type { HookRegistry } from '../documents/hooks.js';
import { countFilesWithUrl } from '../files/file-rows.js';
import type { FileStore } from '../files/file-store.js';
import { parseFileUrl } from '../files/file-url.js';
import { prepareFileDocument } from '../files/prepare-file-document.js';

/**
 * The File DocType's own behaviour: a File points only at bytes its creator uploaded or may read,
 * its URL and content facts are fixed once stored, and deleting the last File that uses a stored
 * file deletes the bytes.
 */
export function registerFileController(hooks: HookRegistry, store: FileStore): void {
  hooks.on('File', 'before_validate', async ({ doc, before, ctx }, next) => {
    await prepareFileDocument(ctx, store, doc, before);
    await next();
  });

  hooks.on('File', 'after_delete', async ({ doc, ctx }, next) => {
    const file = parseFileUrl(doc.file_url);
    // Deduplicated uploads share one stored file; it goes with the last File using it, once that
    // delete committed (a rolled-back delete keeps a File whose bytes must still be there).
    if (file && (await countFilesWithUrl(ctx, file.url)) === 0) ctx.unit.afterCommit(() => store.remove(file.key));
    await next();
  });
}
