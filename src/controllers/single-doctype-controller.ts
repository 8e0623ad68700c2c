import type { HookRegistry } from '../documents/hooks.js';
import { deleteSingleRows } from '../documents/singles/single-rows.js';

/**
 * Deleting a Single DocType removes its stored values from the Singles table (`__Singles`) (it has no table to drop),
 * so a later DocType of the same name starts empty.
 */
export function registerSingleDocTypeController(hooks: HookRegistry): void {
  hooks.on('DocType', 'after_delete', async ({ doc, ctx }, next) => {
    if (Number(doc.issingle) === 1 && typeof doc.name === 'string') await deleteSingleRows(ctx.q, ctx.dialect, doc.name);
    await next();
  });
}
