import type { DocContext } from '../documents/doc-context.js';
import { omitNulls } from '../documents/omit-nulls.js';
import { PermissionError } from '../errors/index.js';
import type { MethodCall } from '../rpc/method-registry.js';
import type { CollaborationParts } from './collaboration-parts.js';
import { DOCUMENT_FOLLOW } from './doctypes/index.js';
import { assertActsFor, readableTarget, systemContext, userMayRead } from './document-columns.js';

/*
 * Follows (docs/collaboration.md "Follows"): a Document Follow per (document, user). A user follows
 * only documents they may read; the caller acts for themselves (a System Manager may act for
 * anyone). Followers hear of each change through the notification channel, when one is wired.
 */

async function followsOf(ctx: DocContext, doctype: string, name: string, user?: string): Promise<{ name: string; user: string }[]> {
  let query = ctx.dialect.builder.selectFrom('tabDocument Follow').select(['name', 'user']).where('ref_doctype', '=', doctype).where('ref_docname', '=', name);
  if (user !== undefined) query = query.where('user', '=', user);
  return ctx.q.all(query.orderBy('creation').compile());
}

/** Who follows the document (docinfo `followed_by`) and whether the caller does (`is_document_followed`). */
export async function docinfoFollows(ctx: DocContext, doctype: string, name: string): Promise<{ followed_by: string[]; is_document_followed: boolean }> {
  const users = (await followsOf(ctx, doctype, name)).map((f) => f.user);
  return { followed_by: users, is_document_followed: users.includes(ctx.principal.user) };
}

function userArg(call: MethodCall): string {
  const raw = call.args.user;
  return typeof raw === 'string' && raw !== '' ? raw : call.ctx.principal.user;
}

/** `fw.desk.form.document_follow.follow_document(doctype, doc_name, user)`: answers the Document Follow. */
async function follow(call: MethodCall, parts: CollaborationParts): Promise<unknown> {
  const { ctx } = call;
  const user = userArg(call);
  assertActsFor(ctx, user);
  const { meta, doc } = await readableTarget(ctx, parts.documents, String(call.args.doctype), String(call.args.doc_name));
  const name = String(doc.name);
  const stored = await parts.documents.load(ctx, meta.name, name);
  if (!stored || !(await userMayRead(ctx, parts.documents, user, meta, stored))) {
    throw new PermissionError('Not permitted', {
      doctype: meta.name,
      messages: [{ message: `${user} may not read ${meta.name} ${name}`, title: 'Not permitted' }],
    });
  }
  const system = await systemContext(ctx);
  const [existing] = await followsOf(ctx, meta.name, name, user);
  const followDoc = existing
    ? await parts.documents.get(system, DOCUMENT_FOLLOW, existing.name)
    : await parts.documents.insert(system, DOCUMENT_FOLLOW, { ref_doctype: meta.name, ref_docname: name, user }, { ignorePermissions: true });
  return omitNulls(followDoc);
}

/** `fw.desk.form.document_follow.unfollow_document(doctype, doc_name, user)`: 1 when a follow ended, else 0. */
async function unfollow(call: MethodCall, parts: CollaborationParts): Promise<0 | 1> {
  const { ctx } = call;
  const user = userArg(call);
  assertActsFor(ctx, user);
  const doctype = ctx.metas.get(String(call.args.doctype)).name;
  const found = await followsOf(ctx, doctype, String(call.args.doc_name), user);
  if (found.length === 0) return 0;
  const system = await systemContext(ctx);
  for (const f of found) await parts.documents.delete(system, DOCUMENT_FOLLOW, f.name);
  return 1;
}

/** Tells each follower but the one who made it of a committed-to-be change, through `parts.notify`. */
function registerFollowerNotices(parts: CollaborationParts): void {
  const notify = parts.notify;
  if (!notify) return;
  parts.hooks.on('*', 'on_update', async ({ doc, before, ctx }, next, doctype) => {
    await next();
    // A document being inserted (no `before`) has no followers yet: following needs the stored
    // document, and a deleted one took its follows with it (register-collaboration.ts). Skipping
    // the lookup spares every insert a query (docs/benchmarks.md "What a subsystem costs").
    if (before === undefined) return;
    if (doctype === DOCUMENT_FOLLOW || !ctx.metas.has(doctype) || ctx.metas.get(doctype).collaborationColumns.length === 0) return;
    for (const f of await followsOf(ctx, doctype, String(doc.name))) {
      if (f.user !== ctx.principal.user)
        await notify(ctx, { kind: 'followed_document_changed', forUser: f.user, fromUser: ctx.principal.user, doctype, name: String(doc.name) });
    }
  });
}

export function registerFollows(parts: CollaborationParts): void {
  const params = [
    { name: 'doctype', type: 'string' as const, required: true },
    { name: 'doc_name', type: 'string' as const, required: true },
    { name: 'user', type: 'string' as const },
  ];
  parts.methods.register('fw.desk.form.document_follow.follow_document', (call) => follow(call, parts), {
    methods: ['POST', 'PUT'],
    description: 'Follows a document the user may read; answers the Document Follow.',
    params,
  });
  parts.methods.register('fw.desk.form.document_follow.unfollow_document', (call) => unfollow(call, parts), {
    methods: ['POST', 'PUT', 'DELETE'],
    description: 'Stops following a document; answers 1 when a follow ended, else 0.',
    params,
  });
  registerFollowerNotices(parts);
}
