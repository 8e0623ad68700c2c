import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { JobWorker } from '../../src/jobs/job-worker.js';
import { siteJobUnits } from '../../src/site/site-jobs.js';
import { WORKFLOW_ACTION_OUTBOX } from '../../src/workflows/action-outbox-table.js';
import type { WorkflowActionEntry } from '../../src/workflows/workflow-actions.js';
import { testDialects } from '../helpers/dialects.js';
import { assertError, createDocType, dataOf, resourceUrl, storedCount, type Json } from '../helpers/document-api.js';
import { addSinkAccount } from '../helpers/mail-account.js';
import { callMethod, messageOf } from '../helpers/method-calls.js';
import { actAs, createRole, createUser, type ActingUser } from '../helpers/permission-users.js';
import { SmtpSink } from '../helpers/smtp-sink.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';

/*
 * Workflow Actions (docs/workflows.md "Workflow Actions"): a document entering a state opens an
 * action for the roles that may move it on (conditions respected) and completes the previous one;
 * users with those roles see it, others do not; with Send Email Alert each user who may act is
 * mailed after the commit, never a user who may not read the document or the owner where self
 * approval is forbidden; a refused step changes no action and sends nothing. Actions are written
 * by a batch a moment after the write's commit: the tests wait for it (`settled`) before reading.
 */

const EXPENSE = 'Action Expense';
const APPLY = 'fw.model.workflow.apply_workflow';

for (const dialect of testDialects()) {
  describe(`workflow actions (${dialect.name})`, () => {
    let t: TestSite;
    let sink: SmtpSink;
    let worker: JobWorker;
    let clerk: ActingUser;
    let approver: ActingUser;
    let boss: ActingUser;
    let outsider: ActingUser;

    const apply = (user: ActingUser, name: string, action: string) =>
      callMethod(t, 'POST', APPLY, { doc: JSON.stringify({ doctype: EXPENSE, name }), action }, user.auth);
    /** Waits for the batch that turns the committed writes into Workflow Actions (a job source of the queue). */
    const settled = () => t.site.jobs.flushSources();
    const actionsOf = async (name: string): Promise<Json[]> => {
      await settled();
      const res = await t.request({
        method: 'GET',
        url: `${resourceUrl('Workflow Action')}?fields=${encodeURIComponent('["name","status","workflow_state","completed_by","completed_by_role"]')}&filters=${encodeURIComponent(JSON.stringify({ reference_doctype: EXPENSE, reference_name: name }))}&order_by=creation%20asc&limit_page_length=0`,
      });
      assert.equal(res.statusCode, 200, res.body);
      return res.json().data;
    };
    const rolesOf = async (action: string) =>
      (dataOf(await t.request({ method: 'GET', url: resourceUrl('Workflow Action', action) })).permitted_roles as Json[]).map((r) => r.role).sort();
    const listedBy = async (user: ActingUser, name: string) => {
      await settled();
      const res = await actAs(t, user, {
        method: 'GET',
        url: `${resourceUrl('Workflow Action')}?filters=${encodeURIComponent(JSON.stringify({ reference_name: name, status: 'Open' }))}`,
      });
      assert.equal(res.statusCode, 200, res.body);
      return (res.json().data as Json[]).map((r) => r.name);
    };
    const mailsTo = (address: string) => sink.received.filter((m) => m.to.includes(address)).map((m) => String(m.parsed.subject));

    before(async () => {
      t = await startTestSite(dialect);
      sink = await new SmtpSink().start();
      worker = new JobWorker(t.site.jobs, { units: siteJobUnits(t.site) });
      await addSinkAccount(t, sink);
      for (const role of ['Expense Clerk', 'Expense Approver', 'Expense Boss']) await createRole(t, role);
      clerk = await createUser(t, 'clerk@actions.test', { roles: ['Expense Clerk', 'Expense Approver'] });
      approver = await createUser(t, 'approver@actions.test', { roles: ['Expense Approver'] });
      boss = await createUser(t, 'boss@actions.test', { roles: ['Expense Boss'] });
      outsider = await createUser(t, 'outsider@actions.test', { roles: [] });
      await createDocType(t, {
        name: EXPENSE,
        is_submittable: 1,
        fields: [
          { fieldname: 'title', label: 'Title', fieldtype: 'Data' },
          { fieldname: 'amount', label: 'Amount', fieldtype: 'Int' },
          { fieldname: 'workflow_state', label: 'Workflow State', fieldtype: 'Link', options: 'Workflow State', allow_on_submit: 1, no_copy: 1 },
        ],
        permissions: [
          { role: 'System Manager', submit: 1, cancel: 1 },
          { role: 'Expense Clerk', read: 1, write: 1, create: 1, delete: 0 },
          { role: 'Expense Approver', read: 1, write: 1, submit: 1, delete: 0 },
          // The boss may take the big approvals but reads only their own documents.
          { role: 'Expense Boss', read: 1, write: 1, submit: 1, delete: 0, if_owner: 1 },
        ],
      });
      dataOf(
        await t.request({
          method: 'POST',
          url: '/api/resource/Workflow',
          body: {
            workflow_name: 'Expense Approval',
            document_type: EXPENSE,
            is_active: 1,
            send_email_alert: 1,
            states: [
              { state: 'Draft', doc_status: '0', allow_edit: 'Expense Clerk' },
              { state: 'Pending', doc_status: '0', allow_edit: 'Expense Approver' },
              { state: 'Approved', doc_status: '1', allow_edit: 'Expense Approver' },
            ],
            transitions: [
              { state: 'Draft', action: 'Submit for Approval', next_state: 'Pending', allowed: 'Expense Clerk' },
              {
                state: 'Pending',
                action: 'Approve',
                next_state: 'Approved',
                allowed: 'Expense Approver',
                allow_self_approval: 0,
                condition: 'doc.amount <= 100',
              },
              { state: 'Pending', action: 'Approve', next_state: 'Approved', allowed: 'Expense Boss', condition: 'doc.amount > 100' },
            ],
          },
        }),
      );
    });
    after(async () => {
      await sink.stop();
      await t.close();
    });

    test('a new document opens an action for the roles that may move it on; taking it completes it and opens the next', async () => {
      const doc = dataOf(await actAs(t, clerk, { method: 'POST', url: resourceUrl(EXPENSE), body: { title: 'Taxi', amount: 40 } }));
      const [draft] = await actionsOf(doc.name);
      assert.equal(draft.status, 'Open');
      assert.equal(draft.workflow_state, 'Draft');
      assert.deepEqual(await rolesOf(draft.name), ['Expense Clerk']);

      messageOf(await apply(clerk, doc.name, 'Submit for Approval'));
      const [done, pending, ...rest] = await actionsOf(doc.name);
      assert.deepEqual(rest, []);
      assert.deepEqual([done.status, done.completed_by, done.completed_by_role], ['Completed', clerk.name, 'Expense Clerk']);
      assert.deepEqual([pending.status, pending.workflow_state], ['Open', 'Pending']);
      assert.deepEqual(await rolesOf(pending.name), ['Expense Approver'], 'the boss transition’s condition is false for 40');

      messageOf(await apply(approver, doc.name, 'Approve'));
      const after = await actionsOf(doc.name);
      assert.deepEqual(
        after.map((a) => [a.workflow_state, a.status]),
        [
          ['Draft', 'Completed'],
          ['Pending', 'Completed'],
        ],
        'Approved has no transition out: nothing is open',
      );
    });

    test('users see the open actions of their roles; others list none and are refused one', async () => {
      const doc = dataOf(await actAs(t, clerk, { method: 'POST', url: resourceUrl(EXPENSE), body: { title: 'Lunch', amount: 20 } }));
      messageOf(await apply(clerk, doc.name, 'Submit for Approval'));
      const [, pending] = await actionsOf(doc.name);
      assert.deepEqual(await listedBy(approver, doc.name), [pending.name]);
      assert.deepEqual(await listedBy(outsider, doc.name), []);
      assert.deepEqual(await listedBy(boss, doc.name), []);
      assertError(await actAs(t, outsider, { method: 'GET', url: resourceUrl('Workflow Action', pending.name) }), 403, 'PermissionError');
      assert.equal((await actAs(t, approver, { method: 'GET', url: resourceUrl('Workflow Action', pending.name) })).statusCode, 200);
      assertError(
        await actAs(t, approver, { method: 'PUT', url: resourceUrl('Workflow Action', pending.name), body: { status: 'Completed' } }),
        403,
        'PermissionError',
      );
    });

    test('Send Email Alert mails each user who may act after the commit: not the owner without self approval, not a user who may not read it', async () => {
      const before = sink.received.length;
      const small = dataOf(await actAs(t, clerk, { method: 'POST', url: resourceUrl(EXPENSE), body: { title: 'Cab', amount: 30 } }));
      messageOf(await apply(clerk, small.name, 'Submit for Approval'));
      const big = dataOf(await actAs(t, clerk, { method: 'POST', url: resourceUrl(EXPENSE), body: { title: 'Flight', amount: 900 } }));
      messageOf(await apply(clerk, big.name, 'Submit for Approval'));
      assert.equal(sink.received.length, before, 'nothing leaves inside the request');
      await worker.runDue();
      await sink.waitFor(before + 1);
      const subject = (name: string) => `${EXPENSE} ${name}: Pending, waiting for you`;
      assert.ok(mailsTo(approver.name).includes(subject(small.name)));
      assert.ok(!mailsTo(clerk.name).includes(subject(small.name)), 'the owner may not approve their own expense');
      assert.ok(!mailsTo(boss.name).includes(subject(big.name)), 'the boss may not read the clerk’s expense');
      const mail = sink.received.find((m) => m.to.includes(approver.name) && m.parsed.subject === subject(small.name))!;
      assert.match(String(mail.parsed.html), /You may: Approve\./);
      assert.match(String(mail.parsed.html), new RegExp(`/app/action-expense/${small.name}`));
      assert.ok(!mailsTo(approver.name).includes(subject(big.name)), 'the approver’s transition is false for 900');
    });

    test('a refused step changes no action and queues no mail', async () => {
      const doc = dataOf(await actAs(t, clerk, { method: 'POST', url: resourceUrl(EXPENSE), body: { title: 'Hotel', amount: 60 } }));
      messageOf(await apply(clerk, doc.name, 'Submit for Approval'));
      const actions = await actionsOf(doc.name);
      const queued = await storedCount(t, 'Email Queue');
      assertError(await apply(clerk, doc.name, 'Approve'), 417, 'ValidationError');
      assertError(await apply(outsider, doc.name, 'Approve'), 403, 'PermissionError');
      assert.deepEqual(await actionsOf(doc.name), actions);
      assert.equal(await storedCount(t, 'Email Queue'), queued);
    });

    test('the entry of a write whose batch never ran (its process killed after the commit) becomes actions at the next sweep', async () => {
      const doc = dataOf(await actAs(t, clerk, { method: 'POST', url: resourceUrl(EXPENSE), body: { title: 'Orphan', amount: 7 } }));
      await settled();
      // What a process killed between its commit and its batch leaves behind: the committed outbox row.
      const entry: WorkflowActionEntry = {
        kind: 'enter',
        doctype: EXPENSE,
        name: doc.name,
        state: 'Pending',
        user: clerk.name,
        roles: ['Expense Clerk', 'Expense Approver'],
        completes: true,
        open: ['Expense Approver'],
      };
      const { db } = t.site;
      await db.transaction((q) =>
        q.run(
          db.dialect.builder
            .insertInto(WORKFLOW_ACTION_OUTBOX)
            .values({ name: '0', entry: JSON.stringify(entry) })
            .compile(),
        ),
      );
      await t.site.jobs.sweepSources();
      const [done, pending, ...rest] = await actionsOf(doc.name);
      assert.deepEqual(rest, []);
      assert.deepEqual([done.status, done.completed_by, done.completed_by_role], ['Completed', clerk.name, 'Expense Clerk']);
      assert.deepEqual([pending.status, pending.workflow_state], ['Open', 'Pending']);
      assert.deepEqual(await rolesOf(pending.name), ['Expense Approver']);
    });

    test('deleting a document deletes its actions', async () => {
      const doc = dataOf(await t.request({ method: 'POST', url: resourceUrl(EXPENSE), body: { title: 'Gone', amount: 5 } }));
      assert.equal((await actionsOf(doc.name)).length, 1);
      assert.equal((await t.request({ method: 'DELETE', url: resourceUrl(EXPENSE, doc.name) })).statusCode, 202);
      assert.deepEqual(await actionsOf(doc.name), []);
    });
  });
}
