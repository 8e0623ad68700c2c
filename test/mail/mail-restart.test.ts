import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { makePrincipal } from '../../src/auth/principal.js';
import { JobWorker } from '../../src/jobs/job-worker.js';
import { checkMessage, mailRequestOf } from '../../src/mail/mail-request.js';
import { openSite } from '../../src/site/open-site.js';
import { testDialects } from '../helpers/dialects.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';
import { addSinkAccount } from '../helpers/mail-account.js';
import { SmtpSink } from '../helpers/smtp-sink.js';

/*
 * Durability (docs/mail.md "The queue"): a mail committed by a process that is gone before any
 * worker ran is sent by the next process that opens the site, once.
 */
for (const dialect of testDialects()) {
  describe(`mail after a restart (${dialect.name})`, () => {
    let t: TestSite;
    let sink: SmtpSink;
    before(async () => {
      t = await startTestSite(dialect);
      sink = await new SmtpSink().start();
      await addSinkAccount(t, sink);
    });
    after(async () => {
      await sink.stop();
      await t.close();
    });

    test('a mail queued and committed by a closed process is sent once by a worker of a new one', async () => {
      const first = await openSite(t.site.paths.root);
      const name = await first.write(makePrincipal({ user: 'Administrator', roles: ['Administrator', 'System Manager'] }), (ctx) =>
        first.mail!.queue(ctx, mailRequestOf({ recipients: 'ann@example.com' }, { subject: 'Survives', message: checkMessage('<p>Still here</p>') })),
      );
      await first.close();
      assert.equal(sink.received.length, 0);
      const second = await openSite(t.site.paths.root);
      try {
        // Two workers of the new process: the mail still leaves once.
        await Promise.all([new JobWorker(second.jobs).runDue(), new JobWorker(second.jobs).runDue()]);
      } finally {
        await second.close();
      }
      const mails = sink.received.filter((m) => m.parsed.subject === 'Survives');
      assert.equal(mails.length, 1);
      const row = (await t.request({ method: 'GET', url: `/api/resource/Email Queue/${name}` })).json().data;
      assert.equal(row.status, 'Sent');
      assert.equal(row.message_id, mails[0]!.parsed.messageId);
    });
  });
}
