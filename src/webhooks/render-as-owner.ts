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

/** A request to send, or why none is sent (recorded as the delivery's error). */
export type PreparedRequest = { readonly request: StoredRequest } | { readonly refused: string };

/** What the delivery is about: the document's DocType and the event that matched. */
export interface DeliverySubject {
  readonly doctype: string;
  readonly event: string;
}

type OwnerView = { readonly doc: Doc } | { readonly refused: string };

/**
 * Renders a delivery's request from the document as it was at the match, seen through the
 * webhook owner's eyes at delivery (docs/webhooks.md "Whose eyes"): refused unless the owner may
 * read the document (role permissions with if_owner, User Permissions, `has_permission` hooks,
 * shares), with the fields above the owner's permission levels removed, and the condition holding
 * on what is left (a condition on a hidden field must not reveal it). A template that fails or
 * runs past its budget is refused with the reason.
 */
export async function prepareRequest(reads: OwnerReads, hook: WebhookDef, subject: DeliverySubject, snapshot: Doc): Promise<PreparedRequest> {
  const seen = await reads.readAs(hook.owner, (ctx) => ownerView(ctx, subject.doctype, snapshot));
  if (!seen) return { refused: `The webhook's owner ${hook.owner} is missing or disabled: nothing is sent` };
  if ('refused' in seen.value) return seen.value;
  const visible = seen.value.doc;
  let holds = false;
  try {
    holds = hook.condition?.matches(visible) === true;
  } catch {
    holds = false;
  }
  if (!holds) return { refused: `The condition does not hold on the fields the webhook's owner ${hook.owner} may read: nothing is sent` };
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
  const user = ctx.principal.user;
  if (!(await mayUseDocument(permissionContext(ctx), meta, 'read', doc))) {
    return { refused: `The webhook's owner ${user} may not read ${doctype} ${String(doc.name)}: nothing is sent` };
  }
  return { doc: hideUnreadableFields(ctx.principal, meta, doc, (d) => ctx.metas.get(d)) };
}
