import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ValidationError } from '../../src/errors/index.js';
import { JobWorker } from '../../src/jobs/job-worker.js';
import { siteJobUnits } from '../../src/site/site-jobs.js';
import { DATE_NOTIFICATIONS_JOB } from '../../src/mail/notification-dates.js';
import { NOTIFY_JOB } from '../../src/mail/notifications.js';
import { JOB_TABLE } from '../../src/jobs/job-table.js';
import { NOTIFY_OUTBOX } from '../../src/mail/notify-outbox-table.js';
import { testDialects } from '../helpers/dialects.js';
import { signUp, type SignedInUser } from '../helpers/file-api.js';
import { connectSocket, listenOnce } from '../helpers/realtime-client.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';
import { addSinkAccount } from '../helpers/mail-account.js';
import { SmtpSink } from '../helpers/smtp-sink.js';

const LOGS = '/api/method/fw.desk.doctype.notification_log.notification_log';

/*
 * Notifications (docs/mail.md "Notifications"): events New and Value Change, a condition, the
 * Email and System Notification channels, Notification Log methods, and the rule that a
 * recipient who may not read the document gets nothing.
 */
for (const dialect of testDialects()) {
  describe(`notifications (${dialect.name})`, () => {
    let t: TestSite;
    let sink: SmtpSink;
    let worker: JobWorker;
    let boss: SignedInUser;
    let clerk: SignedInUser;
    before(async () => {
      t = await startTestSite(dialect);
      sink = await new SmtpSink().start();
      worker = new JobWorker(t.site.jobs, { units: siteJobUnits(t.site) });
      await addSinkAccount(t, sink);
      assert.equal((await t.request({ method: 'POST', url: '/api/resource/Role', body: { role_name: 'Staff' } })).statusCode, 200);
      const dt = await t.request({
        method: 'POST',
        url: '/api/resource/DocType',
        body: {
          name: 'Secret Note',
          fields: [
            { fieldname: 'title', label: 'Title', fieldtype: 'Data' },
            { fieldname: 'priority', label: 'Priority', fieldtype: 'Data' },
            { fieldname: 'status', label: 'Status', fieldtype: 'Data' },
            { fieldname: 'watcher', label: 'Watcher', fieldtype: 'Data' },
            { fieldname: 'due', label: 'Due', fieldtype: 'Date' },
            { fieldname: 'meeting', label: 'Meeting', fieldtype: 'Datetime' },
          ],
          permissions: [{ role: 'System Manager', read: 1, write: 1, create: 1, delete: 1 }],
        },
      });
      assert.equal(dt.statusCode, 200, dt.body);
      boss = await signUp(t, 'boss@example.com', ['System Manager']);
      clerk = await signUp(t, 'clerk@example.com', ['Staff']);
      // Refuses after the notifications fired inside the transaction: nothing of it may be heard.
      t.site.hooks.on('Secret Note', 'on_change', async ({ doc }, next) => {
        if (doc.title === 'refuse late') throw new ValidationError('refused after the write');
        await next();
      });
    });
    after(async () => {
      await sink.stop();
      await t.close();
    });

    const note = async (body: Record<string, unknown>) => {
      const res = await t.request({ method: 'POST', url: '/api/resource/Secret Note', body });
      assert.equal(res.statusCode, 200, res.body);
      return res.json().data as Record<string, any>;
    };

    test('a Notification that cannot work is refused: print attachment, bad condition, unknown field', async () => {
      for (const extra of [
        { attach_print: 1 },
        { condition: 'doc.priority ==' },
        { recipients: [{ receiver_by_document_field: 'nope' }] },
        { subject: '{{ doc.title | shell }}' },
      ]) {
        const res = await t.request({
          method: 'POST',
          url: '/api/resource/Notification',
          body: { name: 'Bad', document_type: 'Secret Note', event: 'New', subject: 'x', ...extra },
        });
        assert.equal(res.statusCode, 417, res.body);
      }
      assert.equal((await t.request({ method: 'GET', url: '/api/resource/Notification/Bad' })).statusCode, 404);
    });

    test('Email on New with a condition: readers get the mail, a user who may not read the document gets nothing, a plain address does', async () => {
      const res = await t.request({
        method: 'POST',
        url: '/api/resource/Notification',
        body: {
          name: 'Urgent notes',
          document_type: 'Secret Note',
          event: 'New',
          channel: 'Email',
          condition: 'doc.priority == "High"',
          subject: 'Urgent: {{ doc.title }}',
          message: '<p>{{ doc.title }} needs you.</p>',
          recipients: [{ receiver_by_role: 'System Manager' }, { receiver_by_role: 'Staff' }, { receiver_by_document_field: 'watcher' }],
        },
      });
      assert.equal(res.statusCode, 200, res.body);
      await note({ title: 'Quiet one', priority: 'Low', watcher: 'outside@example.com' });
      const urgent = await note({ title: 'Tom & Jerry', priority: 'High', watcher: 'clerk@example.com' });
      const external = await note({ title: 'Call back', priority: 'High', watcher: 'outside@example.com' });
      await worker.runDue();
      const subjects = (address: string) =>
        sink.received
          .filter((m) => m.to.includes(address))
          .map((m) => m.parsed.subject)
          .sort();
      assert.deepEqual(subjects('boss@example.com'), ['Urgent: Call back', 'Urgent: Tom & Jerry']);
      assert.deepEqual(subjects('clerk@example.com'), [], 'the clerk may not read Secret Notes');
      assert.deepEqual(subjects('outside@example.com'), ['Urgent: Call back']);
      const mail = sink.received.find((m) => m.parsed.subject === 'Urgent: Tom & Jerry')!;
      assert.match(String(mail.parsed.html), /Tom &amp; Jerry needs you/);
      const queued = await t.request({
        method: 'GET',
        url: `/api/resource/Email Queue?fields=["reference_name"]&filters=[["reference_doctype","=","Secret Note"]]`,
      });
      assert.deepEqual(
        queued
          .json()
          .data.map((r: any) => r.reference_name)
          .sort(),
        [external.name, urgent.name].sort(),
      );
    });

    test('an Email notification is composed by a job written after the commit: a rolled-back write leaves none, a Notification disabled before the job sends nothing', async () => {
      const res = await t.request({
        method: 'POST',
        url: '/api/resource/Notification',
        body: {
          name: 'Deferred notes',
          document_type: 'Secret Note',
          event: 'New',
          channel: 'Email',
          condition: 'doc.priority == "Deferred"',
          subject: 'Deferred {{ doc.title }}',
          message: '<p>{{ doc.title }}</p>',
          recipients: [{ cc: 'deferred@example.com' }],
        },
      });
      assert.equal(res.statusCode, 200, res.body);
      await worker.runDue();
      // The write leaves an outbox row; a batch right after its commit writes the job (flushSources waits for it).
      const jobsFor = async () => {
        await t.site.jobs.flushSources();
        return t.site.db.read((q) =>
          q.all<{ n: number }>(
            t.site.db.dialect.builder
              .selectFrom(JOB_TABLE)
              .select((eb) => eb.fn.countAll().as('n'))
              .where('handler', '=', NOTIFY_JOB)
              .where('status', '=', 'queued')
              .compile(),
          ),
        );
      };
      const refused = await t.request({ method: 'POST', url: '/api/resource/Secret Note', body: { title: 'refuse late', priority: 'Deferred' } });
      assert.equal(refused.statusCode, 417, refused.body);
      assert.equal(Number((await jobsFor())[0]!.n), 0, 'a rolled-back write leaves no notify job');
      await note({ title: 'first', priority: 'Deferred' });
      assert.equal(Number((await jobsFor())[0]!.n), 1, 'the write left one notify job and no mail yet');
      await worker.runDue();
      assert.deepEqual(
        sink.received.filter((m) => m.to.includes('deferred@example.com')).map((m) => m.parsed.subject),
        ['Deferred first'],
      );
      await note({ title: 'second', priority: 'Deferred' });
      const off = await t.request({ method: 'PUT', url: '/api/resource/Notification/Deferred notes', body: { enabled: 0 } });
      assert.equal(off.statusCode, 200, off.body);
      await worker.runDue();
      assert.deepEqual(
        sink.received.filter((m) => m.to.includes('deferred@example.com')).map((m) => m.parsed.subject),
        ['Deferred first'],
        'disabled before its job ran: nothing more is sent',
      );
    });

    test('a match whose batch never ran (its process killed after the commit) becomes a notify job at the next sweep, run as its writer', async () => {
      const { db } = t.site;
      const queuedAs = () =>
        db.read((q) =>
          q.all<{ run_as: string }>(
            db.dialect.builder.selectFrom(JOB_TABLE).select('run_as').where('handler', '=', NOTIFY_JOB).where('args', 'like', '%Orphaned notes%').compile(),
          ),
        );
      // What a process killed between its commit and its batch leaves behind: the committed outbox row.
      const entry = { notification: 'Orphaned notes', doctype: 'Secret Note', doc: { name: 'orphan' }, user: 'Administrator' };
      await db.transaction((q) =>
        q.run(
          db.dialect.builder
            .insertInto(NOTIFY_OUTBOX)
            .values({ name: '0', entry: JSON.stringify(entry) })
            .compile(),
        ),
      );
      assert.deepEqual(await queuedAs(), []);
      await t.site.jobs.sweepSources();
      assert.deepEqual(await queuedAs(), [{ run_as: 'Administrator' }]);
    });

    test('System Notification on Value Change: a Notification Log for each reader, read and marked through the methods', async () => {
      const res = await t.request({
        method: 'POST',
        url: '/api/resource/Notification',
        body: {
          name: 'Status moves',
          document_type: 'Secret Note',
          event: 'Value Change',
          value_changed: 'status',
          channel: 'System Notification',
          subject: '{{ doc.title }} is {{ doc.status }}',
          recipients: [{ receiver_by_role: 'System Manager' }, { receiver_by_role: 'Staff' }],
        },
      });
      assert.equal(res.statusCode, 200, res.body);
      const doc = await note({ title: 'Plan', status: 'Open' });
      const same = await t.request({ method: 'PUT', url: `/api/resource/Secret Note/${doc.name}`, body: { title: 'Plan B' } });
      assert.equal(same.statusCode, 200);
      const moved = await t.request({ method: 'PUT', url: `/api/resource/Secret Note/${doc.name}`, body: { status: 'Closed' } });
      assert.equal(moved.statusCode, 200);
      const mine = await t.request({ method: 'GET', url: `${LOGS}.get_notification_logs`, anonymous: true, headers: boss.headers });
      assert.equal(mine.statusCode, 200, mine.body);
      const { notification_logs: logs, unread_count } = mine.json().message;
      assert.equal(unread_count, 1);
      assert.equal(logs[0].subject, 'Plan B is Closed');
      assert.equal(logs[0].document_name, doc.name);
      const clerkLogs = await t.request({ method: 'GET', url: `${LOGS}.get_notification_logs`, anonymous: true, headers: clerk.headers });
      assert.deepEqual(clerkLogs.json().message.notification_logs, [], 'the clerk may not read the note');
      // Another user cannot mark the boss's log; the boss can.
      await t.request({ method: 'POST', url: `${LOGS}.mark_as_read`, body: { docname: logs[0].name }, anonymous: true, headers: clerk.headers });
      assert.equal(
        (await t.request({ method: 'GET', url: `${LOGS}.get_notification_logs`, anonymous: true, headers: boss.headers })).json().message.unread_count,
        1,
      );
      assert.equal((await t.request({ method: 'POST', url: `${LOGS}.mark_all_as_read`, body: {}, anonymous: true, headers: boss.headers })).statusCode, 200);
      assert.equal(
        (await t.request({ method: 'GET', url: `${LOGS}.get_notification_logs`, anonymous: true, headers: boss.headers })).json().message.unread_count,
        0,
      );
      assert.equal((await t.request({ method: 'GET', url: `${LOGS}.get_notification_logs`, anonymous: true })).statusCode, 403);
    });

    test('the live notification event reaches the recipient only, and only after commit', async () => {
      const res = await t.request({
        method: 'POST',
        url: '/api/resource/Notification',
        body: {
          name: 'Watched notes',
          document_type: 'Secret Note',
          event: 'New',
          channel: 'System Notification',
          condition: 'doc.priority == "Watch"',
          subject: 'Watch {{ doc.title }}',
          recipients: [{ receiver_by_document_field: 'watcher' }],
        },
      });
      assert.equal(res.statusCode, 200, res.body);
      const deputy = await signUp(t, 'deputy@example.com', ['System Manager']);
      const base = await listenOnce(t);
      const bossSocket = await connectSocket(base, { headers: boss.headers });
      const deputySocket = await connectSocket(base, { headers: deputy.headers });
      try {
        const refused = await t.request({
          method: 'POST',
          url: '/api/resource/Secret Note',
          body: { title: 'refuse late', priority: 'Watch', watcher: 'boss@example.com' },
        });
        assert.equal(refused.statusCode, 417, refused.body);
        const doc = await note({ title: 'kept', priority: 'Watch', watcher: 'boss@example.com' });
        // Events arrive in commit order: the first notification heard is the committed one's.
        const first = await bossSocket.next('notification');
        assert.equal(first.subject, 'Watch kept');
        assert.equal(first.document_name, doc.name);
        const logs = (await t.request({ method: 'GET', url: `${LOGS}.get_notification_logs`, anonymous: true, headers: boss.headers })).json().message
          .notification_logs;
        assert.equal(first.name, logs.find((l: any) => l.subject === 'Watch kept').name);
        assert.equal(logs.filter((l: any) => l.subject === 'Watch refuse late').length, 0);
        // The deputy may read the note but is not a recipient: a marker sent after it is all they hear.
        t.site.realtime.publish('msgprint', 'marker', { user: deputy.name });
        await deputySocket.next('msgprint');
        assert.deepEqual(
          deputySocket.received.filter((r) => r.event === 'notification'),
          [],
        );
        assert.equal(bossSocket.received.filter((r) => r.event === 'notification').length, 1);
      } finally {
        bossSocket.close();
        deputySocket.close();
      }
    });

    test('Days Before and Days After: the daily job notifies about documents whose date is that many days away, once per run', async () => {
      for (const bad of [{ date_changed: 'title' }, { date_changed: 'due', days_in_advance: -1 }]) {
        const res = await t.request({
          method: 'POST',
          url: '/api/resource/Notification',
          body: { name: 'Bad days', document_type: 'Secret Note', event: 'Days Before', subject: 'x', ...bad },
        });
        assert.equal(res.statusCode, 417, res.body);
      }
      const create = async (body: Record<string, unknown>) => {
        const res = await t.request({ method: 'POST', url: '/api/resource/Notification', body: { document_type: 'Secret Note', ...body } });
        assert.equal(res.statusCode, 200, res.body);
      };
      await create({
        name: 'Due soon',
        event: 'Days Before',
        date_changed: 'due',
        days_in_advance: 3,
        channel: 'System Notification',
        subject: 'Due soon: {{ doc.title }}',
        recipients: [{ receiver_by_document_field: 'watcher' }],
      });
      await create({
        name: 'Met',
        event: 'Days After',
        date_changed: 'meeting',
        days_in_advance: 2,
        channel: 'Email',
        condition: 'doc.priority != "Skip"',
        subject: 'Follow up {{ doc.title }}',
        recipients: [{ receiver_by_document_field: 'watcher' }],
      });
      assert.ok(t.site.jobs.schedules().some((e) => e.handler === DATE_NOTIFICATIONS_JOB && e.when === 'daily'));
      await note({ title: 'D-3', due: '2030-01-13', watcher: 'boss@example.com' });
      await note({ title: 'D-4', due: '2030-01-14', watcher: 'boss@example.com' });
      await note({ title: 'M+2', meeting: '2030-01-08 23:30:00', watcher: 'later@example.com' });
      await note({ title: 'M+2 skipped', priority: 'Skip', meeting: '2030-01-08 08:00:00', watcher: 'later@example.com' });
      await note({ title: 'M+1', meeting: '2030-01-09 00:00:00', watcher: 'later@example.com' });
      const dueLogs = async () =>
        (await t.request({ method: 'GET', url: `${LOGS}.get_notification_logs?limit=500`, anonymous: true, headers: boss.headers }))
          .json()
          .message.notification_logs.map((l: any) => l.subject)
          .filter((s: string) => s.startsWith('Due soon'));
      assert.deepEqual(await dueLogs(), [], 'saving a document fires no date notification');
      await t.site.jobs.enqueue(DATE_NOTIFICATIONS_JOB, { date: '2030-01-10' });
      await worker.runDue(); // the daily job, then the mail it queued
      assert.deepEqual(await dueLogs(), ['Due soon: D-3']);
      const followUps = sink.received.filter((m) => m.to.includes('later@example.com')).map((m) => m.parsed.subject);
      assert.deepEqual(followUps, ['Follow up M+2']);
    });

    test('Method: a successful POST of the named document method fires it; another method, a failed run or a GET does not', async () => {
      t.site.methods.docMethods.register('Secret Note', 'escalate', async ({ doc }) => {
        if (doc.priority === 'Broken') throw new ValidationError('cannot escalate');
        return 'escalated';
      });
      t.site.methods.docMethods.register('Secret Note', 'glance', async () => 'seen');
      const res = await t.request({
        method: 'POST',
        url: '/api/resource/Notification',
        body: {
          name: 'Escalations',
          document_type: 'Secret Note',
          event: 'Method',
          method: 'escalate',
          channel: 'System Notification',
          subject: 'Escalated {{ doc.title }}',
          recipients: [{ receiver_by_document_field: 'watcher' }],
        },
      });
      assert.equal(res.statusCode, 200, res.body);
      const bad = await t.request({
        method: 'POST',
        url: '/api/resource/Notification',
        body: { name: 'No method', document_type: 'Secret Note', event: 'Method', subject: 'x' },
      });
      assert.equal(bad.statusCode, 417, bad.body);
      const ok = await note({ title: 'Fire', watcher: 'boss@example.com' });
      const broken = await note({ title: 'Broken one', priority: 'Broken', watcher: 'boss@example.com' });
      const call = (method: string, dn: string, verb: 'GET' | 'POST' = 'POST') =>
        verb === 'POST'
          ? t.request({ method: 'POST', url: '/api/method/run_doc_method', body: { dt: 'Secret Note', dn, method } })
          : t.request({ method: 'GET', url: `/api/method/run_doc_method?dt=Secret%20Note&dn=${encodeURIComponent(dn)}&method=${method}` });
      assert.equal((await call('glance', ok.name)).statusCode, 200);
      assert.equal((await call('escalate', broken.name)).statusCode, 417);
      assert.equal((await call('escalate', ok.name, 'GET')).statusCode, 200);
      const fired = await call('escalate', ok.name);
      assert.equal(fired.statusCode, 200, fired.body);
      assert.equal(fired.json().message, 'escalated');
      const logs = (await t.request({ method: 'GET', url: `${LOGS}.get_notification_logs?limit=500`, anonymous: true, headers: boss.headers })).json().message
        .notification_logs;
      assert.deepEqual(
        logs.filter((l: any) => l.subject.startsWith('Escalated')).map((l: any) => [l.subject, l.document_name]),
        [['Escalated Fire', ok.name]],
      );
    });
  });

  describe(`notifications without outgoing mail (${dialect.name})`, () => {
    let t: TestSite;
    before(async () => {
      t = await startTestSite(dialect);
    });
    after(async () => {
      await t.close();
    });

    test('an Email notification sends nothing and never refuses the write', async () => {
      const dt = await t.request({
        method: 'POST',
        url: '/api/resource/DocType',
        body: {
          name: 'Plain Note',
          fields: [{ fieldname: 'title', label: 'Title', fieldtype: 'Data' }],
          permissions: [{ role: 'System Manager', read: 1, write: 1, create: 1, delete: 1 }],
        },
      });
      assert.equal(dt.statusCode, 200, dt.body);
      const rule = await t.request({
        method: 'POST',
        url: '/api/resource/Notification',
        body: {
          name: 'Mail me',
          document_type: 'Plain Note',
          event: 'New',
          channel: 'Email',
          subject: 'New {{ doc.title }}',
          recipients: [{ cc: 'someone@example.com' }],
        },
      });
      assert.equal(rule.statusCode, 200, rule.body);
      const made = await t.request({ method: 'POST', url: '/api/resource/Plain Note', body: { title: 'kept' } });
      assert.equal(made.statusCode, 200, made.body);
      assert.equal((await t.request({ method: 'GET', url: '/api/resource/Plain Note?fields=["title"]' })).json().data[0].title, 'kept');
      assert.deepEqual((await t.request({ method: 'GET', url: '/api/resource/Email Queue?fields=["name"]' })).json().data, []);
    });
  });
}
