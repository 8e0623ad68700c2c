import type { HookRegistry } from '../documents/hooks.js';
import { ValidationError } from '../errors/index.js';
import { EMAIL_ACCOUNT } from './doctypes/index.js';

function fail(message: string): never {
  throw new ValidationError(message, { doctype: EMAIL_ACCOUNT });
}

/**
 * The Email Account controller (docs/mail.md "Email Account"): an outgoing account needs a server,
 * TLS and SSL exclude each other, the port is a port; and there is one default outgoing account,
 * so making one the default clears the flag on the others (as the reference does).
 */
export function registerEmailAccountController(hooks: HookRegistry): void {
  hooks.on(EMAIL_ACCOUNT, 'validate', async ({ doc }, next) => {
    const outgoing = Number(doc.enable_outgoing ?? 0) === 1;
    if (outgoing && String(doc.smtp_server ?? '').trim() === '') fail('SMTP Server is required for outgoing mail');
    if (Number(doc.use_tls ?? 0) === 1 && Number(doc.use_ssl_for_outgoing ?? 0) === 1) {
      fail('Use either TLS (STARTTLS) or SSL (implicit TLS), not both');
    }
    const port = doc.smtp_port;
    if (port !== null && port !== undefined && port !== 0 && !(Number.isInteger(port) && (port as number) >= 1 && (port as number) <= 65535)) {
      fail('Port must be a port number from 1 to 65535');
    }
    if (Number(doc.default_outgoing ?? 0) === 1 && !outgoing) fail('The default outgoing account must have Enable Outgoing set');
    if (typeof doc.smtp_server === 'string') doc.smtp_server = doc.smtp_server.trim();
    await next();
  });
  hooks.on(EMAIL_ACCOUNT, 'on_update', async ({ doc, ctx }, next) => {
    if (Number(doc.default_outgoing ?? 0) === 1) {
      await ctx.q.run(
        ctx.dialect.builder
          .updateTable(ctx.metas.get(EMAIL_ACCOUNT).tableName)
          .set({ default_outgoing: 0 })
          .where('name', '!=', String(doc.name))
          .where('default_outgoing', '=', 1)
          .compile(),
      );
    }
    await next();
  });
}
