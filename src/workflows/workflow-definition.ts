import type { Doc } from '../meta/doctype.js';
import { ConditionError, parseCondition, type Condition } from '../webhooks/condition.js';

/** One row of a Workflow's `states` table (Workflow Document State). */
export interface WorkflowStateDef {
  readonly state: string;
  /** 0 draft, 1 submitted, 2 cancelled: what a document in this state is. */
  readonly docStatus: 0 | 1 | 2;
  /** The role that may edit a document while it is in this state. */
  readonly allowEdit: string;
  readonly updateField: string | undefined;
  readonly updateValue: string | undefined;
}

/** One row of a Workflow's `transitions` table (Workflow Transition). */
export interface WorkflowTransitionDef {
  readonly state: string;
  readonly action: string;
  readonly nextState: string;
  readonly allowed: string;
  readonly allowSelfApproval: boolean;
  /** Undefined when the row has none; a condition that does not parse never matches. */
  readonly condition: Condition | undefined;
  readonly conditionBroken: boolean;
  /** The row as stored, the shape `get_transitions` answers. */
  readonly row: Doc;
}

/** An active Workflow as the guard and the methods read it. */
export interface WorkflowDef {
  readonly name: string;
  readonly documentType: string;
  readonly stateField: string;
  /** Mail the users who may take the next step (docs/workflows.md "Workflow Actions"). */
  readonly sendEmailAlert: boolean;
  /** In table order: the first is the state a new document starts in. */
  readonly states: readonly WorkflowStateDef[];
  readonly transitions: readonly WorkflowTransitionDef[];
}

function text(v: unknown): string | undefined {
  return v === null || v === undefined || v === '' ? undefined : String(v);
}

/** Reads `doc_status` as the reference stores it: "0", "1" or "2" (empty: 0). */
export function docStatusOf(v: unknown): 0 | 1 | 2 {
  const n = Number(v ?? 0);
  return n === 1 ? 1 : n === 2 ? 2 : 0;
}

/** Parses a transition's condition, throwing ConditionError with the reason when it does not parse. */
export function transitionCondition(source: unknown): Condition | undefined {
  const s = text(source);
  return s === undefined ? undefined : parseCondition(s);
}

/** The definition of a stored Workflow document (with its child rows). */
export function workflowDefinition(doc: Doc): WorkflowDef {
  const rows = (key: string): Doc[] => (Array.isArray(doc[key]) ? (doc[key] as Doc[]) : []);
  return {
    name: String(doc.name),
    documentType: String(doc.document_type),
    stateField: text(doc.workflow_state_field) ?? 'workflow_state',
    sendEmailAlert: Number(doc.send_email_alert ?? 0) === 1,
    states: rows('states').map((r) => ({
      state: String(r.state),
      docStatus: docStatusOf(r.doc_status),
      allowEdit: String(r.allow_edit ?? ''),
      updateField: text(r.update_field),
      updateValue: text(r.update_value),
    })),
    transitions: rows('transitions').map((r) => {
      let condition: Condition | undefined;
      let conditionBroken = false;
      try {
        condition = transitionCondition(r.condition);
      } catch (err) {
        if (!(err instanceof ConditionError)) throw err;
        conditionBroken = true;
      }
      return {
        state: String(r.state),
        action: String(r.action),
        nextState: String(r.next_state),
        allowed: String(r.allowed ?? ''),
        allowSelfApproval: Number(r.allow_self_approval ?? 1) === 1,
        condition,
        conditionBroken,
        row: r,
      };
    }),
  };
}

/** The row of `state`, if the workflow has one. */
export function stateRow(workflow: WorkflowDef, state: string): WorkflowStateDef | undefined {
  return workflow.states.find((s) => s.state === state);
}
