import type { DocContext } from '../documents/doc-context.js';
import { DocumentRepository } from '../documents/document-repository.js';
import type { Doc } from '../meta/doctype.js';

/** The File DocType's name. */
export const FILE_DOCTYPE = 'File';

/** The File documents whose file_url is `url` (no permission filter: callers decide what to show). */
export async function filesWithUrl(ctx: DocContext, url: string): Promise<Doc[]> {
  const meta = ctx.metas.get(FILE_DOCTYPE);
  const query = ctx.dialect.builder.selectFrom(meta.tableName).selectAll().where('file_url', '=', url).orderBy('creation').orderBy('name');
  const rows = await ctx.q.all(query.compile());
  const repo = new DocumentRepository(ctx.dialect, (d) => ctx.metas.get(d));
  return rows.map((row) => repo.toDoc(meta, row));
}

/** How many File documents use `url`. */
export async function countFilesWithUrl(ctx: DocContext, url: string): Promise<number> {
  const meta = ctx.metas.get(FILE_DOCTYPE);
  const query = ctx.dialect.builder
    .selectFrom(meta.tableName)
    .select((eb) => eb.fn.countAll().as('n'))
    .where('file_url', '=', url);
  const [row] = await ctx.q.all<{ n: number | string }>(query.compile());
  return Number(row?.n ?? 0);
}

/**
 * The file_urls of earlier Files of `owner` with this content and privacy (deduplication
 * candidates). Only the owner's own: reusing another user's stored file would answer with a URL
 * that names their File (docs/security.md, "Files").
 */
export async function fileUrlsWithContent(ctx: DocContext, contentHash: string, isPrivate: boolean, owner: string): Promise<string[]> {
  const meta = ctx.metas.get(FILE_DOCTYPE);
  const query = ctx.dialect.builder
    .selectFrom(meta.tableName)
    .select('file_url')
    .distinct()
    .where('content_hash', '=', contentHash)
    .where('is_private', '=', isPrivate ? 1 : 0)
    .where('owner', '=', owner)
    .where('file_url', 'is not', null)
    .orderBy('file_url')
    .limit(10);
  const rows = await ctx.q.all<{ file_url: string }>(query.compile());
  return rows.map((r) => r.file_url);
}
