import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { JobWorker } from '../../src/jobs/job-worker.js';
import { testDialects } from '../helpers/dialects.js';
import { assertError, createDocType, insertDoc, resourceUrl, storedCount, storedRow, uniqueDocTypeName, type Json } from '../helpers/document-api.js';
import { callMethod, messageOf } from '../helpers/method-calls.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';
import { createUser, tokenFor } from '../helpers/user-sessions.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { connectSocket, listenOnce } from '../helpers/realtime-client.js';

/*
 * Assignments, tags, follows, likes and previous/next (docs/collaboration.md): the reference's
 * methods and answers, the `_assign`, `_user_tags` and `_liked_by` columns kept in step and usable
 * as list filters, the docinfo parts, and every refusal leaving nothing changed.
 */

for (const dialect of testDialects()) {
  describe(`collaboration (${dialect.name})`, () => {
    let t: TestSite;
    let alice: string;
    let bob: string;
    let outsider: string;
    let receiver: WebhookReceiver;
    let worker: JobWorker;
    const TASK = uniqueDocTypeName('Collab Task');
    const ALICE = 'collab-alice@example.com';
    const BOB = 'collab-bob@example.com';
    const OUTSIDER = 'collab-outsider@example.com';

    before(async () => {
      t = await startTestSite(dialect, { config: { webhook_allowed_targets: ['127.0.0.1'] } });
      receiver = await new WebhookReceiver().start();
      worker = new JobWorker(t.site.jobs);
      await insertDoc(t, 'Role', { role_name: 'Collab Worker' });
      await createDocType(t, {
        name: TASK,
        title_field: 'subject',
        fields: [
          { fieldname: 'subject', fieldtype: 'Data', in_list_view: 1 },
          { fieldname: 'rank', fieldtype: 'Int' },
        ],
        permissions: [{ role: 'System Manager' }, { role: 'Collab Worker', read: 1, write: 1, create: 1, delete: 0 }],
      });
      await createUser(t, { email: ALICE, password: 'Alice-Secret-42', roles: ['Collab Worker'], firstName: 'Alice' });
      await createUser(t, { email: BOB, password: 'Bob-Secret-42', roles: ['Collab Worker'], firstName: 'Bob' });
      await createUser(t, { email: OUTSIDER, password: 'Outsider-Secret-42', firstName: 'Otto' });
      alice = await tokenFor(t, ALICE);
      bob = await tokenFor(t, BOB);
      outsider = await tokenFor(t, OUTSIDER);
    });
    after(async () => {
      await receiver.stop();
      await t.close();
    });

    const column = async (name: string, col: string) => (await storedRow(t, TASK, name))?.[col] ?? null;
    const listNames = async (filters: unknown, auth?: string) => {
      const res = await t.request({
        method: 'GET',
        url: `${resourceUrl(TASK)}?filters=${encodeURIComponent(JSON.stringify(filters))}&fields=${encodeURIComponent('["name","_assign","_user_tags"]')}`,
        headers: auth ? { authorization: auth } : undefined,
      });
      assert.equal(res.statusCode, 200, res.body);
      return (res.json().data as Json[]).map((r) => r.name).sort();
    };

    describe('assignments', () => {
      test('add makes a ToDo per assignee, keeps _assign in step and answers the open assignments', async () => {
        const task = await insertDoc(t, TASK, { subject: 'write report' });
        const res = await callMethod(
          t,
          'POST',
          'frappe.desk.form.assign_to.add',
          { doctype: TASK, name: task.name, assign_to: JSON.stringify([ALICE, BOB]), description: 'please' },
          alice,
        );
        const answer = messageOf(res) as Json[];
        assert.deepEqual(answer.map((a) => a.owner).sort(), [ALICE, BOB]);
        assert.ok(answer.every((a) => typeof a.name === 'string'));
        assert.deepEqual(JSON.parse(String(await column(task.name, '_assign'))).sort(), [ALICE, BOB]);
        const todo = (await t.request({ method: 'GET', url: `/api/resource/ToDo/${answer[0].name}` })).json().data;
        assert.equal(todo.reference_type, TASK);
        assert.equal(todo.reference_name, task.name);
        assert.equal(todo.assigned_by, ALICE);
        assert.equal(todo.description, 'please');
        assert.equal(todo.status, 'Open');
        // The list filter of the reference's sidebar.
        assert.deepEqual(await listNames([['_assign', 'like', `%${BOB}%`]], bob), [task.name]);
        assert.deepEqual(
          messageOf(await callMethod(t, 'GET', 'fw.desk.form.assign_to.get', { doctype: TASK, name: task.name }, bob))
            .map((a: Json) => a.owner)
            .sort(),
          [ALICE, BOB],
        );
        // Assigning again is a message, not a second ToDo.
        const again = await callMethod(t, 'POST', 'fw.desk.form.assign_to.add', { doctype: TASK, name: task.name, assign_to: [BOB] }, alice);
        assert.equal(again.statusCode, 200, again.body);
        assert.match(successMessages(again.json()).join(' '), /Already in the following Users ToDo list/);
        assert.equal((messageOf(await callMethod(t, 'GET', 'fw.desk.form.assign_to.get', { doctype: TASK, name: task.name }, bob)) as Json[]).length, 2);
      });

      test('an assignment leaves the assignee a Notification Log from the assigner; a refused one leaves none', async () => {
        const logsOf = async (auth: string) =>
          (messageOf(await callMethod(t, 'GET', 'frappe.desk.doctype.notification_log.notification_log.get_notification_logs', {}, auth)) as Json)
            .notification_logs as Json[];
        const task = await insertDoc(t, TASK, { subject: 'notify me' });
        const before = (await logsOf(bob)).length;
        const res = await callMethod(t, 'POST', 'frappe.desk.form.assign_to.add', { doctype: TASK, name: task.name, assign_to: [BOB] }, alice);
        assert.equal(res.statusCode, 200, res.body);
        const logs = (await logsOf(bob)).filter((l) => l.document_name === task.name);
        assert.equal(logs.length, 1);
        assert.equal(logs[0].type, 'Assignment');
        assert.equal(logs[0].document_type, TASK);
        assert.match(String(logs[0].subject), new RegExp(`${ALICE} assigned`));
        assert.equal((await logsOf(bob)).length, before + 1);
        // The outsider may not read the document: refused, and nobody is told anything.
        const outsiderBefore = (await logsOf(outsider)).length;
        const refused = await callMethod(t, 'POST', 'frappe.desk.form.assign_to.add', { doctype: TASK, name: task.name, assign_to: [OUTSIDER] }, alice);
        assert.equal(refused.statusCode, 403, refused.body);
        assert.equal((await logsOf(outsider)).length, outsiderBefore);
      });

      test('remove and close end one assignment and _assign follows; a third user may not end it', async () => {
        const task = await insertDoc(t, TASK, { subject: 'two people' });
        await callMethod(t, 'POST', 'fw.desk.form.assign_to.add', { doctype: TASK, name: task.name, assign_to: [ALICE, BOB] });
        // Bob neither holds nor gave Alice's ToDo: refused, nothing changes.
        assertError(
          await callMethod(t, 'POST', 'fw.desk.form.assign_to.remove', { doctype: TASK, name: task.name, assign_to: ALICE }, bob),
          403,
          'PermissionError',
        );
        assert.deepEqual(JSON.parse(String(await column(task.name, '_assign'))).sort(), [ALICE, BOB]);
        const left = messageOf(
          await callMethod(t, 'POST', 'fw.desk.form.assign_to.remove', { doctype: TASK, name: task.name, assign_to: ALICE }, alice),
        ) as Json[];
        assert.deepEqual(
          left.map((a) => a.owner),
          [BOB],
        );
        assert.deepEqual(JSON.parse(String(await column(task.name, '_assign'))), [BOB]);
        const closed = messageOf(await callMethod(t, 'POST', 'fw.desk.form.assign_to.close', { doctype: TASK, name: task.name, assign_to: BOB }, bob));
        assert.deepEqual(closed, []);
        assert.deepEqual(JSON.parse(String(await column(task.name, '_assign'))), []);
        assert.deepEqual(
          await listNames([
            ['_assign', 'like', `%${BOB}%`],
            ['name', '=', task.name],
          ]),
          [],
        );
      });

      test('_assign follows ToDos changed or deleted through the resource API too', async () => {
        const task = await insertDoc(t, TASK, { subject: 'by resource' });
        const [first] = messageOf(
          await callMethod(t, 'POST', 'fw.desk.form.assign_to.add', { doctype: TASK, name: task.name, assign_to: [ALICE, BOB] }),
        ) as Json[];
        const closed = await t.request({
          method: 'PUT',
          url: `/api/resource/ToDo/${first.name}`,
          body: { status: 'Closed' },
          headers: { authorization: alice },
        });
        assert.equal(closed.statusCode, 200, closed.body);
        assert.deepEqual(JSON.parse(String(await column(task.name, '_assign'))), [BOB]);
        const [second] = messageOf(await callMethod(t, 'GET', 'fw.desk.form.assign_to.get', { doctype: TASK, name: task.name })) as Json[];
        const gone = await t.request({ method: 'DELETE', url: `/api/resource/ToDo/${second.name}` });
        assert.ok(gone.statusCode === 200 || gone.statusCode === 202, gone.body);
        assert.deepEqual(JSON.parse(String(await column(task.name, '_assign'))), []);
      });

      test('assigning to a user who may not read the document, an unknown user, or a document the caller cannot read is refused with nothing changed', async () => {
        const task = await insertDoc(t, TASK, { subject: 'secret' });
        const todos = await storedCount(t, 'ToDo');
        assertError(
          await callMethod(t, 'POST', 'fw.desk.form.assign_to.add', { doctype: TASK, name: task.name, assign_to: [BOB, OUTSIDER] }, alice),
          403,
          'PermissionError',
        );
        assertError(
          await callMethod(t, 'POST', 'fw.desk.form.assign_to.add', { doctype: TASK, name: task.name, assign_to: ['nobody@example.com'] }, alice),
          417,
          'ValidationError',
        );
        assertError(
          await callMethod(t, 'POST', 'fw.desk.form.assign_to.add', { doctype: TASK, name: task.name, assign_to_me: 1 }, outsider),
          403,
          'PermissionError',
        );
        assertError(await callMethod(t, 'GET', 'fw.desk.form.assign_to.get', { doctype: TASK, name: task.name }, outsider), 403, 'PermissionError');
        assertError(
          await callMethod(t, 'POST', 'fw.desk.form.assign_to.add', { doctype: TASK, name: task.name, assign_to: [] }, alice),
          417,
          'FrappeTypeError',
        );
        assertError(
          await callMethod(t, 'GET', 'fw.desk.form.assign_to.add', { doctype: TASK, name: task.name, assign_to: [BOB] }, alice),
          403,
          'PermissionError',
        );
        assert.equal(await storedCount(t, 'ToDo'), todos);
        assert.equal(await column(task.name, '_assign'), null);
      });

      test("an assignment fires the document's on_change webhook after commit, carrying _assign", async () => {
        const hook = await t.request({
          method: 'POST',
          url: '/api/resource/Webhook',
          body: {
            webhook_doctype: TASK,
            webhook_docevent: 'on_change',
            request_url: receiver.url(),
            webhook_json: '{"name": "{{ doc.name }}", "assign": "{{ doc._assign }}"}',
          },
        });
        assert.equal(hook.statusCode, 200, hook.body);
        const task = await insertDoc(t, TASK, { subject: 'hooked' });
        const before = receiver.received.length;
        await callMethod(t, 'POST', 'fw.desk.form.assign_to.add', { doctype: TASK, name: task.name, assign_to: [BOB] }, alice);
        await worker.runDue();
        const bodies = receiver.received.slice(before).map((r) => JSON.parse(r.body));
        assert.deepEqual(bodies, [{ name: task.name, assign: JSON.stringify([BOB]) }]);
        // A refused assignment sends nothing.
        assertError(
          await callMethod(t, 'POST', 'fw.desk.form.assign_to.add', { doctype: TASK, name: task.name, assign_to: [OUTSIDER] }, alice),
          403,
          'PermissionError',
        );
        await worker.runDue();
        assert.equal(receiver.received.length, before + 1);
        const off = await t.request({ method: 'PUT', url: `/api/resource/Webhook/${hook.json().data.name}`, body: { enabled: 0 } });
        assert.equal(off.statusCode, 200, off.body);
      });
      test("an assignment publishes doc_update to the document's subscribers after commit", async () => {
        const task = await insertDoc(t, TASK, { subject: 'live' });
        const s = await connectSocket(await listenOnce(t), { headers: { authorization: bob } });
        try {
          assert.deepEqual(await s.ask('doc_subscribe', TASK, task.name), { ok: true });
          await callMethod(t, 'POST', 'fw.desk.form.assign_to.add', { doctype: TASK, name: task.name, assign_to: [BOB] }, alice);
          const update = await s.next('doc_update', (m) => m.name === task.name);
          assert.equal(update.doctype, TASK);
          assert.equal(update.action, 'update');
          const updates = () => s.received.filter((r) => r.event === 'doc_update').length;
          const before = updates();
          await callMethod(t, 'POST', 'fw.desk.like.toggle_like', { doctype: TASK, name: task.name, add: 'Yes' }, alice);
          await s.next('doc_update', (m) => m.name === task.name && updates() > before);
        } finally {
          s.close();
        }
      });
    });

    describe('tags', () => {
      test('add_tag and remove_tag keep Tag Link and _user_tags in step; get_tags lists them; _user_tags filters lists', async () => {
        const task = await insertDoc(t, TASK, { subject: 'tag me' });
        assert.equal(
          messageOf(await callMethod(t, 'POST', 'frappe.desk.doctype.tag.tag.add_tag', { tag: ' urgent ', dt: TASK, dn: task.name }, alice)),
          'urgent',
        );
        await callMethod(t, 'POST', 'fw.desk.doctype.tag.tag.add_tag', { tag: 'blue', dt: TASK, dn: task.name }, bob);
        await callMethod(t, 'POST', 'fw.desk.doctype.tag.tag.add_tag', { tag: 'blue', dt: TASK, dn: task.name }, bob);
        assert.equal(await column(task.name, '_user_tags'), ',urgent,blue');
        assert.deepEqual(await listNames([['_user_tags', 'like', '%urgent%']], alice), [task.name]);
        assert.deepEqual(messageOf(await callMethod(t, 'GET', 'fw.desk.doctype.tag.tag.get_tags', { doctype: TASK, txt: 'UR' }, alice)), ['urgent']);
        const info = (await callMethod(t, 'GET', 'fw.desk.form.load.getdoc', { doctype: TASK, name: task.name }, alice)).json().docinfo;
        assert.equal(info.tags, 'urgent,blue');
        await callMethod(t, 'POST', 'fw.desk.doctype.tag.tag.remove_tag', { tag: 'urgent', dt: TASK, dn: task.name }, alice);
        assert.equal(await column(task.name, '_user_tags'), ',blue');
        assert.deepEqual(await listNames([['_user_tags', 'like', '%urgent%']], alice), []);
        const links = (
          await t.request({
            method: 'GET',
            url: `/api/resource/Tag Link?filters=${encodeURIComponent(JSON.stringify({ document_name: task.name }))}&fields=["tag"]`,
          })
        ).json().data;
        assert.deepEqual(
          links.map((l: Json) => l.tag),
          ['blue'],
        );
      });

      test('a tagged and followed document can still be deleted, and its Tag Links and follows go with it', async () => {
        const task = await insertDoc(t, TASK, { subject: 'to delete' });
        await callMethod(t, 'POST', 'fw.desk.doctype.tag.tag.add_tag', { tag: 'gone', dt: TASK, dn: task.name });
        await callMethod(t, 'POST', 'fw.desk.form.document_follow.follow_document', { doctype: TASK, doc_name: task.name });
        const res = await t.request({ method: 'DELETE', url: resourceUrl(TASK, task.name) });
        assert.ok(res.statusCode === 200 || res.statusCode === 202, res.body);
        const left = (doctype: string, filters: unknown) =>
          t
            .request({ method: 'GET', url: `/api/resource/${doctype}?filters=${encodeURIComponent(JSON.stringify(filters))}` })
            .then((r) => r.json().data.length);
        assert.equal(await left('Tag Link', { document_name: task.name }), 0);
        assert.equal(await left('Document Follow', { ref_docname: task.name }), 0);
      });

      test('tagging a document the caller may not read, or a bad tag, is refused with nothing changed', async () => {
        const task = await insertDoc(t, TASK, { subject: 'hidden' });
        const links = await storedCount(t, 'Tag Link');
        assertError(await callMethod(t, 'POST', 'fw.desk.doctype.tag.tag.add_tag', { tag: 'spy', dt: TASK, dn: task.name }, outsider), 403, 'PermissionError');
        assertError(await callMethod(t, 'POST', 'fw.desk.doctype.tag.tag.add_tag', { tag: 'a,b', dt: TASK, dn: task.name }, alice), 417, 'FrappeTypeError');
        assertError(await callMethod(t, 'POST', 'fw.desk.doctype.tag.tag.add_tag', { tag: '  ', dt: TASK, dn: task.name }, alice), 417, 'FrappeTypeError');
        assertError(await callMethod(t, 'POST', 'fw.desk.doctype.tag.tag.add_tag', { tag: 'x', dt: TASK, dn: 'no-such' }, alice), 404, 'DoesNotExistError');
        assertError(await callMethod(t, 'GET', 'fw.desk.doctype.tag.tag.get_tags', { doctype: TASK }, outsider), 403, 'PermissionError');
        assert.equal(await storedCount(t, 'Tag Link'), links);
        assert.equal(await column(task.name, '_user_tags'), null);
        assertError(await t.request({ method: 'GET', url: '/api/resource/Tag Link', headers: { authorization: alice } }), 403, 'PermissionError');
      });
    });

    describe('follows and likes', () => {
      test('follow_document and unfollow_document; docinfo names followers and user_info', async () => {
        const task = await insertDoc(t, TASK, { subject: 'follow me' });
        const follow = messageOf(
          await callMethod(t, 'POST', 'frappe.desk.form.document_follow.follow_document', { doctype: TASK, doc_name: task.name, user: ALICE }, alice),
        );
        assert.equal(follow.ref_doctype, TASK);
        assert.equal(follow.ref_docname, task.name);
        assert.equal(follow.user, ALICE);
        const again = messageOf(await callMethod(t, 'POST', 'fw.desk.form.document_follow.follow_document', { doctype: TASK, doc_name: task.name }, alice));
        assert.equal(again.name, follow.name);
        const info = (await callMethod(t, 'GET', 'fw.desk.form.load.getdoc', { doctype: TASK, name: task.name }, alice)).json().docinfo;
        assert.equal(info.is_document_followed, true);
        assert.deepEqual(info.followed_by, [ALICE]);
        assert.equal(info.user_info[ALICE].fullname, 'Alice');
        assert.equal(info.user_info.Administrator.name, 'Administrator');
        assert.equal(
          (await callMethod(t, 'GET', 'fw.desk.form.load.getdoc', { doctype: TASK, name: task.name }, bob)).json().docinfo.is_document_followed,
          false,
        );
        assert.equal(
          messageOf(await callMethod(t, 'POST', 'fw.desk.form.document_follow.unfollow_document', { doctype: TASK, doc_name: task.name, user: ALICE }, alice)),
          1,
        );
        assert.equal(
          messageOf(await callMethod(t, 'POST', 'fw.desk.form.document_follow.unfollow_document', { doctype: TASK, doc_name: task.name, user: ALICE }, alice)),
          0,
        );
      });

      test('following a hidden document, or for someone else, is refused with nothing changed', async () => {
        const task = await insertDoc(t, TASK, { subject: 'private' });
        const follows = await storedCount(t, 'Document Follow');
        assertError(
          await callMethod(t, 'POST', 'fw.desk.form.document_follow.follow_document', { doctype: TASK, doc_name: task.name }, outsider),
          403,
          'PermissionError',
        );
        assertError(
          await callMethod(t, 'POST', 'fw.desk.form.document_follow.follow_document', { doctype: TASK, doc_name: task.name, user: BOB }, alice),
          403,
          'PermissionError',
        );
        // Even the Administrator cannot make someone follow what they may not read.
        assertError(
          await callMethod(t, 'POST', 'fw.desk.form.document_follow.follow_document', { doctype: TASK, doc_name: task.name, user: OUTSIDER }),
          403,
          'PermissionError',
        );
        await callMethod(t, 'POST', 'fw.desk.form.document_follow.follow_document', { doctype: TASK, doc_name: task.name }, bob);
        assertError(
          await callMethod(t, 'POST', 'fw.desk.form.document_follow.unfollow_document', { doctype: TASK, doc_name: task.name, user: BOB }, alice),
          403,
          'PermissionError',
        );
        assert.equal(await storedCount(t, 'Document Follow'), follows + 1);
      });

      test('toggle_like adds and removes the caller in _liked_by; refused on a hidden document', async () => {
        const task = await insertDoc(t, TASK, { subject: 'like me' });
        assert.equal((await callMethod(t, 'POST', 'frappe.desk.like.toggle_like', { doctype: TASK, name: task.name, add: 'Yes' }, alice)).statusCode, 200);
        await callMethod(t, 'POST', 'fw.desk.like.toggle_like', { doctype: TASK, name: task.name, add: 'Yes' }, bob);
        await callMethod(t, 'POST', 'fw.desk.like.toggle_like', { doctype: TASK, name: task.name, add: 'Yes' }, bob);
        assert.deepEqual(JSON.parse(String(await column(task.name, '_liked_by'))), [ALICE, BOB]);
        await callMethod(t, 'POST', 'fw.desk.like.toggle_like', { doctype: TASK, name: task.name, add: 'No' }, alice);
        assert.deepEqual(JSON.parse(String(await column(task.name, '_liked_by'))), [BOB]);
        assertError(await callMethod(t, 'POST', 'fw.desk.like.toggle_like', { doctype: TASK, name: task.name, add: 'Yes' }, outsider), 403, 'PermissionError');
        assertError(await callMethod(t, 'POST', 'fw.desk.like.toggle_like', { doctype: TASK, name: task.name, add: 'Maybe' }, alice), 417, 'FrappeTypeError');
        assert.deepEqual(JSON.parse(String(await column(task.name, '_liked_by'))), [BOB]);
      });
    });

    describe('docinfo and previous/next', () => {
      test('getdoc docinfo lists open assignments with their owners, also to a reader who holds none', async () => {
        const task = await insertDoc(t, TASK, { subject: 'docinfo' });
        await callMethod(t, 'POST', 'fw.desk.form.assign_to.add', { doctype: TASK, name: task.name, assign_to: [ALICE] });
        const info = (await callMethod(t, 'GET', 'fw.desk.form.load.getdoc', { doctype: TASK, name: task.name }, bob)).json().docinfo;
        assert.deepEqual(
          info.assignments.map((a: Json) => a.owner),
          [ALICE],
        );
        assert.equal(info.tags, '');
        assert.equal(info.user_info[ALICE].fullname, 'Alice');
      });

      test('get_next walks the list order both ways and says when there is no further record', async () => {
        const names: string[] = [];
        for (const rank of [10, 20, 30]) names.push((await insertDoc(t, TASK, { subject: `rank ${rank}`, rank })).name);
        const filters = { subject: ['like', 'rank %'] };
        const next = (value: string, prev: number) =>
          callMethod(t, 'GET', 'frappe.desk.form.utils.get_next', { doctype: TASK, value, prev, filters, sort_field: 'rank', sort_order: 'desc' }, alice);
        assert.equal(messageOf(await next(names[2], 0)), names[1]);
        assert.equal(messageOf(await next(names[1], 0)), names[0]);
        assert.equal(messageOf(await next(names[0], 1)), names[1]);
        const end = await next(names[0], 0);
        assert.equal(end.json().message ?? null, null);
        assert.match(successMessages(end.json()).join(' '), /No further records/);
        assertError(await next('no-such', 0), 404, 'DoesNotExistError');
        assertError(
          await callMethod(t, 'GET', 'fw.desk.form.utils.get_next', { doctype: TASK, value: names[0], prev: 0, sort_field: 'nope' }, alice),
          417,
          'FrappeTypeError',
        );
        assertError(await callMethod(t, 'GET', 'fw.desk.form.utils.get_next', { doctype: TASK, value: names[0], prev: 0 }, outsider), 403, 'PermissionError');
      });
    });
  });
}

/** The texts of a successful answer's `_server_messages` (JSON text of JSON texts). */
function successMessages(body: Json): string[] {
  return (JSON.parse(String(body._server_messages ?? '[]')) as string[]).map((m) => String(JSON.parse(m).message));
}
