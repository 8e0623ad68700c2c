import { composeMessage } from './compose-message.js';
import { isEmailAddress } from './mail-addresses.js';
import type { SmtpFailure } from './smtp-failure.js';
import { sendRawMessage } from './smtp-send.js';
import { resolveSmtpSettings, type AccountScope, type SmtpSettings } from './smtp-settings.js';

/** What a test mail did: delivered to the server, or the step that failed. */
export type TestMailResult =
  | { readonly ok: true; readonly server: string; readonly account: string | undefined; readonly messageId: string; readonly response: string }
  | { readonly ok: false; readonly server: string | undefined; readonly failure: SmtpFailure };

/**
 * Sends one short mail to `recipient` right away through `accountName` or the default outgoing
 * account (docs/mail.md "Send a test mail"). The only mail fw sends outside the queue: its point
 * is to say at once which step failed (DNS, connect, TLS, authentication, recipient refused).
 */
export async function sendTestMail(
  read: <T>(work: (scope: AccountScope) => Promise<T>) => Promise<T>,
  recipient: string,
  domain: string,
  accountName?: string,
): Promise<TestMailResult> {
  if (!isEmailAddress(recipient)) {
    return {
      ok: false,
      server: undefined,
      failure: { stage: 'recipient', message: `${recipient} is not a valid Email Address`, temporary: false, responseCode: undefined },
    };
  }
  let settings: SmtpSettings;
  try {
    settings = await read((scope) => resolveSmtpSettings(scope, accountName));
  } catch (err) {
    return {
      ok: false,
      server: undefined,
      failure: { stage: 'config', message: `The outgoing mail settings are incomplete: ${(err as Error).message}`, temporary: false, responseCode: undefined },
    };
  }
  const server = `${settings.host}:${settings.port}`;
  const built = await composeMessage({
    from: { address: settings.fromAddress, name: settings.fromName },
    to: [recipient],
    cc: [],
    subject: 'Test mail from fw',
    html: `<p>This is a test mail sent through ${settings.account ? `the Email Account ${escapeHtml(settings.account)}` : 'the mail_server of site_config.json'} (${escapeHtml(server)}).</p><p>If you can read it, outgoing mail works.</p>`,
    headers: {},
    attachments: [],
    domain,
  });
  const outcome = await sendRawMessage(settings, { from: settings.fromAddress, to: [recipient] }, built.raw);
  if (outcome.ok && outcome.refused.length === 0) {
    return { ok: true, server, account: settings.account, messageId: built.messageId, response: outcome.response };
  }
  if (outcome.ok) {
    const r = outcome.refused[0]!;
    return {
      ok: false,
      server,
      failure: {
        stage: 'recipient',
        message: `The SMTP server refused the recipient (${server}): ${r.reply}`,
        temporary: r.temporary,
        responseCode: r.responseCode,
      },
    };
  }
  return { ok: false, server, failure: outcome.failure };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
