import type { DocContext } from '../documents/doc-context.js';
import { permissionContext } from '../documents/unit-permissions.js';
import type { Doc } from '../meta/doctype.js';
import { mayUseDocument } from '../permissions/document-access.js';
import { hideUnreadableFields } from '../permissions/hide-unreadable-fields.js';
import { TemplateError } from './json-template.js';
import { buildRequest, type StoredRequest } from './webhook-body.js';
import type { WebhookDef } from './webhook-cache.js';

/** Units of work acting as a given user, for reading as a webhook's owner. */
export interface OwnerReads {
  /** Runs `work` in a read unit acting as `user`; undefined when that user is missing or disabled. */
  readAs<T>(user: string, work: (ctx: DocContext) => Promise<T>): Promise<{ readonly value: T } | undefined>;
}

/**
 * A request to send; or why none is sent, recorded as the delivery's error; or `unseen`: the
 * document is not the owner's to see (not readable, or the condition fails on what they may read),
 * and the delivery leaves no trace, since even a log naming the document would tell its readers
 * what the owner may not know.
 */
export type PreparedRequest = { readonly request: StoredRequest } | { readonly refused: string } | { readonly unseen: true };

/** What the delivery is about: the document's DocType and the event that matched. */
export interface DeliverySubject {
  readonly doctype: string;
  readonly event: string;
}

type OwnerView = { readonly doc: Doc } | { readonly refused: string } | { readonly unseen: true };

/**
 * Renders a delivery's request from the document as it was at the match, seen through the
 * webhook owner's eyes at delivery (docs/webhooks.md "Whose eyes"): unseen unless the owner may
 * read the document (role permissions with if_owner, User Permissions, `has_permission` hooks,
 * shares), with the fields above the owner's permission levels removed, and the condition holding
 * on what is left (a condition on a hidden field must not reveal it). A template that fails or
 * runs past its budget is refused with the reason.
 */
export async function prepareRequest(reads: OwnerReads, hook: WebhookDef, subject: DeliverySubject, snapshot: Doc): Promise<PreparedRequest> {
  const seen = await reads.readAs(hook.owner, (ctx) => ownerView(ctx, subject.doctype, snapshot));
  if (!seen) return { refused: `The webhook's owner ${hook.owner} is missing or disabled: nothing is sent` };
  if (!('doc' in seen.value)) return seen.value;
  const visible = seen.value.doc;
  let holds = false;
  try {
    holds = hook.condition?.matches(visible) === true;
  } catch {
    holds = false;
  }
  if (!holds) return { unseen: true };
  try {
    return { request: await buildRequest(hook, subject.doctype, subject.event, visible) };
  } catch (err) {
    if (err instanceof TemplateError) return { refused: err.message };
    throw err;
  }
}

async function ownerView(ctx: DocContext, doctype: string, doc: Doc): Promise<OwnerView> {
  const meta = ctx.metas.has(doctype) ? ctx.metas.get(doctype) : undefined;
  if (!meta) return { refused: `DocType ${doctype} no longer exists` };
  if (!(await mayUseDocument(permissionContext(ctx), meta, 'read', doc))) return { unseen: true };
  return { doc: hideUnreadableFields(ctx.principal, meta, doc, (d) => ctx.metas.get(d)) };
}
