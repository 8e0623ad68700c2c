import { FrappeTypeError } from '../errors/index.js';
import type { MethodCall } from '../rpc/method-registry.js';
import type { CollaborationParts } from './collaboration-parts.js';
import { parseUserList, readableTarget, updateColumn } from './document-columns.js';

/**
 * `fw.desk.like.toggle_like(doctype, name, add)`: adds the caller to the document's `_liked_by`
 * (a JSON list) with `add` "Yes", removes them with "No" (docs/collaboration.md "Likes"). The
 * caller must be able to read the document. Answers nothing, as the reference.
 */
async function toggleLike(call: MethodCall, parts: CollaborationParts): Promise<null> {
  const { ctx } = call;
  const add = call.args.add === undefined ? 'Yes' : String(call.args.add);
  if (add !== 'Yes' && add !== 'No') throw new FrappeTypeError('add must be "Yes" or "No"');
  const { meta, doc } = await readableTarget(ctx, parts.documents, String(call.args.doctype), String(call.args.name));
  const user = ctx.principal.user;
  await updateColumn(ctx, parts.documents, meta, String(doc.name), '_liked_by', (current) => {
    const users = parseUserList(current).filter((u) => u !== user);
    if (add === 'Yes') users.push(user);
    return JSON.stringify(users);
  });
  return null;
}

export function registerLikes(parts: CollaborationParts): void {
  parts.methods.register('fw.desk.like.toggle_like', (call) => toggleLike(call, parts), {
    methods: ['POST', 'PUT'],
    description: 'Likes ("Yes") or unlikes ("No") a document the caller may read.',
    params: [
      { name: 'doctype', type: 'string', required: true },
      { name: 'name', type: 'string', required: true },
      { name: 'add', type: 'string' },
    ],
  });
}
