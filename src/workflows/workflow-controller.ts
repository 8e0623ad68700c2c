import type { DocContext } from '../documents/doc-context.js';
import type { DocumentService } from '../documents/document-service.js';
import type { HookRegistry } from '../documents/hooks.js';
import { ValidationError } from '../errors/index.js';
import type { Doc } from '../meta/doctype.js';
import type { Meta } from '../meta/meta.js';
import { ConditionError } from '../webhooks/condition.js';
import { WORKFLOW, WORKFLOW_ACTION_MASTER, WORKFLOW_DOCTYPE_JSON, WORKFLOW_STATE } from './doctypes/index.js';
import { transitionCondition, workflowDefinition, type WorkflowDef } from './workflow-definition.js';

const WORKFLOW_DOCTYPES: ReadonlySet<string> = new Set(WORKFLOW_DOCTYPE_JSON.map((d) => String((d as { name: string }).name)));

function fail(message: string): never {
  throw new ValidationError(message, { doctype: WORKFLOW });
}

/** The DocType a Workflow governs: a top-level, non-Single DocType other than the workflow ones. */
function governedMeta(ctx: DocContext, doctype: string): Meta {
  const meta = ctx.metas.has(doctype) ? ctx.metas.get(doctype) : undefined;
  if (!meta) fail(`DocType ${doctype} does not exist`);
  if (meta.isChild) fail(`${doctype} is a child table: a workflow governs its parent DocType`);
  if (meta.isSingle) fail(`${doctype} is a Single: workflows govern DocTypes with many documents`);
  if (WORKFLOW_DOCTYPES.has(doctype)) fail(`Workflows cannot be set on ${doctype}`);
  return meta;
}

/** A field of `meta` that stores a value, or a refusal naming it. */
function valueField(meta: Meta, fieldname: string, what: string): { allowOnSubmit: boolean } {
  const field = meta.field(fieldname);
  if (!field || field.column === undefined) fail(`${what} ${fieldname} is not a field of ${meta.name}`);
  return { allowOnSubmit: field.def.allow_on_submit === 1 };
}

/**
 * The checks the reference makes on save (every transition between known states; no state but
 * Draft on a DocType that is not submittable; never from Cancelled, from Submitted back to Draft,
 * or from Draft to Cancelled) plus fw's own: the state field and update fields exist, conditions
 * parse, and the fields a submitted document's transitions change may change after submit.
 */
export function checkWorkflow(meta: Meta, wf: WorkflowDef): void {
  const stateField = valueField(meta, wf.stateField, 'Workflow State Field');
  if (wf.states.length === 0) fail('A workflow needs at least one state');
  const seen = new Set<string>();
  for (const s of wf.states) {
    if (seen.has(s.state)) fail(`State ${s.state} is listed twice`);
    seen.add(s.state);
    if (!meta.isSubmittable && s.docStatus !== 0) {
      fail(
        `Workflow State '${s.state}' has Document Status ${s.docStatus}, but DocType '${meta.name}' is not submittable. Only Document Status 0 (Draft) is allowed for non-submittable DocTypes.`,
      );
    }
    if (s.updateField !== undefined) valueField(meta, s.updateField, 'Update Field');
  }
  const byName = new Map(wf.states.map((s) => [s.state, s]));
  wf.transitions.forEach((t, i) => {
    const row = i + 1;
    const from = byName.get(t.state) ?? fail(`${t.state} not a valid State (transition row ${row})`);
    const to = byName.get(t.nextState) ?? fail(`${t.nextState} not a valid State (transition row ${row})`);
    if (from.docStatus === 2) fail(`Cannot change state of Cancelled Document. Transition row ${row}`);
    if (from.docStatus === 1 && to.docStatus === 0) fail(`Submitted Document cannot be converted back to draft. Transition row ${row}`);
    if (from.docStatus === 0 && to.docStatus === 2) fail(`Cannot cancel before submitting. See Transition ${row}`);
    try {
      transitionCondition(t.row.condition);
    } catch (err) {
      if (err instanceof ConditionError) fail(`Invalid condition in transition row ${row}: ${err.message}`);
      throw err;
    }
    // A submitted document keeps every field without allow_on_submit (docs/workflows.md "Defining a workflow").
    if (from.docStatus === 1) {
      if (!stateField.allowOnSubmit)
        fail(`Workflow State Field ${wf.stateField} must allow changes on submit (Allow on Submit): transition row ${row} leaves a submitted state`);
      if (to.updateField !== undefined && !valueField(meta, to.updateField, 'Update Field').allowOnSubmit) {
        fail(`Update Field ${to.updateField} of state ${to.state} must allow changes on submit (Allow on Submit)`);
      }
    }
  });
}

/** Creates the Workflow State and Workflow Action Master records a workflow names and that do not exist yet. */
async function createMissingMasters(ctx: DocContext, documents: DocumentService, doc: Doc): Promise<void> {
  const rows = (key: string): Doc[] => (Array.isArray(doc[key]) ? (doc[key] as Doc[]) : []);
  const wanted: Array<[string, string, string]> = [];
  for (const s of rows('states')) if (s.state) wanted.push([WORKFLOW_STATE, 'workflow_state_name', String(s.state)]);
  for (const t of rows('transitions')) {
    if (t.state) wanted.push([WORKFLOW_STATE, 'workflow_state_name', String(t.state)]);
    if (t.next_state) wanted.push([WORKFLOW_STATE, 'workflow_state_name', String(t.next_state)]);
    if (t.action) wanted.push([WORKFLOW_ACTION_MASTER, 'workflow_action_name', String(t.action)]);
  }
  const done = new Set<string>();
  for (const [doctype, field, name] of wanted) {
    const key = `${doctype}\u0000${name}`;
    if (done.has(key)) continue;
    done.add(key);
    if (!(await documents.load(ctx, doctype, name))) await documents.insert(ctx, doctype, { [field]: name }, { ignorePermissions: true });
  }
}

/**
 * Gives the documents saved before the workflow existed the first state of their docstatus (the
 * reference's update_default_workflow_status), so every document under a workflow has a state.
 */
async function fillMissingStates(ctx: DocContext, wf: WorkflowDef): Promise<void> {
  const meta = ctx.metas.get(wf.documentType);
  const done = new Set<number>();
  for (const s of wf.states) {
    if (done.has(s.docStatus)) continue;
    done.add(s.docStatus);
    await ctx.q.run(
      ctx.dialect.builder
        .updateTable(meta.tableName)
        .set({ [wf.stateField]: s.state })
        .where((eb) => eb.or([eb(wf.stateField, 'is', null), eb(wf.stateField, '=', '')]))
        .where('docstatus', '=', s.docStatus)
        .compile(),
    );
  }
}

/**
 * The Workflow controller (docs/workflows.md "Defining a workflow"): creates the states and actions a
 * workflow names, checks it, keeps one active workflow per DocType, gives existing documents their
 * state, and bumps the metadata version on every change so every process reads the workflows again.
 */
export function registerWorkflowController(hooks: HookRegistry, documents: DocumentService): void {
  hooks.on(WORKFLOW, 'before_validate', async ({ doc, ctx }, next) => {
    if (!doc.workflow_state_field) doc.workflow_state_field = 'workflow_state';
    await createMissingMasters(ctx, documents, doc);
    await next();
  });
  hooks.on(WORKFLOW, 'validate', async ({ doc, ctx }, next) => {
    checkWorkflow(governedMeta(ctx, String(doc.document_type ?? '')), workflowDefinition(doc));
    await next();
  });
  hooks.on(WORKFLOW, 'on_update', async ({ doc, ctx }, next) => {
    if (Number(doc.is_active) === 1) {
      await ctx.q.run(
        ctx.dialect.builder
          .updateTable(ctx.metas.get(WORKFLOW).tableName)
          .set({ is_active: 0 })
          .where('document_type', '=', String(doc.document_type))
          .where('name', '<>', String(doc.name))
          .compile(),
      );
      await fillMissingStates(ctx, workflowDefinition(doc));
    }
    await ctx.metas.bumpVersion(ctx.q);
    await next();
  });
  hooks.on(WORKFLOW, 'on_trash', async ({ ctx }, next) => {
    await ctx.metas.bumpVersion(ctx.q);
    await next();
  });
}
