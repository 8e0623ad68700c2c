import { getFieldSecret } from '../auth/field-secrets.js';
import type { MetaRegistry } from '../meta/meta-registry.js';
import type { Queryable, Row } from '../storage/database.js';
import type { Dialect } from '../storage/dialect.js';
import { EMAIL_ACCOUNT } from './doctypes/index.js';
import type { MailConfig } from './mail-config.js';

/** How to reach an SMTP server and who mail comes from: an Email Account or the site-config keys. */
export interface SmtpSettings {
  /** The Email Account's name, or undefined for the site-config fallback. */
  readonly account: string | undefined;
  readonly host: string;
  readonly port: number;
  /** Implicit TLS from the first byte. */
  readonly implicitTls: boolean;
  /** STARTTLS required. */
  readonly startTls: boolean;
  readonly validateCertificate: boolean;
  readonly auth: { readonly user: string; readonly pass: string } | undefined;
  /** The From address (`email_id` or `auto_email_id`) and its display name. */
  readonly fromAddress: string;
  readonly fromName: string | undefined;
}

/** No outgoing account and no site-config server: the reference's words for it. */
export class NoOutgoingAccountError extends Error {
  constructor() {
    super('Please setup default outgoing Email Account from Tools > Email Account (or mail_server in site_config.json)');
  }
}

/** What resolving an account reads. */
export interface AccountScope {
  readonly q: Queryable;
  readonly dialect: Dialect;
  readonly metas: MetaRegistry;
  readonly encryptionKey: string;
  readonly config: MailConfig;
}

const on = (v: unknown) => Number(v) === 1;

/**
 * The outgoing settings for `accountName`, or for the default outgoing Email Account, or from the
 * site-config keys when no account is enabled as default (docs/mail.md "Email Account").
 */
export async function resolveSmtpSettings(scope: AccountScope, accountName?: string): Promise<SmtpSettings> {
  const table = scope.metas.get(EMAIL_ACCOUNT).tableName;
  let query = scope.dialect.builder.selectFrom(table).selectAll().where('enable_outgoing', '=', 1);
  query = accountName ? query.where('name', '=', accountName) : query.where('default_outgoing', '=', 1);
  const [row] = await scope.q.all<Row>(query.orderBy('creation').limit(1).compile());
  if (row) return fromAccount(scope, row);
  if (accountName) throw new Error(`Email Account ${accountName} does not exist or does not send (Enable Outgoing is off)`);
  return fromConfig(scope.config);
}

async function fromAccount(scope: AccountScope, row: Row): Promise<SmtpSettings> {
  const name = String(row.name);
  const implicitTls = on(row.use_ssl_for_outgoing);
  const startTls = !implicitTls && on(row.use_tls);
  const host = String(row.smtp_server ?? '').trim();
  if (host === '') throw new Error(`Email Account ${name} has no SMTP Server`);
  let auth: SmtpSettings['auth'];
  if (!on(row.no_smtp_authentication)) {
    const pass = await getFieldSecret(scope.q, scope.dialect, { doctype: EMAIL_ACCOUNT, name, fieldname: 'password' }, scope.encryptionKey);
    if (pass === undefined) throw new Error(`Email Account ${name} needs a Password (or Disable SMTP Server Authentication)`);
    const login = String(row.login_id ?? '').trim();
    auth = { user: login !== '' ? login : String(row.email_id), pass };
  }
  return {
    account: name,
    host,
    port: Number(row.smtp_port) > 0 ? Number(row.smtp_port) : defaultPort(implicitTls, startTls),
    implicitTls,
    startTls,
    validateCertificate: row.validate_ssl_certificate === null || row.validate_ssl_certificate === undefined || on(row.validate_ssl_certificate),
    auth,
    fromAddress: String(row.email_id),
    fromName: name,
  };
}

function fromConfig(config: MailConfig): SmtpSettings {
  if (!config.mail_server) throw new NoOutgoingAccountError();
  const implicitTls = config.use_ssl;
  const startTls = !implicitTls && config.use_tls;
  const auth = config.mail_login && config.mail_password ? { user: config.mail_login, pass: config.mail_password } : undefined;
  const fromAddress = config.auto_email_id ?? config.mail_login ?? FALLBACK_SENDER;
  return {
    account: undefined,
    host: config.mail_server,
    port: config.mail_port ?? defaultPort(implicitTls, startTls),
    implicitTls,
    startTls,
    validateCertificate: true,
    auth,
    fromAddress,
    fromName: config.email_sender_name ?? undefined,
  };
}

/**
 * The From when neither an Email Account nor `auto_email_id` names one: a well-formed address (the
 * queue checks every address it stores), so a mail asked for before mail is set up is queued like
 * any other, and a password reset answers the same whether or not mail works (docs/mail.md
 * "Password reset").
 */
export const FALLBACK_SENDER = 'notifications@localhost.localdomain';

function defaultPort(implicitTls: boolean, startTls: boolean): number {
  if (implicitTls) return 465;
  return startTls ? 587 : 25;
}

/**
 * The From of a new mail: the named Email Account's address, else the default outgoing account's,
 * else `auto_email_id`. Never fails: a mail queued before any account exists waits for one.
 */
export async function defaultSender(
  scope: AccountScope,
  accountName?: string,
): Promise<{ address: string; name: string | undefined; account: string | undefined }> {
  try {
    const s = await resolveSmtpSettings(scope, accountName);
    return { address: s.fromAddress, name: s.fromName, account: s.account };
  } catch {
    return { address: scope.config.auto_email_id ?? FALLBACK_SENDER, name: scope.config.email_sender_name ?? undefined, account: undefined };
  }
}

/** True when mail can go out: a default outgoing Email Account, or `mail_server` in site_config.json. */
export async function hasOutgoingMail(scope: AccountScope): Promise<boolean> {
  try {
    await resolveSmtpSettings(scope);
    return true;
  } catch (err) {
    if (err instanceof NoOutgoingAccountError) return false;
    throw err;
  }
}
