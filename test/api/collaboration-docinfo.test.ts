import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { JobWorker } from '../../src/jobs/job-worker.js';
import { QUEUE_METHODS } from '../../src/mail/mail-methods.js';
import { siteJobUnits } from '../../src/site/site-jobs.js';
import { testDialects } from '../helpers/dialects.js';
import { addSinkAccount } from '../helpers/mail-account.js';
import { SmtpSink } from '../helpers/smtp-sink.js';
import { assertError, createDocType, insertDoc, resourceUrl, storedCount, storedRow, uniqueDocTypeName, type Json } from '../helpers/document-api.js';
import { callMethod } from '../helpers/method-calls.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';
import { createUser, tokenFor } from '../helpers/user-sessions.js';

/*
 * The parts of a form's docinfo beyond assignments and tags (docs/collaboration.md "Views",
 * "In docinfo"; docs/mail.md "On a document's form"): the View Log a form opening leaves on a
 * DocType with Track Views, the mails about the document as communications, and the `_comments`
 * column kept in step with the Comments about a document.
 */

for (const dialect of testDialects()) {
  describe(`docinfo views, communications and _comments (${dialect.name})`, () => {
    let t: TestSite;
    let alice: string;
    let outsider: string;
    let sink: SmtpSink;
    let worker: JobWorker;
    const WATCHED = uniqueDocTypeName('Watched Case');
    const PLAIN = uniqueDocTypeName('Plain Case');
    const ALICE = 'docinfo-alice@example.com';
    const OUTSIDER = 'docinfo-outsider@example.com';

    before(async () => {
      t = await startTestSite(dialect);
      sink = await new SmtpSink().start();
      worker = new JobWorker(t.site.jobs, { units: siteJobUnits(t.site) });
      await addSinkAccount(t, sink);
      await insertDoc(t, 'Role', { role_name: 'Case Reader' });
      const permissions = [{ role: 'System Manager' }, { role: 'Case Reader', read: 1, write: 0, create: 0, delete: 0 }];
      await createDocType(t, {
        name: WATCHED,
        track_views: 1,
        fields: [
          { fieldname: 'title', fieldtype: 'Data' },
          { fieldname: 'watcher', fieldtype: 'Data' },
        ],
        permissions,
      });
      await createDocType(t, { name: PLAIN, fields: [{ fieldname: 'title', fieldtype: 'Data' }], permissions });
      await createUser(t, { email: ALICE, password: 'Alice-Secret-42', roles: ['Case Reader'], firstName: 'Alice' });
      await createUser(t, { email: OUTSIDER, password: 'Outsider-Secret-42', firstName: 'Otto' });
      alice = await tokenFor(t, ALICE);
      outsider = await tokenFor(t, OUTSIDER);
    });
    after(async () => {
      await sink.stop();
      await t.close();
    });

    const getdoc = (doctype: string, name: string, auth?: string) => callMethod(t, 'GET', 'fw.desk.form.load.getdoc', { doctype, name }, auth);
    const viewCount = async (doctype: string, name: string) => {
      const res = await t.request({
        method: 'GET',
        url: `${resourceUrl('View Log')}?fields=["name"]&limit_page_length=0&filters=${encodeURIComponent(JSON.stringify({ reference_doctype: doctype, reference_name: name }))}`,
      });
      assert.equal(res.statusCode, 200, res.body);
      return (res.json().data as Json[]).length;
    };

    describe('views', () => {
      test('opening a form of a DocType with Track Views records a View Log; docinfo lists the views newest first with user_info', async () => {
        const doc = await insertDoc(t, WATCHED, { title: 'seen' });
        // A POST opening is counted in its own answer, as the reference's add_viewed before docinfo.
        const first = await callMethod(t, 'POST', 'fw.desk.form.load.getdoc', { doctype: WATCHED, name: doc.name }, alice);
        assert.equal(first.statusCode, 200, first.body);
        assert.deepEqual(
          first.json().docinfo.views.map((v: Json) => v.owner),
          [ALICE],
          'the opening itself is counted',
        );
        // A GET is a read-only unit: its view is stored once the answer's read ended.
        const second = await getdoc(WATCHED, doc.name);
        assert.equal(second.statusCode, 200, second.body);
        assert.deepEqual(
          second.json().docinfo.views.map((v: Json) => v.owner),
          [ALICE],
        );
        assert.equal(await viewCount(WATCHED, doc.name), 2);
        const third = (await getdoc(WATCHED, doc.name, alice)).json().docinfo;
        assert.deepEqual(
          third.views.map((v: Json) => v.owner),
          ['Administrator', ALICE],
        );
        assert.deepEqual(Object.keys(third.views[0]).sort(), ['creation', 'name', 'owner']);
        assert.equal(third.user_info[ALICE].fullname, 'Alice');
        assert.equal(third.user_info.Administrator.name, 'Administrator');
      });

      test('a DocType without Track Views records nothing and answers no views', async () => {
        const doc = await insertDoc(t, PLAIN, { title: 'unseen' });
        const before = await storedCount(t, 'View Log');
        const info = (await getdoc(PLAIN, doc.name, alice)).json().docinfo;
        assert.deepEqual(info.views, []);
        assert.equal(await storedCount(t, 'View Log'), before);
      });

      test('a refused opening records no view; View Logs are not readable to ordinary users; a deleted document takes its views along', async () => {
        const doc = await insertDoc(t, WATCHED, { title: 'hidden' });
        const before = await storedCount(t, 'View Log');
        assertError(await getdoc(WATCHED, doc.name, outsider), 403, 'PermissionError');
        assertError(await getdoc(WATCHED, 'no-such-case', alice), 404, 'DoesNotExistError');
        assert.equal(await storedCount(t, 'View Log'), before, 'nothing recorded for a refused or missing form');
        await getdoc(WATCHED, doc.name, alice);
        const listed = await t.request({ method: 'GET', url: resourceUrl('View Log'), headers: { authorization: alice } });
        assertError(listed, 403, 'PermissionError');
        const deleted = await t.request({ method: 'DELETE', url: resourceUrl(WATCHED, doc.name) });
        assert.equal(deleted.statusCode, 202, deleted.body);
        assert.equal(await viewCount(WATCHED, doc.name), 0);
      });
    });

    describe('communications', () => {
      test('mails queued about the document are its communications: To and Cc answered, Bcc and body never', async () => {
        const notification = await t.request({
          method: 'POST',
          url: '/api/resource/Notification',
          body: {
            name: `Case mail ${dialect.name}`,
            document_type: WATCHED,
            event: 'New',
            channel: 'Email',
            subject: 'New case {{ doc.title }}',
            message: '<p>secret body {{ doc.title }}</p>',
            recipients: [{ receiver_by_document_field: 'watcher', cc: 'carol@example.com', bcc: 'hidden@example.com' }],
          },
        });
        assert.equal(notification.statusCode, 200, notification.body);
        const doc = await insertDoc(t, WATCHED, { title: 'mailed', watcher: 'watcher@example.com' });
        const quiet = await insertDoc(t, WATCHED, { title: 'quiet' });
        // The notification's job composes the mail after the commit (docs/mail.md "Notifications"); with
        // sending suspended meanwhile, the mail stays queued.
        const toggle = (enable: 0 | 1) => t.request({ method: 'POST', url: `/api/method/${QUEUE_METHODS}.toggle_sending`, body: { enable } });
        assert.equal((await toggle(0)).statusCode, 200);
        await worker.runDue();
        const info = (await getdoc(WATCHED, doc.name, alice)).json().docinfo;
        assert.equal(info.communications.length, 1, JSON.stringify(info.communications));
        const [mail] = info.communications;
        assert.equal(mail.communication_type, 'Communication');
        assert.equal(mail.communication_medium, 'Email');
        assert.equal(mail.sent_or_received, 'Sent');
        assert.equal(mail.subject, 'New case mailed');
        assert.equal(mail.recipients, 'watcher@example.com');
        assert.equal(mail.cc, 'carol@example.com');
        assert.equal(mail.bcc, null);
        assert.equal(mail.content, null);
        assert.equal(mail.delivery_status, 'Sending', 'queued, not sent yet');
        assert.equal(mail.reference_doctype, WATCHED);
        assert.equal(mail.reference_name, doc.name);
        assert.ok(!JSON.stringify(info).includes('hidden@example.com'), 'Bcc never reaches readers');
        assert.ok(!JSON.stringify(info).includes('secret body'), 'the body is not answered');
        assert.equal(mail.sender, 'Main <robot@example.com>');
        assert.equal(mail.sender_full_name, 'Main');
        assert.equal((await toggle(1)).statusCode, 200);
        await worker.runDue();
        assert.ok(sink.received.some((m) => m.parsed.subject === 'New case mailed'));
        const sent = (await getdoc(WATCHED, doc.name, alice)).json().docinfo.communications;
        assert.equal(sent[0].delivery_status, 'Sent');
        const other = (await getdoc(WATCHED, quiet.name, alice)).json().docinfo;
        assert.deepEqual(
          other.communications.map((c: Json) => c.subject),
          ['New case quiet'],
          'each document sees only its own mail',
        );
        assertError(await getdoc(WATCHED, doc.name, outsider), 403, 'PermissionError');
      });

      test('a document no mail names has no communications', async () => {
        const doc = await insertDoc(t, PLAIN, { title: 'no mail' });
        assert.deepEqual((await getdoc(PLAIN, doc.name)).json().docinfo.communications, []);
      });
    });

    describe('follows', () => {
      test('a follower hears of each change by someone else as a Notification Log; after unfollowing, nothing', async () => {
        const logs = async () =>
          (await callMethod(t, 'GET', 'fw.desk.doctype.notification_log.notification_log.get_notification_logs', { limit: 50 }, alice)).json().message
            .notification_logs as Json[];
        const doc = await insertDoc(t, PLAIN, { title: 'followed' });
        const followed = await callMethod(t, 'POST', 'fw.desk.form.document_follow.follow_document', { doctype: PLAIN, doc_name: doc.name }, alice);
        assert.equal(followed.statusCode, 200, followed.body);
        const before = (await logs()).filter((l) => l.document_name === doc.name).length;
        const changed = await t.request({ method: 'PUT', url: resourceUrl(PLAIN, doc.name), body: { title: 'followed, changed' } });
        assert.equal(changed.statusCode, 200, changed.body);
        const mine = (await logs()).filter((l) => l.document_name === doc.name);
        assert.equal(mine.length, before + 1);
        assert.equal(mine[0].type, 'Alert');
        assert.equal(mine[0].from_user, 'Administrator');
        assert.equal(mine[0].document_type, PLAIN);
        await callMethod(t, 'POST', 'fw.desk.form.document_follow.unfollow_document', { doctype: PLAIN, doc_name: doc.name }, alice);
        await t.request({ method: 'PUT', url: resourceUrl(PLAIN, doc.name), body: { title: 'followed, changed again' } });
        assert.equal((await logs()).filter((l) => l.document_name === doc.name).length, before + 1, 'no notice once unfollowed');
      });
    });

    describe('_comments', () => {
      const comments = async (doctype: string, name: string) => {
        const raw = (await storedRow(t, doctype, name))?._comments;
        return raw ? (JSON.parse(String(raw)) as Json[]) : [];
      };
      const comment = async (doctype: string, name: string, content: string, auth?: string) => {
        const res = await t.request({
          method: 'POST',
          url: resourceUrl('Comment'),
          body: { comment_type: 'Comment', reference_doctype: doctype, reference_name: name, content },
          headers: auth ? { authorization: auth } : undefined,
        });
        return res;
      };

      test('adding, editing and deleting Comments keeps the latest in _comments, cut to 100 characters; a list can select it', async () => {
        const doc = await insertDoc(t, PLAIN, { title: 'discussed' });
        const modified = (await storedRow(t, PLAIN, doc.name))?.modified;
        const first = await comment(PLAIN, doc.name, 'First!', alice);
        assert.equal(first.statusCode, 200, first.body);
        const long = await comment(PLAIN, doc.name, 'x'.repeat(150));
        assert.equal(long.statusCode, 200, long.body);
        assert.deepEqual(await comments(PLAIN, doc.name), [
          { comment: 'First!', by: ALICE, name: first.json().data.name },
          { comment: `${'x'.repeat(97)}...`, by: 'Administrator', name: long.json().data.name },
        ]);
        assert.equal((await storedRow(t, PLAIN, doc.name))?.modified, modified, 'the column does not touch modified');

        const edited = await t.request({ method: 'PUT', url: resourceUrl('Comment', first.json().data.name), body: { content: 'First, edited' } });
        assert.equal(edited.statusCode, 200, edited.body);
        assert.deepEqual(
          (await comments(PLAIN, doc.name)).map((c) => c.comment),
          ['First, edited', `${'x'.repeat(97)}...`],
        );
        const removed = await t.request({ method: 'DELETE', url: resourceUrl('Comment', long.json().data.name) });
        assert.equal(removed.statusCode, 202, removed.body);
        assert.deepEqual(
          (await comments(PLAIN, doc.name)).map((c) => c.comment),
          ['First, edited'],
        );

        const listed = await t.request({
          method: 'GET',
          url: `${resourceUrl(PLAIN)}?fields=${encodeURIComponent('["name","_comments"]')}&filters=${encodeURIComponent(JSON.stringify([['_comments', 'like', '%edited%']]))}`,
          headers: { authorization: alice },
        });
        assert.equal(listed.statusCode, 200, listed.body);
        assert.deepEqual(
          listed.json().data.map((r: Json) => r.name),
          [doc.name],
        );
      });

      test('a Comment refused on a document the caller may not read changes no _comments; other comment types are not kept', async () => {
        const doc = await insertDoc(t, PLAIN, { title: 'private' });
        const refused = await comment(PLAIN, doc.name, 'let me in', outsider);
        assert.equal(refused.statusCode, 403, refused.body);
        assert.equal((await storedRow(t, PLAIN, doc.name))?._comments ?? null, null);
        const info = await t.request({
          method: 'POST',
          url: resourceUrl('Comment'),
          body: { comment_type: 'Info', reference_doctype: PLAIN, reference_name: doc.name, content: 'an info line' },
        });
        assert.equal(info.statusCode, 200, info.body);
        assert.equal((await storedRow(t, PLAIN, doc.name))?._comments ?? null, null);
      });
    });
  });
}
