import { COMMENT_DOCTYPE } from '../../controllers/comment-controller.js';
import type { Doc } from '../../meta/doctype.js';
import type { DocMethodCall } from '../doc-methods.js';
import type { MethodRegistry } from '../method-registry.js';

/** A keyword argument as text, or undefined when absent or not a scalar. */
function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/**
 * The document method `add_comment` (reference `Document.add_comment`): a Comment about the
 * document, `comment_type` Comment unless given, holding `text` (else the type's name), written by
 * the caller unless `comment_email` / `comment_by` say otherwise. The route already checked the
 * caller's right on the document (write, as for every POST document method), so the Comment is
 * inserted without a second check. Answers the Comment.
 */
async function addComment({ ctx, services, doc, args }: DocMethodCall): Promise<Doc> {
  const commentType = text(args.comment_type) ?? 'Comment';
  const comment = await services.documents.insert(
    ctx,
    COMMENT_DOCTYPE,
    {
      comment_type: commentType,
      reference_doctype: doc.doctype,
      reference_name: doc.name,
      content: text(args.text) ?? commentType,
      comment_email: text(args.comment_email) ?? ctx.principal.user,
      comment_by: text(args.comment_by) ?? ctx.principal.user,
    },
    { ignorePermissions: true },
  );
  // Answered with its null fields, as the reference's desk method answers it.
  return comment;
}

/** Comments on documents: the `add_comment` method of every DocType. */
export function registerCommentMethods(methods: MethodRegistry): void {
  methods.registerDocMethod('*', 'add_comment', addComment, {
    methods: ['POST'],
    description: "Adds a Comment to the document's timeline (`text`, `comment_type`, `comment_email`, `comment_by`).",
  });
}
