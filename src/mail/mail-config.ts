/**
 * The reference's site-config mail keys (docs/mail.md "Without an Email Account"): an outgoing
 * server used when no Email Account is the default outgoing one, and the sender of system mail.
 */
export interface MailConfig {
  readonly mail_server: string | null;
  readonly mail_port: number | null;
  /** Implicit TLS from the first byte (usually port 465). */
  readonly use_ssl: boolean;
  /** STARTTLS, required. */
  readonly use_tls: boolean;
  readonly mail_login: string | null;
  readonly mail_password: string | null;
  /** The From address of mail that names no sender. */
  readonly auto_email_id: string | null;
  /** The display name beside auto_email_id. */
  readonly email_sender_name: string | null;
  /** The site's public URL (`https://erp.example.com`), for links in mail; http://<site_name or localhost> when unset. */
  readonly host_name: string | null;
}

export const DEFAULT_MAIL_CONFIG: MailConfig = {
  mail_server: null,
  mail_port: null,
  use_ssl: false,
  use_tls: false,
  mail_login: null,
  mail_password: null,
  auto_email_id: null,
  email_sender_name: null,
  host_name: null,
};

const isFlag = (v: unknown) => typeof v === 'boolean' || v === 0 || v === 1;
const isText = (v: unknown) => typeof v === 'string' && v.trim() !== '';

/** Reads the mail keys of a raw site_config.json object; `fail` throws with the problem. */
export function parseMailConfig(raw: Readonly<Record<string, unknown>>, fail: (problem: string) => never): MailConfig {
  const text = (key: keyof MailConfig): string | null => {
    const value = raw[key];
    if (value === undefined || value === null || value === '') return null;
    if (!isText(value)) fail(`"${key}" must be a string`);
    return (value as string).trim();
  };
  const flag = (key: keyof MailConfig): boolean => {
    const value = raw[key];
    if (value === undefined) return false;
    if (!isFlag(value)) fail(`"${key}" must be true or false`);
    return Boolean(value);
  };
  const port = raw.mail_port;
  let mailPort: number | null = null;
  if (port !== undefined && port !== null && port !== '') {
    const n = typeof port === 'string' && /^\d+$/.test(port) ? Number(port) : port;
    if (!Number.isInteger(n) || (n as number) < 1 || (n as number) > 65535) fail('"mail_port" must be a port number (1 to 65535)');
    mailPort = n as number;
  }
  return {
    mail_server: text('mail_server'),
    mail_port: mailPort,
    use_ssl: flag('use_ssl'),
    use_tls: flag('use_tls'),
    mail_login: text('mail_login'),
    mail_password: text('mail_password'),
    auto_email_id: text('auto_email_id'),
    email_sender_name: text('email_sender_name'),
    host_name: hostName(text('host_name'), fail),
  };
}

function hostName(value: string | null, fail: (problem: string) => never): string | null {
  if (value === null) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    fail('"host_name" must be the site\'s public URL, such as "https://erp.example.com"');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') fail('"host_name" must be an http or https URL');
  return url.origin;
}
