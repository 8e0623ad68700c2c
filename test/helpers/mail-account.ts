import assert from 'node:assert/strict';
import type { SmtpSink } from './smtp-sink.js';
import type { TestSite } from './test-site.js';

/** Makes the sink the site's default outgoing Email Account `Main` (docs/mail.md "Email Account"). */
export async function addSinkAccount(t: TestSite, sink: SmtpSink): Promise<void> {
  const account = await t.request({
    method: 'POST',
    url: '/api/resource/Email Account',
    body: {
      email_account_name: 'Main',
      email_id: 'robot@example.com',
      enable_outgoing: 1,
      default_outgoing: 1,
      smtp_server: '127.0.0.1',
      smtp_port: sink.port,
      no_smtp_authentication: 1,
    },
  });
  assert.equal(account.statusCode, 200, account.body);
}
