import type { DocContext } from '../documents/doc-context.js';
import type { DocumentService } from '../documents/document-service.js';
import { DataError, ValidationError, WorkflowStateError, WorkflowTransitionError } from '../errors/index.js';
import type { Doc } from '../meta/doctype.js';
import { ConditionError } from '../webhooks/condition.js';
import type { PendingTransitions } from './pending-transitions.js';
import type { WorkflowCache } from './workflow-cache.js';
import { stateRow, type WorkflowDef, type WorkflowTransitionDef } from './workflow-definition.js';

/** What applying and listing transitions need from the workflow subsystem. */
export interface WorkflowRuntime {
  readonly documents: DocumentService;
  readonly cache: WorkflowCache;
  readonly pending: PendingTransitions;
}

/** The `doc` argument as the reference takes it: a document object, or its JSON text; doctype and name are what count. */
export function documentRef(value: unknown): { doctype: string; name: string | undefined } {
  let doc = value;
  if (typeof doc === 'string') {
    try {
      doc = JSON.parse(doc);
    } catch {
      throw new DataError('doc must be a document: a JSON object with doctype and name');
    }
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new DataError('doc must be a document: a JSON object with doctype and name');
  const { doctype, name } = doc as Doc;
  if (typeof doctype !== 'string' || doctype === '') throw new DataError('doc must name its doctype');
  return { doctype, name: typeof name === 'string' && name !== '' ? name : undefined };
}

/** The active workflow of `doctype`, or a WorkflowStateError. */
export async function requireWorkflow(ctx: DocContext, rt: WorkflowRuntime, doctype: string): Promise<WorkflowDef> {
  const wf = await rt.cache.forDocType(ctx, doctype);
  if (!wf) throw new WorkflowStateError(`${doctype} has no active Workflow`, { doctype });
  return wf;
}

/** True when the transition's condition holds for `doc` (no condition: always; one that does not parse: never). */
export function conditionHolds(t: WorkflowTransitionDef, doc: Doc): boolean {
  if (t.conditionBroken) return false;
  if (!t.condition) return true;
  try {
    return t.condition.matches(doc);
  } catch (err) {
    if (err instanceof ConditionError) return false;
    throw err;
  }
}

/**
 * The transitions the principal may take on the stored document `doc` (reference get_transitions):
 * from its current state, allowed to one of the principal's roles, whose condition holds.
 */
export function availableTransitions(ctx: DocContext, wf: WorkflowDef, doc: Doc): WorkflowTransitionDef[] {
  const current = doc[wf.stateField];
  if (current === null || current === undefined || current === '') {
    throw new WorkflowStateError('Workflow State not set', { doctype: wf.documentType });
  }
  const { principal } = ctx;
  return wf.transitions.filter((t) => t.state === current && (principal.isAdministrator || principal.roles.has(t.allowed)) && conditionHolds(t, doc));
}

/** Reads the stored document with its read permission checked; the full stored form is what conditions see. */
export async function loadForWorkflow(ctx: DocContext, rt: WorkflowRuntime, doctype: string, name: string): Promise<Doc> {
  await rt.documents.get(ctx, doctype, name);
  return (await rt.documents.load(ctx, doctype, name)) as Doc;
}

/** The reference's approval rule: the owner may take a transition only when it allows self approval. */
export function mayApprove(ctx: DocContext, doc: Doc, t: WorkflowTransitionDef): boolean {
  return ctx.principal.isAdministrator || t.allowSelfApproval || ctx.principal.user !== doc.owner;
}

/**
 * Takes `action` on the document (reference apply_workflow; docs/workflows.md "Taking an action"):
 * sets the next state and the state's update field, then saves, submits or cancels the document
 * as the next state's doc_status says, in the caller's transaction, and records a "Workflow"
 * Comment. Returns the document as saved.
 */
export async function applyWorkflow(ctx: DocContext, rt: WorkflowRuntime, ref: { doctype: string; name: string | undefined }, action: string): Promise<Doc> {
  const { doctype } = ref;
  if (ref.name === undefined) throw new DataError('doc must name a saved document');
  const name = ref.name;
  const wf = await requireWorkflow(ctx, rt, doctype);
  const doc = await loadForWorkflow(ctx, rt, doctype, name);
  const transition = availableTransitions(ctx, wf, doc).findLast((t) => t.action === action);
  if (!transition) throw new WorkflowTransitionError('Not a valid Workflow Action', { doctype });
  if (!mayApprove(ctx, doc, transition)) throw new ValidationError('Self approval is not allowed', { doctype });
  const next = stateRow(wf, transition.nextState);
  if (!next) throw new WorkflowTransitionError(`${transition.nextState} is not a state of the workflow ${wf.name}`, { doctype });

  const patch: Doc = { [wf.stateField]: next.state };
  if (next.updateField !== undefined) patch[next.updateField] = next.updateValue ?? null;
  const from = Number(doc.docstatus);
  const legal = (from === 0 && next.docStatus <= 1) || (from === 1 && next.docStatus >= 1);
  if (!legal) throw new WorkflowTransitionError(`Illegal Document Status for ${next.state}`, { doctype });
  if (next.docStatus !== from) patch.docstatus = next.docStatus;

  const saved = await rt.pending.during(ctx.unit, doctype, name, { nextState: next.state, docstatus: next.docStatus }, () =>
    rt.documents.update(ctx, doctype, name, patch),
  );
  await rt.documents.insert(
    ctx,
    'Comment',
    { comment_type: 'Workflow', reference_doctype: doctype, reference_name: name, content: next.state },
    { ignorePermissions: true },
  );
  return saved;
}
