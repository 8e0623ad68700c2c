import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ValidationError } from '../errors/index.js';
import type { Doc } from '../meta/doctype.js';
import { createFieldTypeRegistry } from '../meta/field-types/index.js';
import { Meta } from '../meta/meta.js';
import { checkWorkflow } from './workflow-controller.js';
import { workflowDefinition } from './workflow-definition.js';

const registry = createFieldTypeRegistry();
const fields = (stateAllowOnSubmit: 0 | 1) => [
  { fieldname: 'workflow_state', label: 'State', fieldtype: 'Data', allow_on_submit: stateAllowOnSubmit },
  { fieldname: 'approval', label: 'Approval', fieldtype: 'Data' },
];
const submittable = new Meta({ name: 'Leave', is_submittable: 1, fields: fields(1) }, registry);
const stateFixed = new Meta({ name: 'Leave', is_submittable: 1, fields: fields(0) }, registry);
const plain = new Meta({ name: 'Note', fields: fields(0) }, registry);

const STATES = [
  { state: 'Draft', doc_status: '0', allow_edit: 'A' },
  { state: 'Approved', doc_status: '1', allow_edit: 'A' },
  { state: 'Closed', doc_status: '1', allow_edit: 'A' },
  { state: 'Gone', doc_status: '2', allow_edit: 'A' },
];
const wf = (transitions: Doc[], extra: Doc = {}) =>
  workflowDefinition({ name: 'W', document_type: 'Leave', workflow_state_field: 'workflow_state', states: STATES, transitions, ...extra });
const t = (state: string, next_state: string, extra: Doc = {}) => ({ state, action: 'Go', next_state, allowed: 'A', ...extra });

describe('checkWorkflow', () => {
  const cases: Array<[string, Meta, ReturnType<typeof wf>, RegExp | undefined]> = [
    ['a draft, submit and cancel path is accepted', submittable, wf([t('Draft', 'Approved'), t('Approved', 'Closed'), t('Closed', 'Gone')]), undefined],
    ['a state field that is not a field', submittable, wf([], { workflow_state_field: 'status' }), /Workflow State Field status is not a field of Leave/],
    [
      'no states',
      submittable,
      workflowDefinition({ name: 'W', document_type: 'Leave', workflow_state_field: 'workflow_state', states: [], transitions: [] }),
      /at least one state/,
    ],
    ['a transition to an unknown state', submittable, wf([t('Draft', 'Nowhere')]), /Nowhere not a valid State/],
    ['a transition out of a cancelled state', submittable, wf([t('Gone', 'Approved')]), /Cannot change state of Cancelled Document/],
    ['a submitted document back to draft', submittable, wf([t('Approved', 'Draft')]), /cannot be converted back to draft/],
    ['cancelling a draft', submittable, wf([t('Draft', 'Gone')]), /Cannot cancel before submitting/],
    ['a submitted state on a DocType that is not submittable', plain, wf([]), /is not submittable/],
    ['leaving a submitted state when the state field may not change after submit', stateFixed, wf([t('Approved', 'Closed')]), /must allow changes on submit/],
    ['a condition that does not parse', submittable, wf([t('Draft', 'Approved', { condition: 'doc.x ==' })]), /Invalid condition in transition row 1/],
    [
      'an update field that is not a field',
      submittable,
      workflowDefinition({
        name: 'W',
        document_type: 'Leave',
        workflow_state_field: 'workflow_state',
        states: [{ state: 'Draft', doc_status: '0', allow_edit: 'A', update_field: 'nope' }],
        transitions: [],
      }),
      /Update Field nope is not a field/,
    ],
  ];
  for (const [what, meta, def, refusal] of cases) {
    test(refusal ? `refuses ${what}` : what, () => {
      if (refusal)
        assert.throws(
          () => checkWorkflow(meta, def),
          (err) => err instanceof ValidationError && refusal.test(err.message),
        );
      else assert.doesNotThrow(() => checkWorkflow(meta, def));
    });
  }
});
