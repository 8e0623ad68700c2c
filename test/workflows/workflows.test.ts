import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { JobWorker } from '../../src/jobs/job-worker.js';
import { testDialects } from '../helpers/dialects.js';
import { assertError, createDocType, dataOf, readDoc, resourceUrl, serverMessages, storedCount, type Json } from '../helpers/document-api.js';
import { openEventStream, streamOf } from '../helpers/event-stream.js';
import { callMethod, messageOf } from '../helpers/method-calls.js';
import { actAs, createRole, createUser, type ActingUser } from '../helpers/permission-users.js';
import { listenOnce } from '../helpers/realtime-client.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

/*
 * Workflows over HTTP (docs/workflows.md): the Workflow DocTypes, a new document's first state,
 * apply_workflow / get_transitions / bulk_workflow_approval with the reference's arguments and
 * answers, and every refusal (a role that may not act, a false condition, self approval, a state or
 * docstatus change that skips the workflow, an edit by a role the state does not allow), each
 * checked to leave the document as it was.
 */

const LEAVE = 'Leave Request';
const WORKFLOW_NAME = 'Leave Approval';
const APPLY = 'fw.model.workflow.apply_workflow';
const TRANSITIONS = 'frappe.model.workflow.get_transitions';

const STATES = [
  { state: 'Draft', doc_status: '0', allow_edit: 'Leave Clerk' },
  { state: 'Pending', doc_status: '0', allow_edit: 'Leave Approver' },
  { state: 'Approved', doc_status: '1', allow_edit: 'Leave Approver', update_field: 'approval', update_value: 'granted' },
  { state: 'Rejected', doc_status: '0', allow_edit: 'Leave Clerk' },
  { state: 'Withdrawn', doc_status: '2', allow_edit: 'Leave Approver' },
];
const TRANSITION_ROWS = [
  { state: 'Draft', action: 'Send for Approval', next_state: 'Pending', allowed: 'Leave Clerk' },
  { state: 'Pending', action: 'Approve', next_state: 'Approved', allowed: 'Leave Approver', allow_self_approval: 0, condition: 'doc.days <= 10' },
  { state: 'Pending', action: 'Reject', next_state: 'Rejected', allowed: 'Leave Approver' },
  { state: 'Approved', action: 'Withdraw', next_state: 'Withdrawn', allowed: 'Leave Approver' },
];

for (const dialect of testDialects()) {
  describe(`workflows (${dialect.name})`, () => {
    let t: TestSite;
    let clerk: ActingUser;
    let approver: ActingUser;
    let both: ActingUser;

    const apply = (user: ActingUser, doc: Json, action: string) =>
      callMethod(t, 'POST', APPLY, { doc: JSON.stringify({ doctype: LEAVE, name: doc.name }), action }, user.auth);
    const transitions = (user: ActingUser, name: string) => callMethod(t, 'GET', TRANSITIONS, { doc: { doctype: LEAVE, name } }, user.auth);
    const create = async (user: ActingUser, body: Json = {}) =>
      dataOf(await actAs(t, user, { method: 'POST', url: resourceUrl(LEAVE), body: { title: 'Holiday', days: 3, ...body } }));
    const pending = async (user: ActingUser = clerk, body: Json = {}) => {
      const doc = await create(user, body);
      return messageOf(await apply(user, doc, 'Send for Approval'));
    };

    /** Sends a request that must be refused with `excType`, and checks the document reads as before. */
    async function refused(name: string, send: () => Promise<LightMyRequestResponse>, status: number, excType: string): Promise<Json> {
      const stored = await readDoc(t, LEAVE, name);
      const comments = await storedCount(t, 'Comment');
      const body = assertError(await send(), status, excType);
      assert.deepEqual(await readDoc(t, LEAVE, name), stored, 'the document is unchanged');
      assert.equal(await storedCount(t, 'Comment'), comments, 'no Workflow comment was added');
      return body;
    }

    before(async () => {
      t = await startTestSite(dialect, { config: { webhook_allowed_targets: ['127.0.0.1'] } });
      await createRole(t, 'Leave Clerk');
      await createRole(t, 'Leave Approver');
      clerk = await createUser(t, 'clerk@leave.test', { roles: ['Leave Clerk'] });
      approver = await createUser(t, 'approver@leave.test', { roles: ['Leave Approver'] });
      both = await createUser(t, 'both@leave.test', { roles: ['Leave Clerk', 'Leave Approver'] });
      await createDocType(t, {
        name: LEAVE,
        is_submittable: 1,
        track_changes: 1,
        autoname: 'LR-.#####',
        fields: [
          { fieldname: 'title', label: 'Title', fieldtype: 'Data', reqd: 1 },
          { fieldname: 'days', label: 'Days', fieldtype: 'Int' },
          { fieldname: 'workflow_state', label: 'Workflow State', fieldtype: 'Link', options: 'Workflow State', allow_on_submit: 1 },
          { fieldname: 'approval', label: 'Approval', fieldtype: 'Data', allow_on_submit: 1 },
        ],
        permissions: [
          { role: 'System Manager', submit: 1, cancel: 1 },
          { role: 'Leave Clerk', read: 1, write: 1, create: 1, delete: 0 },
          { role: 'Leave Approver', read: 1, write: 1, create: 1, submit: 1, cancel: 1, delete: 0 },
        ],
      });
    });
    after(() => t.close());

    describe('defining a workflow', () => {
      test('a workflow whose state field is not a field of the DocType is refused and nothing is stored', async () => {
        const count = await storedCount(t, 'Workflow');
        const body = assertError(
          await t.request({
            method: 'POST',
            url: '/api/resource/Workflow',
            body: { workflow_name: 'Broken', document_type: LEAVE, workflow_state_field: 'status', is_active: 1, states: STATES, transitions: TRANSITION_ROWS },
          }),
          417,
          'ValidationError',
        );
        assert.match(serverMessages(body)[0], /Workflow State Field status is not a field of Leave Request/);
        assert.equal(await storedCount(t, 'Workflow'), count);
      });

      test('getdoctype names the active workflow (for the form), and null for a DocType without one', async () => {
        const form = async (doctype: string) =>
          (await actAs(t, clerk, { method: 'GET', url: `/api/method/fw.desk.form.load.getdoctype?doctype=${encodeURIComponent(doctype)}` })).json().docs[0]
            .__workflow;
        assert.equal(await form('ToDo'), null);
        assert.equal(await form(LEAVE), null, 'no workflow yet');
        const wf = await t.request({
          method: 'POST',
          url: '/api/resource/Workflow',
          body: { workflow_name: 'Probe', document_type: LEAVE, is_active: 0, states: STATES, transitions: TRANSITION_ROWS },
        });
        assert.equal(wf.statusCode, 200);
        assert.equal(await form(LEAVE), null, 'an inactive workflow is not named');
        assert.equal((await t.request({ method: 'DELETE', url: resourceUrl('Workflow', 'Probe') })).statusCode, 202);
      });

      test('a transition from Draft straight to Cancelled is refused, as the reference refuses it', async () => {
        const body = assertError(
          await t.request({
            method: 'POST',
            url: '/api/resource/Workflow',
            body: {
              workflow_name: 'Skipper',
              document_type: LEAVE,
              states: STATES,
              transitions: [{ state: 'Draft', action: 'Drop', next_state: 'Withdrawn', allowed: 'Leave Clerk' }],
            },
          }),
          417,
          'ValidationError',
        );
        assert.match(serverMessages(body)[0], /Cannot cancel before submitting/);
      });

      test('a condition that does not parse is refused', async () => {
        const bad = [{ ...TRANSITION_ROWS[0], condition: 'doc.days >' }];
        const res = await t.request({
          method: 'POST',
          url: '/api/resource/Workflow',
          body: { workflow_name: 'Bad Condition', document_type: LEAVE, states: STATES, transitions: bad },
        });
        assert.match(serverMessages(assertError(res, 417, 'ValidationError'))[0], /Invalid condition in transition row 1/);
      });

      test('an active workflow is stored with its states and transitions; the states and actions it names are created', async () => {
        const wf = dataOf(
          await t.request({
            method: 'POST',
            url: '/api/resource/Workflow',
            body: { workflow_name: WORKFLOW_NAME, document_type: LEAVE, is_active: 1, states: STATES, transitions: TRANSITION_ROWS },
          }),
        );
        assert.equal(wf.name, WORKFLOW_NAME);
        assert.equal(wf.workflow_state_field, 'workflow_state');
        assert.deepEqual(
          wf.states.map((s: Json) => [s.state, s.doc_status, s.allow_edit]),
          STATES.map((s) => [s.state, s.doc_status, s.allow_edit]),
        );
        assert.equal(wf.transitions[1].allow_self_approval, 0);
        assert.equal(wf.transitions[0].allow_self_approval, 1, 'self approval is allowed by default');
        for (const s of STATES)
          assert.equal(dataOf(await t.request({ method: 'GET', url: resourceUrl('Workflow State', s.state) })).workflow_state_name, s.state);
        const meta = (await actAs(t, clerk, { method: 'GET', url: `/api/method/fw.desk.form.load.getdoctype?doctype=${encodeURIComponent(LEAVE)}` })).json();
        assert.equal(meta.docs[0].__workflow, WORKFLOW_NAME, 'getdoctype names the active workflow');
        assert.equal(dataOf(await t.request({ method: 'GET', url: resourceUrl('Workflow Action Master', 'Approve') })).workflow_action_name, 'Approve');
      });
    });

    describe('new documents', () => {
      test('a new document starts in the first state', async () => {
        const doc = await create(clerk);
        assert.equal(doc.workflow_state, 'Draft');
        assert.equal(doc.docstatus, 0);
      });

      test('a new document claiming a later state, or submitted at once, is refused and nothing is stored', async () => {
        const count = await storedCount(t, LEAVE);
        const later = await actAs(t, approver, { method: 'POST', url: resourceUrl(LEAVE), body: { title: 'x', workflow_state: 'Approved' } });
        assert.match(serverMessages(assertError(later, 417, 'WorkflowPermissionError'))[0], /Workflow State transition not allowed from Draft to Approved/);
        const submitted = await actAs(t, approver, { method: 'POST', url: resourceUrl(LEAVE), body: { title: 'x', docstatus: 1 } });
        assertError(submitted, 417, 'WorkflowPermissionError');
        assert.equal(await storedCount(t, LEAVE), count);
      });
    });

    describe('get_transitions', () => {
      test('answers the transitions the caller may take from the current state, as the stored rows', async () => {
        const doc = await create(clerk);
        const list = messageOf(await transitions(clerk, doc.name));
        assert.equal(list.length, 1);
        assert.equal(list[0].doctype, 'Workflow Transition');
        assert.equal(list[0].parent, WORKFLOW_NAME);
        assert.equal(list[0].parentfield, 'transitions');
        assert.deepEqual(
          {
            state: list[0].state,
            action: list[0].action,
            next_state: list[0].next_state,
            allowed: list[0].allowed,
            allow_self_approval: list[0].allow_self_approval,
          },
          { state: 'Draft', action: 'Send for Approval', next_state: 'Pending', allowed: 'Leave Clerk', allow_self_approval: 1 },
        );
        assert.deepEqual(messageOf(await transitions(approver, doc.name)), [], 'the approver has no action on a draft');
      });

      test('a transition whose condition is false is not offered', async () => {
        const long = await pending(clerk, { days: 30 });
        assert.deepEqual(
          messageOf(await transitions(approver, long.name)).map((r: Json) => r.action),
          ['Reject'],
        );
        const short = await pending(clerk, { days: 2 });
        assert.deepEqual(
          messageOf(await transitions(approver, short.name)).map((r: Json) => r.action),
          ['Approve', 'Reject'],
        );
      });

      test('a document without a name has no transitions; one the caller may not read is refused', async () => {
        assert.deepEqual(messageOf(await callMethod(t, 'POST', TRANSITIONS, { doc: { doctype: LEAVE } }, clerk.auth)), []);
        const outsider = await createUser(t, 'outsider@leave.test');
        const doc = await create(clerk);
        assertError(await transitions(outsider, doc.name), 403, 'PermissionError');
      });
    });

    describe('apply_workflow', () => {
      test('moves the document to the next state, answers the saved document, and records a Workflow comment and a Version', async () => {
        const doc = await create(clerk);
        const moved = messageOf(await apply(clerk, doc, 'Send for Approval'));
        assert.equal(moved.name, doc.name);
        assert.equal(moved.doctype, LEAVE);
        assert.equal(moved.workflow_state, 'Pending');
        assert.equal(moved.docstatus, 0);
        assert.equal((await readDoc(t, LEAVE, doc.name)).workflow_state, 'Pending');
        const comments = dataOf(
          await t.request({
            method: 'GET',
            url: `/api/resource/Comment?fields=["comment_type","content","owner"]&filters=${encodeURIComponent(JSON.stringify({ reference_name: doc.name }))}`,
          }),
        );
        assert.deepEqual(comments, [{ comment_type: 'Workflow', content: 'Pending', owner: clerk.name }]);
        const versions = dataOf(
          await t.request({ method: 'GET', url: `/api/resource/Version?fields=["data"]&filters=${encodeURIComponent(JSON.stringify({ docname: doc.name }))}` }),
        );
        assert.ok(
          versions.some((v: Json) => JSON.stringify(JSON.parse(String(v.data)).changed) === JSON.stringify([['workflow_state', 'Draft', 'Pending']])),
          JSON.stringify(versions),
        );
      });

      test('a state with doc_status 1 submits the document in the same step, setting its update field', async () => {
        const doc = await pending();
        const approved = messageOf(await apply(approver, doc, 'Approve'));
        assert.equal(approved.docstatus, 1);
        assert.equal(approved.workflow_state, 'Approved');
        assert.equal(approved.approval, 'granted');
        const stored = await readDoc(t, LEAVE, doc.name);
        assert.equal(stored.docstatus, 1);
        assert.equal(stored.approval, 'granted');
      });

      test('a state with doc_status 2 cancels the submitted document', async () => {
        const doc = messageOf(await apply(approver, await pending(), 'Approve'));
        const withdrawn = messageOf(await apply(approver, doc, 'Withdraw'));
        assert.equal(withdrawn.docstatus, 2);
        assert.equal(withdrawn.workflow_state, 'Withdrawn');
      });

      test('an action by a role that may not take it is refused, and nothing changes', async () => {
        const doc = await pending();
        const body = await refused(doc.name, () => apply(clerk, doc, 'Approve'), 417, 'WorkflowTransitionError');
        assert.equal(serverMessages(body)[0], 'Not a valid Workflow Action');
      });

      test('an action whose condition is false is refused, and nothing changes', async () => {
        const doc = await pending(clerk, { days: 20 });
        await refused(doc.name, () => apply(approver, doc, 'Approve'), 417, 'WorkflowTransitionError');
      });

      test('self approval is refused where the transition forbids it, and nothing changes; another approver may', async () => {
        const doc = await pending(both);
        const body = await refused(doc.name, () => apply(both, doc, 'Approve'), 417, 'ValidationError');
        assert.equal(serverMessages(body)[0], 'Self approval is not allowed');
        assert.equal(messageOf(await apply(approver, doc, 'Approve')).workflow_state, 'Approved');
      });

      test('an unknown action and an unknown document are refused', async () => {
        const doc = await pending();
        await refused(doc.name, () => apply(approver, doc, 'Explode'), 417, 'WorkflowTransitionError');
        assertError(await apply(approver, { name: 'LR-99999' }, 'Approve'), 404, 'DoesNotExistError');
        assertError(await callMethod(t, 'POST', APPLY, { doc: 'not json', action: 'Approve' }, approver.auth), 417, 'DataError');
      });
    });

    describe('changes that skip the workflow', () => {
      test('a save that changes the state field directly is refused, and nothing changes', async () => {
        const doc = await pending();
        const body = await refused(
          doc.name,
          () => actAs(t, approver, { method: 'PUT', url: resourceUrl(LEAVE, doc.name), body: { workflow_state: 'Approved' } }),
          417,
          'WorkflowPermissionError',
        );
        assert.match(serverMessages(body)[0], /Workflow State transition not allowed from Pending to Approved/);
        await refused(
          doc.name,
          () => t.request({ method: 'PUT', url: resourceUrl(LEAVE, doc.name), body: { workflow_state: 'Rejected' } }),
          417,
          'WorkflowPermissionError',
        );
      });

      test('a submit or cancel that skips the workflow is refused, and nothing changes', async () => {
        const doc = await pending();
        await refused(
          doc.name,
          () => actAs(t, approver, { method: 'PUT', url: resourceUrl(LEAVE, doc.name), body: { docstatus: 1 } }),
          417,
          'WorkflowPermissionError',
        );
        await refused(doc.name, () => callMethod(t, 'POST', 'frappe.client.submit', { doc: { ...doc } }, approver.auth), 417, 'WorkflowPermissionError');
        const approved = messageOf(await apply(approver, doc, 'Approve'));
        await refused(
          approved.name,
          () => callMethod(t, 'POST', 'frappe.client.cancel', { doctype: LEAVE, name: approved.name }, approver.auth),
          417,
          'WorkflowPermissionError',
        );
      });

      test('an edit by a role the state does not let edit is refused; the allowed role edits', async () => {
        const doc = await pending();
        await refused(doc.name, () => actAs(t, clerk, { method: 'PUT', url: resourceUrl(LEAVE, doc.name), body: { days: 4 } }), 403, 'PermissionError');
        const edited = dataOf(await actAs(t, approver, { method: 'PUT', url: resourceUrl(LEAVE, doc.name), body: { days: 4 } }));
        assert.equal(edited.days, 4);
        assert.equal(edited.workflow_state, 'Pending');
      });
    });

    describe('bulk_workflow_approval', () => {
      test('takes the action on each document alone and reports failures and successes in a Workflow Status message', async () => {
        const good = await pending(clerk, { days: 1 });
        const tooLong = await pending(clerk, { days: 40 });
        const res = await callMethod(
          t,
          'POST',
          'frappe.model.workflow.bulk_workflow_approval',
          { docnames: JSON.stringify([good.name, tooLong.name]), doctype: LEAVE, action: 'Approve' },
          approver.auth,
        );
        assert.equal(res.statusCode, 200, res.body);
        const body = res.json();
        assert.ok(!('message' in body), 'the reference answers no message');
        const [status] = JSON.parse(body._server_messages).map((m: string) => JSON.parse(m));
        assert.equal(status.title, 'Workflow Status');
        assert.equal(status.indicator, 'orange');
        assert.match(status.message, new RegExp(`Failed Transactions.*${tooLong.name}.*WorkflowTransitionError.*Successful Transactions.*${good.name}`));
        assert.equal((await readDoc(t, LEAVE, good.name)).workflow_state, 'Approved');
        assert.equal((await readDoc(t, LEAVE, tooLong.name)).workflow_state, 'Pending');
      });

      test('more than 500 documents are refused', async () => {
        const names = Array.from({ length: 501 }, (_, i) => `LR-${i}`);
        const res = await callMethod(
          t,
          'POST',
          'fw.model.workflow.bulk_workflow_approval',
          { docnames: names, doctype: LEAVE, action: 'Approve' },
          approver.auth,
        );
        assert.match(serverMessages(assertError(res, 417, 'ValidationError'))[0], /up to 500 documents/);
      });
    });

    describe('list sidebar', () => {
      test('get_workflow_state_count counts the readable documents in each state not listed', async () => {
        const counts = messageOf(
          await callMethod(
            t,
            'GET',
            'frappe.workflow.doctype.workflow.workflow.get_workflow_state_count',
            { doctype: LEAVE, workflow_state_field: 'workflow_state', states: ['Draft', 'Rejected', 'Withdrawn'] },
            clerk.auth,
          ),
        ) as Json[];
        const stored = dataOf(await t.request({ method: 'GET', url: `${resourceUrl(LEAVE)}?fields=["workflow_state"]&limit=0` })) as unknown as Json[];
        const expected: Record<string, number> = {};
        for (const d of stored)
          if (!['Draft', 'Rejected', 'Withdrawn'].includes(d.workflow_state)) expected[d.workflow_state] = (expected[d.workflow_state] ?? 0) + 1;
        assert.deepEqual(Object.fromEntries(counts.map((c) => [c.workflow_state, c.count])), expected);
        assert.ok(Object.keys(expected).includes('Pending') && Object.keys(expected).includes('Approved'));
        assertError(
          await callMethod(
            t,
            'GET',
            'frappe.workflow.doctype.workflow.workflow.get_workflow_state_count',
            { doctype: 'Webhook', workflow_state_field: 'name', states: [] },
            clerk.auth,
          ),
          403,
          'PermissionError',
        );
      });
    });

    describe('events', () => {
      test('a transition fires the usual webhooks and realtime events after commit', async () => {
        const receiver = await new WebhookReceiver().start();
        try {
          const hook = dataOf(
            await t.request({
              method: 'POST',
              url: '/api/resource/Webhook',
              body: {
                webhook_doctype: LEAVE,
                webhook_docevent: 'on_submit',
                request_url: receiver.url(),
                webhook_json: '{"name": "{{ doc.name }}", "state": "{{ doc.workflow_state }}"}',
              },
            }),
          );
          const doc = await pending();
          const base = await listenOnce(t);
          const stream = streamOf(
            await openEventStream(`${base}/api/v2/realtime?doc=${encodeURIComponent(`${LEAVE}/${doc.name}`)}`, { authorization: approver.auth }),
          );
          try {
            await stream.next('ready');
            const approved = messageOf(await apply(approver, doc, 'Approve'));
            const update = await stream.next('doc_update', (d) => d.name === doc.name && d.modified === approved.modified);
            assert.equal(update.data.doctype, LEAVE);
            await new JobWorker(t.site.jobs).runDue();
            const bodies = receiver.received.map((r) => JSON.parse(r.body));
            assert.deepEqual(bodies, [{ name: doc.name, state: 'Approved' }]);
          } finally {
            stream.close();
          }
          dataOf(await t.request({ method: 'PUT', url: resourceUrl('Webhook', hook.name), body: { enabled: 0 } }));
        } finally {
          await receiver.stop();
        }
      });
    });
  });
}
