import { listQueryAfterAccess } from '../documents/lists/list-access.js';
import type { DocContext } from '../documents/doc-context.js';
import { listDocuments } from '../documents/lists/list-documents.js';
import { FrappeTypeError } from '../errors/index.js';
import type { MethodCall } from '../rpc/method-registry.js';
import type { CollaborationParts } from './collaboration-parts.js';
import { TAG, TAG_LINK } from './doctypes/index.js';
import { readableTarget, systemContext, updateColumn } from './document-columns.js';

/*
 * Tags (docs/collaboration.md "Tags"): a Tag per label, a Tag Link per tagged document, and the
 * document's `_user_tags` column (`,tag,tag`, the reference's form) kept in step, so lists filter
 * on it. Tagging needs read permission on the document; Tag and Tag Link are written for the caller.
 */

const MAX_TAG_LENGTH = 140;

/** A tag as given, trimmed; refused when empty, too long, or holding a comma (the column's separator). */
function tagArg(raw: unknown): string {
  const tag = typeof raw === 'string' ? raw.trim() : typeof raw === 'number' ? String(raw) : '';
  if (tag === '') throw new FrappeTypeError('tag must be a non-empty text');
  if (tag.length > MAX_TAG_LENGTH) throw new FrappeTypeError(`tag must be at most ${MAX_TAG_LENGTH} characters`);
  if (tag.includes(',')) throw new FrappeTypeError('tag must not contain a comma');
  return tag;
}

/** The tags of a `_user_tags` value. */
export function tagsOf(column: string | null): string[] {
  return (column ?? '')
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
}

/** A `_user_tags` value for `tags` (null when there are none). */
function columnOf(tags: readonly string[]): string | null {
  return tags.length === 0 ? null : `,${tags.join(',')}`;
}

async function tagLinks(ctx: DocContext, doctype: string, name: string, tag?: string): Promise<{ name: string; tag: string }[]> {
  let query = ctx.dialect.builder.selectFrom('tabTag Link').select(['name', 'tag']).where('document_type', '=', doctype).where('document_name', '=', name);
  if (tag !== undefined) query = query.where('tag', '=', tag);
  return ctx.q.all(query.orderBy('creation').compile());
}

/** The tags of a document as its Tag Links hold them, joined by commas (the reference's docinfo `tags`). */
export async function docinfoTags(ctx: DocContext, doctype: string, name: string): Promise<string> {
  return (await tagLinks(ctx, doctype, name)).map((l) => l.tag).join(',');
}

/** `fw.desk.doctype.tag.tag.add_tag(tag, dt, dn)`: tags the document; answers the tag. */
async function addTag(call: MethodCall, parts: CollaborationParts): Promise<string> {
  const { ctx } = call;
  const tag = tagArg(call.args.tag);
  const { meta, doc } = await readableTarget(ctx, parts.documents, String(call.args.dt), String(call.args.dn));
  const name = String(doc.name);
  const system = await systemContext(ctx);
  if ((await parts.documents.load(system, TAG, tag)) === undefined) await parts.documents.insert(system, TAG, { name: tag }, { ignorePermissions: true });
  if ((await tagLinks(ctx, meta.name, name, tag)).length === 0) {
    const titleField = meta.def.title_field;
    const title = titleField && typeof doc[titleField] === 'string' ? (doc[titleField] as string) : name;
    await parts.documents.insert(system, TAG_LINK, { document_type: meta.name, document_name: name, tag, title }, { ignorePermissions: true });
  }
  await updateColumn(ctx, parts.documents, meta, name, '_user_tags', (current) => {
    const tags = tagsOf(current);
    return columnOf(tags.includes(tag) ? tags : [...tags, tag]);
  });
  return tag;
}

/** `fw.desk.doctype.tag.tag.remove_tag(tag, dt, dn)`: takes the tag off the document (the Tag stays). */
async function removeTag(call: MethodCall, parts: CollaborationParts): Promise<null> {
  const { ctx } = call;
  const tag = tagArg(call.args.tag);
  const { meta, doc } = await readableTarget(ctx, parts.documents, String(call.args.dt), String(call.args.dn));
  const name = String(doc.name);
  const system = await systemContext(ctx);
  for (const link of await tagLinks(ctx, meta.name, name, tag)) await parts.documents.delete(system, TAG_LINK, link.name);
  await updateColumn(ctx, parts.documents, meta, name, '_user_tags', (current) => columnOf(tagsOf(current).filter((t) => t !== tag)));
  return null;
}

/**
 * `fw.desk.doctype.tag.tag.get_tags(doctype, txt)`: the tags used on documents of the DocType the
 * caller may list (through the list rules, on `_user_tags`), containing `txt`, sorted.
 */
async function getTags(call: MethodCall, parts: CollaborationParts): Promise<string[]> {
  const { ctx } = call;
  const meta = ctx.metas.get(String(call.args.doctype));
  await parts.documents.authorize(ctx, meta, 'read');
  const txt = typeof call.args.txt === 'string' ? call.args.txt.toLowerCase() : '';
  const { rows } = await listDocuments(
    ctx,
    await listQueryAfterAccess(ctx, meta.name, { fields: ['_user_tags'], filters: [['_user_tags', 'is', 'set']], limit_page_length: 0 }),
  );
  const tags = new Set<string>();
  for (const row of rows as Record<string, unknown>[])
    for (const t of tagsOf((row._user_tags as string | null) ?? null)) if (t.toLowerCase().includes(txt)) tags.add(t);
  return [...tags].sort();
}

export function registerTags(parts: CollaborationParts): void {
  const target = [
    { name: 'tag', type: 'string' as const, required: true },
    { name: 'dt', type: 'string' as const, required: true },
    { name: 'dn', type: 'string' as const, required: true },
  ];
  parts.methods.register('fw.desk.doctype.tag.tag.add_tag', (call) => addTag(call, parts), {
    methods: ['POST', 'PUT'],
    description: 'Tags a document the caller may read; answers the tag.',
    params: [...target, { name: 'color', type: 'string' }],
  });
  parts.methods.register('fw.desk.doctype.tag.tag.remove_tag', (call) => removeTag(call, parts), {
    methods: ['POST', 'PUT', 'DELETE'],
    description: 'Removes a tag from a document the caller may read.',
    params: target,
  });
  parts.methods.register('fw.desk.doctype.tag.tag.get_tags', (call) => getTags(call, parts), {
    description: 'The tags used on documents of a DocType the caller may list.',
    params: [
      { name: 'doctype', type: 'string', required: true },
      { name: 'txt', type: 'string' },
    ],
  });
}
