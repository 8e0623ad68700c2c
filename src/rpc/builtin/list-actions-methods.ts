import { listQueryAfterAccess } from '../../documents/lists/list-access.js';
import type { DocContext } from '../../documents/doc-context.js';
import { listDocuments } from '../../documents/lists/list-documents.js';
import { withSavepoint } from '../../documents/savepoint.js';
import { FrappeTypeError, FwError, ValidationError } from '../../errors/index.js';
import type { Doc } from '../../meta/doctype.js';
import type { MethodCall, MethodRegistry } from '../method-registry.js';
import { pick } from './client-args.js';

/*
 * What the reference's list view does to many documents at once (docs/api.md "List actions"): the
 * dict-shaped list, deleting the checked rows, and submitting, cancelling or updating them. Each
 * document is written in its own savepoint, so a refused one leaves no trace and the others stay.
 */

/** The most documents one call may act on (the reference's own ceiling). */
export const LIST_ACTION_LIMIT = 500;

/** `fw.desk.reportview.get_list`: the list as dicts, with the desk's `start` / `page_length` too. */
async function getList({ ctx, args }: MethodCall): Promise<unknown[]> {
  const raw = pick(args, ['fields', 'filters', 'or_filters', 'order_by', 'group_by', 'parent', 'limit_start', 'limit_page_length']);
  if (args.start !== undefined && raw.limit_start === undefined) raw.limit_start = args.start;
  if (args.page_length !== undefined && raw.limit_page_length === undefined) raw.limit_page_length = args.page_length;
  return (await listDocuments(ctx, await listQueryAfterAccess(ctx, String(args.doctype), { ...raw, as_dict: true }))).rows;
}

/** A JSON list of document names (text or native), at most LIST_ACTION_LIMIT. */
function nameList(raw: unknown, what: string): string[] {
  let value = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch {
      throw new FrappeTypeError(`${what} must be a JSON list of names`);
    }
  }
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string' || typeof v === 'number'))
    throw new FrappeTypeError(`${what} must be a list of names`);
  if (value.length > LIST_ACTION_LIMIT) throw new ValidationError(`Bulk operations only support up to ${LIST_ACTION_LIMIT} documents (got ${value.length})`);
  return value.map(String);
}

/**
 * Runs `work` on each name in its own savepoint; refusals (4xx) are collected with their reason
 * as a message, anything else fails the call. Answers the names that failed, in order.
 */
async function eachInSavepoint(ctx: DocContext, names: readonly string[], work: (name: string) => Promise<void>): Promise<string[]> {
  const failed: string[] = [];
  for (const name of names) {
    try {
      await withSavepoint(ctx.q, () => work(name), ctx.unit);
    } catch (err) {
      if (!(err instanceof FwError) || err.status >= 500) throw err;
      failed.push(name);
      ctx.messages.add({ message: `${name}: ${err.message}`, title: err.excType, indicator: 'red' });
    }
  }
  return failed;
}

/** `fw.desk.reportview.delete_items(items, doctype)`: deletes each; answers the names that could not be deleted. */
async function deleteItems({ ctx, services, args }: MethodCall): Promise<string[]> {
  const doctype = ctx.metas.get(String(args.doctype)).name;
  return eachInSavepoint(ctx, nameList(args.items, 'items'), (name) => services.documents.delete(ctx, doctype, name));
}

const ACTIONS = ['submit', 'cancel', 'update'] as const;

/**
 * `fw.desk.doctype.bulk_update.bulk_update.submit_cancel_or_update_docs(doctype, docnames, action, data)`:
 * submits drafts (with `data` saved along), cancels submitted documents, or saves `data` into
 * documents that are not cancelled; a document in another state, or refused, is a failure. Answers
 * the names that failed (each with its reason as a message).
 */
async function submitCancelOrUpdate({ ctx, services, args }: MethodCall): Promise<string[]> {
  const doctype = ctx.metas.get(String(args.doctype)).name;
  const action = args.action === undefined ? 'submit' : String(args.action);
  if (!(ACTIONS as readonly string[]).includes(action)) throw new FrappeTypeError(`action must be one of ${ACTIONS.join(', ')}`);
  let data: Doc = {};
  if (args.data !== undefined && args.data !== null && args.data !== '') {
    if (typeof args.data !== 'object' || Array.isArray(args.data)) throw new FrappeTypeError('data must be an object of field values');
    data = args.data as Doc;
  }
  return eachInSavepoint(ctx, nameList(args.docnames, 'docnames'), async (name) => {
    const stored = await services.documents.get(ctx, doctype, name);
    const docstatus = Number(stored.docstatus ?? 0);
    if (action === 'submit' && docstatus === 0) await services.documents.submit(ctx, doctype, name, data);
    else if (action === 'cancel' && docstatus === 1) await services.documents.cancel(ctx, doctype, name);
    else if (action === 'update' && docstatus !== 2) await services.documents.update(ctx, doctype, name, data);
    else throw new ValidationError(`Cannot ${action} ${doctype} ${name} in docstatus ${docstatus}`, { doctype });
  });
}

export function registerListActionMethods(methods: MethodRegistry): void {
  methods.register('fw.desk.reportview.get_list', getList, {
    description: 'A list of documents as objects (what frappe.db.get_list calls).',
    params: [
      { name: 'doctype', type: 'string', required: true },
      { name: 'fields', type: 'json' },
      { name: 'filters', type: 'json' },
      { name: 'or_filters', type: 'json' },
      { name: 'order_by', type: 'string' },
      { name: 'group_by', type: 'string' },
      { name: 'parent', type: 'string' },
      { name: 'start', type: 'any' },
      { name: 'page_length', type: 'any' },
      { name: 'limit_start', type: 'any' },
      { name: 'limit_page_length', type: 'any' },
    ],
  });
  methods.register('fw.desk.reportview.delete_items', deleteItems, {
    methods: ['POST', 'PUT', 'DELETE'],
    description: 'Deletes the listed documents one by one; answers the names that could not be deleted.',
    params: [
      { name: 'items', type: 'json', required: true },
      { name: 'doctype', type: 'string', required: true },
    ],
  });
  methods.register('fw.desk.doctype.bulk_update.bulk_update.submit_cancel_or_update_docs', submitCancelOrUpdate, {
    methods: ['POST', 'PUT'],
    description: 'Submits, cancels or updates the listed documents one by one; answers the names that failed.',
    params: [
      { name: 'doctype', type: 'string', required: true },
      { name: 'docnames', type: 'json', required: true },
      { name: 'action', type: 'string' },
      { name: 'data', type: 'json' },
    ],
  });
}
