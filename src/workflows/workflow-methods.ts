import { withSavepoint } from '../documents/savepoint.js';
import { DataError, FwError, ValidationError } from '../errors/index.js';
import type { MethodCall, MethodRegistry } from '../rpc/method-registry.js';
import { applyWorkflow, availableTransitions, documentRef, loadForWorkflow, mayApprove, requireWorkflow, type WorkflowRuntime } from './apply-workflow.js';

/** The most documents one bulk approval takes (the reference's limit). */
const BULK_LIMIT = 500;

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** One document's outcome in a bulk approval. */
interface BulkOutcome {
  readonly docname: string;
  readonly message: string | null;
}

/** The reference's "Workflow Status" message: the failed and the successful documents, each with what happened. */
function bulkSummary(failed: readonly BulkOutcome[], done: readonly BulkOutcome[]): string {
  const block = (title: string, list: readonly BulkOutcome[]) =>
    list.length === 0
      ? ''
      : `<h4>${title}</h4>` +
        list
          .map(
            (o) =>
              `<details><summary>${escapeHtml(o.docname)}</summary>${o.message ? `<div class='small text-muted'>${escapeHtml(o.message)}</div>` : ''}</details>`,
          )
          .join('');
  return block('Failed Transactions', failed) + block('Successful Transactions', done);
}

/**
 * The workflow methods under the reference's paths (`fw.` and `frappe.`): apply_workflow,
 * get_transitions, bulk_workflow_approval, get_common_transition_actions and can_cancel_document
 * (docs/workflows.md "Methods").
 */
export function registerWorkflowMethods(methods: MethodRegistry, rt: WorkflowRuntime): void {
  methods.register('fw.model.workflow.apply_workflow', ({ ctx, args }) => applyWorkflow(ctx, rt, documentRef(args.doc), String(args.action)), {
    methods: ['POST', 'PUT'],
    params: [
      { name: 'doc', type: 'json', required: true },
      { name: 'action', type: 'string', required: true },
    ],
    description: 'Takes a workflow action on a document: its next state, saved, submitted or cancelled as the state says.',
  });

  methods.register(
    'fw.model.workflow.get_transitions',
    async ({ ctx, args }) => {
      const ref = documentRef(args.doc);
      if (ref.name === undefined) return [];
      const wf = await requireWorkflow(ctx, rt, ref.doctype);
      const doc = await loadForWorkflow(ctx, rt, ref.doctype, ref.name);
      return availableTransitions(ctx, wf, doc).map((t) => t.row);
    },
    {
      params: [{ name: 'doc', type: 'json', required: true }],
      description: 'The transitions the caller may take from the document’s current state.',
    },
  );

  methods.register(
    'fw.model.workflow.get_common_transition_actions',
    async ({ ctx, args }) => {
      const docs = args.docs;
      if (!Array.isArray(docs)) throw new DataError('docs must be a list of documents');
      let common: string[] | undefined;
      for (const d of docs) {
        const ref = documentRef(typeof d === 'object' && d !== null && !('doctype' in d) ? { ...d, doctype: args.doctype } : d);
        if (ref.name === undefined) return [];
        const wf = await requireWorkflow(ctx, rt, ref.doctype);
        const doc = await loadForWorkflow(ctx, rt, ref.doctype, ref.name);
        const actions = availableTransitions(ctx, wf, doc)
          .filter((t) => mayApprove(ctx, doc, t))
          .map((t) => t.action);
        common = common === undefined ? [...new Set(actions)] : common.filter((a) => actions.includes(a));
        if (common.length === 0) return [];
      }
      return common ?? [];
    },
    {
      params: [
        { name: 'docs', type: 'json', required: true },
        { name: 'doctype', type: 'string', required: true },
      ],
      description: 'The actions the caller may take on every one of the documents.',
    },
  );

  methods.register(
    'fw.model.workflow.bulk_workflow_approval',
    async ({ ctx, args }: MethodCall) => {
      const docnames = args.docnames;
      if (!Array.isArray(docnames) || docnames.some((n) => typeof n !== 'string')) throw new DataError('docnames must be a list of document names');
      if (docnames.length > BULK_LIMIT) throw new ValidationError('Bulk approval only support up to 500 documents.');
      const doctype = String(args.doctype);
      const action = String(args.action);
      const failed: BulkOutcome[] = [];
      const done: BulkOutcome[] = [];
      for (const docname of docnames as string[]) {
        try {
          // Each document alone: a refused one is undone and the others still move (docs/workflows.md "Methods").
          await withSavepoint(ctx.q, () => applyWorkflow(ctx, rt, { doctype, name: docname }, action), ctx.unit);
          done.push({ docname, message: null });
        } catch (err) {
          if (!(err instanceof FwError)) throw err;
          failed.push({ docname, message: `${err.excType} : ${err.message}` });
        }
      }
      const indicator = failed.length > 0 && done.length > 0 ? 'orange' : failed.length > 0 ? 'red' : 'green';
      ctx.messages.add({ message: bulkSummary(failed, done), title: 'Workflow Status', indicator });
      return undefined;
    },
    {
      methods: ['POST', 'PUT'],
      params: [
        { name: 'docnames', type: 'json', required: true },
        { name: 'doctype', type: 'string', required: true },
        { name: 'action', type: 'string', required: true },
      ],
      description: 'Takes one workflow action on many documents, each on its own; the outcome comes as a message.',
    },
  );

  methods.register(
    'fw.model.workflow.can_cancel_document',
    async ({ ctx, args }) => {
      const wf = await requireWorkflow(ctx, rt, String(args.doctype));
      const cancelling = new Set(wf.states.filter((s) => s.docStatus === 2).map((s) => s.state));
      return !wf.transitions.some((t) => cancelling.has(t.nextState));
    },
    {
      params: [{ name: 'doctype', type: 'string', required: true }],
      description: 'False when the workflow itself cancels documents of the DocType (so the plain Cancel is not offered).',
    },
  );
}
