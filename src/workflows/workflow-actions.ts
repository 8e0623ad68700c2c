import { ADMINISTRATOR_USER, loadPrincipal, withUserPermissions } from '../auth/principal.js';
import type { DocContext } from '../documents/doc-context.js';
import type { DocumentService } from '../documents/document-service.js';
import type { HookRegistry } from '../documents/hooks.js';
import { loadUserPermissions } from '../documents/permission-rows.js';
import type { Doc } from '../meta/doctype.js';
import type { Condition } from '../query/list-query.js';
import type { Row } from '../storage/database.js';
import { conditionHolds } from './apply-workflow.js';
import { WORKFLOW_ACTION, WORKFLOW_ACTION_PERMITTED_ROLE } from './doctypes/index.js';
import type { WorkflowCache } from './workflow-cache.js';
import type { WorkflowTransitionDef } from './workflow-definition.js';

/*
 * Workflow Actions (docs/workflows.md "Workflow Actions"): each time a document enters a state, the
 * open action of its previous state is completed and a new one names the roles that may take a
 * transition out of the new state; with the Workflow's Send Email Alert, each user who may take one
 * is mailed. The write that moves the document only records that it did, as one row of an
 * unindexed outbox in its own transaction (so a refused or rolled-back step leaves nothing, and a
 * committed one is never lost); a batch right after the commit turns the rows of many writes into
 * actions and mails in one transaction, in the order they were written.
 */

/** A mail to one user about a document waiting for them. */
export interface WorkflowActionMail {
  readonly recipient: string;
  readonly subject: string;
  readonly html: string;
  readonly doctype: string;
  readonly name: string;
}

/** Queues a mail in the unit (the site wires it to the mail queue). */
export type WorkflowActionMailer = (ctx: DocContext, mail: WorkflowActionMail) => Promise<void>;

/** Where the mail's link leads, for a document. */
export type DocumentLink = (doctype: string, name: string) => string;

/** Non System Managers list at most this many actions (the newest): the list condition names them. */
export const LISTED_ACTIONS = 1000;

/** The part of a transition a mail needs: who may take it, and how it is called. */
type MailedTransition = Pick<WorkflowTransitionDef, 'allowed' | 'allowSelfApproval' | 'action'>;

/** What a write recorded about a document's actions, applied by the batch after its commit. */
export type WorkflowActionEntry =
  | {
      readonly kind: 'enter';
      readonly doctype: string;
      readonly name: string;
      readonly state: string;
      /** Who moved the document, and their roles then: the previous open action is completed by them. */
      readonly user: string;
      readonly roles: readonly string[];
      readonly completes: boolean;
      /** The roles of the new open action; absent when no transition leaves the state (nothing opens). */
      readonly open?: readonly string[];
      /** With Send Email Alert: the document as saved and the transitions out of its state. */
      readonly mail?: { readonly doc: Doc; readonly transitions: readonly MailedTransition[] };
    }
  | { readonly kind: 'delete'; readonly doctype: string; readonly name: string };

const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Marks the document's open actions Completed by `user`. */
async function completeOpen(ctx: DocContext, doctype: string, name: string, user: string, roles: ReadonlySet<string>): Promise<void> {
  const b = ctx.dialect.builder;
  const open = await ctx.q.all<Row>(
    b
      .selectFrom(`tab${WORKFLOW_ACTION}`)
      .select(['name'])
      .where('reference_doctype', '=', doctype)
      .where('reference_name', '=', name)
      .where('status', '=', 'Open')
      .compile(),
  );
  for (const { name: action } of open) {
    const permitted = await ctx.q.all<Row>(
      b.selectFrom(`tab${WORKFLOW_ACTION_PERMITTED_ROLE}`).select(['role']).where('parent', '=', String(action)).orderBy('idx').compile(),
    );
    const role = permitted.map((r) => String(r.role)).find((r) => roles.has(r)) ?? null;
    await ctx.q.run(
      b
        .updateTable(`tab${WORKFLOW_ACTION}`)
        .set({ status: 'Completed', completed_by: user, completed_by_role: role })
        .where('name', '=', String(action))
        .compile(),
    );
  }
}

/** The enabled users holding one of `roles` who may read `doc` and take one of `transitions` on it (self approval). */
async function usersToMail(ctx: DocContext, documents: DocumentService, doctype: string, doc: Doc, transitions: readonly MailedTransition[]) {
  const roles = [...new Set(transitions.map((t) => t.allowed))];
  const b = ctx.dialect.builder;
  const rows = await ctx.q.all<Row>(
    b
      .selectFrom('tabHas Role as r')
      .innerJoin('tabUser as u', 'u.name', 'r.parent')
      .select(['u.name as name', 'u.email as email'])
      .distinct()
      .where('r.parenttype', '=', 'User')
      .where('r.role', 'in', roles)
      .where('u.enabled', '=', 1)
      .where('u.name', 'not in', ['Administrator', 'Guest'])
      .orderBy('u.name')
      .compile(),
  );
  const meta = ctx.metas.get(doctype);
  const out: { user: string; email: string; actions: string[] }[] = [];
  for (const row of rows) {
    const user = String(row.name);
    const loaded = await loadPrincipal(ctx.q, ctx.dialect, user);
    if (!loaded || !row.email) continue;
    const principal = withUserPermissions(loaded, await loadUserPermissions(ctx.q, ctx.dialect, user));
    const actions = transitions.filter((t) => principal.roles.has(t.allowed) && (t.allowSelfApproval || user !== doc.owner)).map((t) => t.action);
    if (actions.length === 0) continue;
    if (!(await documents.can({ ...ctx, principal }, meta, 'read', doc))) continue;
    out.push({ user, email: String(row.email), actions: [...new Set(actions)] });
  }
  return out;
}

/** Mails the users who may take one of the transitions out of the document's new state. */
async function mailAction(ctx: DocContext, deps: WorkflowActionDeps, entry: WorkflowActionEntry & { kind: 'enter' }): Promise<void> {
  const { doctype, name, state, mail } = entry;
  if (!mail || !deps.mail || !ctx.metas.has(doctype)) return;
  const link = deps.link(doctype, name);
  for (const target of await usersToMail(ctx, deps.documents, doctype, mail.doc, mail.transitions)) {
    const html =
      `<p>${escapeHtml(doctype)} ${escapeHtml(name)} is now <b>${escapeHtml(state)}</b> and waits for you.</p>` +
      `<p>You may: ${target.actions.map(escapeHtml).join(', ')}.</p>` +
      `<p><a href="${escapeHtml(link)}">Open ${escapeHtml(name)}</a></p>`;
    await deps.mail(ctx, { recipient: target.email, subject: `${doctype} ${name}: ${state}, waiting for you`, html, doctype, name });
  }
}

/** Deletes the document's actions and their permitted roles. */
async function deleteActions(ctx: DocContext, doctype: string, name: string): Promise<void> {
  const b = ctx.dialect.builder;
  const actions = b.selectFrom(`tab${WORKFLOW_ACTION}`).select('name').where('reference_doctype', '=', doctype).where('reference_name', '=', name);
  await ctx.q.run(b.deleteFrom(`tab${WORKFLOW_ACTION_PERMITTED_ROLE}`).where('parent', 'in', actions).compile());
  await ctx.q.run(b.deleteFrom(`tab${WORKFLOW_ACTION}`).where('reference_doctype', '=', doctype).where('reference_name', '=', name).compile());
}

/**
 * Applies a batch of entries in the order they were written, as the Administrator (the outbox's
 * batch transaction): completes, opens, mails and deletes.
 */
export async function applyWorkflowActions(ctx: DocContext, deps: WorkflowActionDeps, entries: readonly WorkflowActionEntry[]): Promise<void> {
  if (!ctx.metas.has(WORKFLOW_ACTION)) return;
  for (const entry of entries) {
    if (entry.kind === 'delete') {
      await deleteActions(ctx, entry.doctype, entry.name);
      continue;
    }
    if (entry.completes) await completeOpen(ctx, entry.doctype, entry.name, entry.user, new Set(entry.roles));
    if (!entry.open) continue;
    // A record of fw's, as the Administrator's: written for every insert and transition of the
    // DocType, so without the document pipeline (DocumentService.insertRecord); its values come from
    // the saved document and the active Workflow, checked when they were saved.
    await deps.documents.insertRecord(
      ctx,
      WORKFLOW_ACTION,
      {
        status: 'Open',
        reference_doctype: entry.doctype,
        reference_name: entry.name,
        workflow_state: entry.state,
        permitted_roles: entry.open.map((role) => ({ role })),
      },
      ADMINISTRATOR_USER,
    );
    await mailAction(ctx, deps, entry);
  }
}

/** What Workflow Actions need. */
export interface WorkflowActionDeps {
  readonly documents: DocumentService;
  readonly cache: WorkflowCache;
  readonly mail?: WorkflowActionMailer;
  readonly link: DocumentLink;
}

/** Where the entries go: the outbox, written in the document's transaction. */
export interface WorkflowActionRecorder {
  write(ctx: DocContext, entry: WorkflowActionEntry): Promise<unknown>;
}

/** Keeps the Workflow Actions of every document under an active workflow, and their read rules. */
export function registerWorkflowActions(hooks: HookRegistry, deps: WorkflowActionDeps, outbox: WorkflowActionRecorder): void {
  hooks.on('*', 'on_change', async ({ doc, before, ctx }, next, doctype) => {
    await next();
    if (doctype === WORKFLOW_ACTION) return;
    const wf = await deps.cache.forDocType(ctx, doctype);
    if (!wf) return;
    const state = doc[wf.stateField];
    if (state === null || state === undefined || state === '') return;
    if (before && before[wf.stateField] === state) return;
    const transitions = wf.transitions.filter((t) => t.state === state && conditionHolds(t, doc));
    // Nothing to complete and nothing to open: the write pays nothing.
    if (!before && transitions.length === 0) return;
    const mailed = wf.sendEmailAlert && deps.mail !== undefined && transitions.length > 0;
    await outbox.write(ctx, {
      kind: 'enter',
      doctype,
      name: String(doc.name),
      state: String(state),
      user: ctx.principal.user,
      roles: before ? [...ctx.principal.roles] : [],
      completes: before !== undefined,
      // Written as JSON at once (outbox.write), so later changes to `doc` in the unit do not reach it.
      ...(transitions.length > 0 ? { open: [...new Set(transitions.map((t) => t.allowed).filter((r) => r !== ''))] } : {}),
      ...(mailed
        ? { mail: { doc, transitions: transitions.map((t) => ({ allowed: t.allowed, allowSelfApproval: t.allowSelfApproval, action: t.action })) } }
        : {}),
    });
  });

  hooks.on('*', 'after_delete', async ({ doc, ctx }, next, doctype) => {
    await next();
    if (doctype === WORKFLOW_ACTION || !ctx.metas.has(WORKFLOW_ACTION) || !(await deps.cache.forDocType(ctx, doctype))) return;
    await outbox.write(ctx, { kind: 'delete', doctype, name: String(doc.name) });
  });

  const seesAll = (principal: DocContext['principal']) => principal.isAdministrator || principal.roles.has('System Manager');

  hooks.permissions.onHasPermission(WORKFLOW_ACTION, async ({ doc, principal, ctx }) => {
    if (seesAll(principal)) return true;
    const rows = await ctx.q.all<Row>(
      ctx.dialect.builder
        .selectFrom(`tab${WORKFLOW_ACTION_PERMITTED_ROLE}`)
        .select(['role'])
        .where('parent', '=', String(doc.name))
        .where('parenttype', '=', WORKFLOW_ACTION)
        .compile(),
    );
    return rows.some((r) => principal.roles.has(String(r.role)));
  });

  hooks.permissions.onQueryConditions(WORKFLOW_ACTION, async ({ principal, ctx }): Promise<Condition | undefined> => {
    if (seesAll(principal)) return undefined;
    const b = ctx.dialect.builder;
    const rows = await ctx.q.all<Row>(
      b
        .selectFrom(`tab${WORKFLOW_ACTION_PERMITTED_ROLE} as r`)
        .innerJoin(`tab${WORKFLOW_ACTION} as a`, 'a.name', 'r.parent')
        .select(['a.name as name', 'a.creation as creation'])
        .distinct()
        .where('r.parenttype', '=', WORKFLOW_ACTION)
        .where('r.role', 'in', [...principal.roles])
        .orderBy('a.creation', 'desc')
        .limit(LISTED_ACTIONS)
        .compile(),
    );
    return { field: { field: 'name' }, op: 'in', value: rows.map((r) => String(r.name)) };
  });
}
