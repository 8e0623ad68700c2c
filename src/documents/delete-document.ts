import { ValidationError } from '../errors/index.js';
import type { Meta } from '../meta/meta.js';
import type { DocContext } from './doc-context.js';
import type { DocumentGuard } from './document-guard.js';
import { documentNotFound } from './document-not-found.js';
import { findReferrers, linkExistsError } from './links/find-referrers.js';
import { dropSecretFields } from './secret-fields.js';

/**
 * Deletes a document with its child rows (docs/architecture.md "The document pipeline"): delete permission; a submitted
 * document must be cancelled first (417); a document other documents link to stays (417
 * LinkExistsError naming the first of them); then on_trash, the delete, after_delete.
 */
export async function deleteDocument(ctx: DocContext, service: DocumentGuard, meta: Meta, name: string): Promise<void> {
  await service.authorize(ctx, meta, 'delete');
  const repo = service.repo(ctx);
  const doc = await repo.load(ctx.q, meta, name, { forUpdate: true });
  if (!doc) throw documentNotFound(meta, name);
  await service.authorize(ctx, meta, 'delete', doc);
  if (doc.docstatus === 1) {
    throw new ValidationError(`${meta.name} ${name}: Submitted Record cannot be deleted. You must Cancel it first.`, {
      doctype: meta.name,
    });
  }
  const referrers = await findReferrers(ctx, meta.name, name);
  if (referrers.length > 0) throw linkExistsError(meta.name, name, referrers);
  const hookArgs = { doc, before: doc, ctx };
  await ctx.hooks.run(meta.name, 'on_trash', hookArgs);
  await repo.delete(ctx.q, meta, name);
  await dropSecretFields(ctx, meta, name);
  await ctx.hooks.run(meta.name, 'after_delete', hookArgs);
}
