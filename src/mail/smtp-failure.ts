/** Which step of an SMTP exchange failed (docs/mail.md "Send a test mail"). */
export type SmtpStage = 'dns' | 'connect' | 'tls' | 'auth' | 'recipient' | 'data' | 'timeout' | 'config' | 'other';

/** A failed SMTP exchange, explained. */
export interface SmtpFailure {
  readonly stage: SmtpStage;
  /** A sentence naming the step and the server's reply or the socket's error. */
  readonly message: string;
  /** True when trying again later may succeed (4xx replies, lost connections, a server down). */
  readonly temporary: boolean;
  readonly responseCode: number | undefined;
}

const STAGE_WORDS: Record<SmtpStage, string> = {
  dns: 'The SMTP server name could not be resolved (DNS)',
  connect: 'Could not connect to the SMTP server',
  tls: 'The TLS handshake with the SMTP server failed',
  auth: 'The SMTP server refused the login (authentication)',
  recipient: 'The SMTP server refused the recipient',
  data: 'The SMTP server did not accept the message',
  timeout: 'The SMTP server did not answer in time',
  config: 'The outgoing mail settings are incomplete',
  other: 'Sending failed',
};

const TLS_WORDS = /certificate|self[- ]signed|ssl|tls|wrong version number|handshake|unable to verify/i;

interface NodemailerError {
  code?: string;
  command?: string;
  responseCode?: number;
  response?: string;
  message?: string;
}

/** Explains an error thrown by nodemailer (its `code`, `command` and `responseCode`). */
export function explainSmtpError(err: unknown, server: string): SmtpFailure {
  const e = (typeof err === 'object' && err !== null ? err : { message: String(err) }) as NodemailerError;
  const reply = e.response ? e.response.trim() : (e.message ?? 'unknown error');
  const code = e.responseCode;
  const stage = stageOf(e);
  const temporary = code !== undefined ? code < 500 || stage === 'auth' : stage !== 'config';
  return { stage, message: `${STAGE_WORDS[stage]} (${server}): ${reply}`, temporary, responseCode: code };
}

function stageOf(e: NodemailerError): SmtpStage {
  const message = e.message ?? '';
  switch (e.code) {
    case 'EDNS':
      return 'dns';
    case 'ETLS':
      return 'tls';
    case 'EAUTH':
    case 'ENOAUTH':
      return 'auth';
    case 'EENVELOPE':
      return e.command === 'MAIL FROM' ? 'data' : 'recipient';
    case 'EMESSAGE':
      return 'data';
    case 'ETIMEDOUT':
      return 'timeout';
    case 'ECONFIG':
      return 'config';
    case 'ESOCKET':
    case 'ECONNECTION':
      if (TLS_WORDS.test(message)) return 'tls';
      if (/ENOTFOUND|EAI_AGAIN|getaddrinfo/.test(message)) return 'dns';
      return e.command === 'DATA' || e.command === 'DATA-END' || (/unexpectedly/i.test(message) && e.command !== 'CONN') ? 'data' : 'connect';
    default:
      if (TLS_WORDS.test(message)) return 'tls';
      if (/ECONNREFUSED|EHOSTUNREACH|ENETUNREACH/.test(message)) return 'connect';
      return 'other';
  }
}

/** The step names a client reads (`fw mail test` prints them). */
export function stageLabel(stage: SmtpStage): string {
  return STAGE_WORDS[stage];
}
