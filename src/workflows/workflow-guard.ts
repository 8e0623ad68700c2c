import type { DocEvent, HookRegistry } from '../documents/hooks.js';
import { PermissionError, ValidationError, WorkflowPermissionError } from '../errors/index.js';
import type { PendingTransitions } from './pending-transitions.js';
import type { WorkflowCache } from './workflow-cache.js';
import { stateRow } from './workflow-definition.js';

/** The before-hooks of every write of a stored document, whatever its docstatus action. */
const BEFORE_WRITE_EVENTS: readonly DocEvent[] = ['before_save', 'before_submit', 'before_update_after_submit', 'before_cancel'];

function blank(v: unknown): boolean {
  return v === null || v === undefined || v === '';
}

/**
 * The rules a workflow sets on every write of its DocType (docs/workflows.md "What a workflow
 * refuses"): a new document starts in the first state, as a document of that state's docstatus; a
 * stored one changes state or docstatus only through apply_workflow (announced in `pending`), and is
 * edited otherwise only by the role its state allows to edit.
 */
export function registerWorkflowGuard(hooks: HookRegistry, cache: WorkflowCache, pending: PendingTransitions): void {
  hooks.on('*', 'before_insert', async ({ doc, ctx }, next, doctype) => {
    const wf = await cache.forDocType(ctx, doctype);
    if (wf) {
      const initial = wf.states[0];
      if (blank(doc[wf.stateField])) doc[wf.stateField] = initial.state;
      else if (doc[wf.stateField] !== initial.state) {
        throw new WorkflowPermissionError(`Workflow State transition not allowed from ${initial.state} to ${String(doc[wf.stateField])}`, { doctype });
      }
      if (Number(doc.docstatus ?? 0) !== initial.docStatus) {
        throw new WorkflowPermissionError(
          `${doctype} follows the workflow ${wf.name}: a new document starts in ${initial.state}; submit or cancel it through a workflow action`,
          { doctype },
        );
      }
    }
    await next();
  });

  for (const event of BEFORE_WRITE_EVENTS) {
    hooks.on('*', event, async ({ doc, before, ctx }, next, doctype) => {
      const wf = before ? await cache.forDocType(ctx, doctype) : undefined;
      if (wf && before) {
        const name = String(doc.name);
        const from = blank(before[wf.stateField]) ? wf.states[0].state : String(before[wf.stateField]);
        if (blank(doc[wf.stateField])) doc[wf.stateField] = from;
        const to = String(doc[wf.stateField]);
        const announced = pending.find(ctx.unit, doctype, name);
        if (announced) {
          if (to !== announced.nextState || Number(doc.docstatus) !== announced.docstatus) {
            throw new WorkflowPermissionError(`Workflow State transition not allowed from ${from} to ${to}`, { doctype });
          }
        } else {
          if (to !== from) throw new WorkflowPermissionError(`Workflow State transition not allowed from ${from} to ${to}`, { doctype });
          if (Number(doc.docstatus) !== Number(before.docstatus)) {
            throw new WorkflowPermissionError(`${doctype} ${name} follows the workflow ${wf.name}: submit or cancel it through a workflow action`, { doctype });
          }
          const state = stateRow(wf, from);
          if (!state) throw new ValidationError(`${from} is not a valid Workflow State. Please update your Workflow and try again.`, { doctype });
          const { principal } = ctx;
          if (!principal.isAdministrator && !principal.roles.has(state.allowEdit)) {
            throw new PermissionError(`Not permitted to edit ${doctype} ${name} in the workflow state ${from} (only ${state.allowEdit} may)`, { doctype });
          }
        }
      }
      await next();
    });
  }
}
