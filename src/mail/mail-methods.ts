import type { DocContext } from '../documents/doc-context.js';
import { DoesNotExistError, FrappeTypeError, PermissionError, ValidationError } from '../errors/index.js';
import type { MethodCall, MethodRegistry } from '../rpc/method-registry.js';
import { now } from '../datetime/clock.js';
import { EMAIL_QUEUE } from './doctypes/index.js';
import { FLUSH_JOB } from './mail-flush.js';
import { readMailSettings, setSuspended } from './mail-settings.js';
import { SEND_JOB, type SenderDeps } from './mail-sender.js';
import { loadMail, setMailState, type QueueScope } from './queue-store.js';
import { stageLabel } from './smtp-failure.js';
import { sendTestMail } from './test-mail.js';

/** The reference's method paths (docs/mail.md "Methods"). */
export const QUEUE_METHODS = 'fw.email.doctype.email_queue.email_queue';
export const ACCOUNT_METHODS = 'fw.email.doctype.email_account.email_account';

/** What the methods need besides the sender's parts. */
export interface MailMethodDeps extends SenderDeps {
  readonly domain: string;
}

function requireSystemManager(ctx: DocContext, what: string): void {
  const { principal } = ctx;
  if (principal.isAdministrator || principal.roles.has('System Manager')) return;
  throw new PermissionError(`Only a System Manager may ${what}`, { doctype: EMAIL_QUEUE });
}

const scopeOf = (ctx: DocContext): QueueScope => ({ q: ctx.q, dialect: ctx.dialect, metas: ctx.metas });

/** `queues` as the reference takes it: a list of names, or JSON text of one, or one name. */
function queueNames(value: unknown): string[] {
  let list = value;
  if (typeof value === 'string') {
    try {
      list = value.trim().startsWith('[') ? JSON.parse(value) : [value];
    } catch {
      throw new FrappeTypeError('queues must be a list of Email Queue names');
    }
  }
  if (!Array.isArray(list) || list.length === 0 || list.length > 500 || list.some((n) => typeof n !== 'string' || n === '')) {
    throw new FrappeTypeError('queues must be a list of 1 to 500 Email Queue names');
  }
  return [...new Set(list as string[])];
}

/** send_now, retry_sending, toggle_sending and send_test_mail. */
export function registerMailMethods(methods: MethodRegistry, deps: MailMethodDeps): void {
  methods.register(
    `${QUEUE_METHODS}.send_now`,
    async ({ ctx, args }: MethodCall) => {
      requireSystemManager(ctx, 'send queued mail');
      const name = String(args.name);
      const mail = await loadMail(scopeOf(ctx), name);
      if (!mail) throw new DoesNotExistError(`${EMAIL_QUEUE} ${name} not found`, { doctype: EMAIL_QUEUE });
      if (mail.status !== 'Not Sent' && mail.status !== 'Partially Sent') {
        throw new ValidationError(`${EMAIL_QUEUE} ${name} is ${mail.status}: only Not Sent or Partially Sent mail can be sent now (Error mail: retry_sending)`);
      }
      if ((await readMailSettings(ctx.q, ctx.dialect)).suspended) throw new ValidationError('Sending is suspended: resume it with toggle_sending first');
      await setMailState(scopeOf(ctx), name, { status: mail.status, sendAfter: null }, now(ctx.settings.timeZone));
      await deps.jobs.enqueue(SEND_JOB, { name, force: true }, { unit: ctx, jobId: `mail:${name}:now:${mail.retry}` });
      return { name, status: mail.status };
    },
    {
      methods: ['POST'],
      params: [
        { name: 'name', type: 'string', required: true },
        { name: 'force_send', type: 'any' },
      ],
    },
  );

  methods.register(
    `${QUEUE_METHODS}.retry_sending`,
    async ({ ctx, args }: MethodCall) => {
      requireSystemManager(ctx, 'retry sending mail');
      const retried: string[] = [];
      for (const name of queueNames(args.queues)) {
        const mail = await loadMail(scopeOf(ctx), name);
        if (!mail || (mail.status !== 'Error' && mail.status !== 'Expired')) continue;
        await setMailState(
          scopeOf(ctx),
          name,
          { status: mail.recipients.some((r) => r.status === 'Sent') ? 'Partially Sent' : 'Not Sent', retry: 0, sendAfter: null },
          now(ctx.settings.timeZone),
        );
        await deps.jobs.enqueue(SEND_JOB, { name }, { unit: ctx, jobId: `mail:${name}:again:${Date.now()}` });
        retried.push(name);
      }
      return { retried };
    },
    { methods: ['POST'], params: [{ name: 'queues', type: 'any', required: true }] },
  );

  methods.register(
    `${QUEUE_METHODS}.toggle_sending`,
    async ({ ctx, args }: MethodCall) => {
      requireSystemManager(ctx, 'suspend or resume sending');
      const enable = args.enable === true || args.enable === 1 || args.enable === '1' || args.enable === 'true';
      await setSuspended(ctx.q, ctx.dialect, !enable);
      if (enable) await deps.jobs.enqueue(FLUSH_JOB, {}, { unit: ctx, jobId: 'mail:flush:resume' });
      return { suspended: !enable };
    },
    { methods: ['POST'], params: [{ name: 'enable', type: 'any', required: true }] },
  );

  methods.register(
    `${ACCOUNT_METHODS}.send_test_mail`,
    async ({ ctx, args }: MethodCall) => {
      requireSystemManager(ctx, 'send a test mail');
      const account = args.email_account === undefined || args.email_account === null || args.email_account === '' ? undefined : String(args.email_account);
      const result = await sendTestMail(
        (work) => work({ q: ctx.q, dialect: ctx.dialect, metas: ctx.metas, encryptionKey: deps.encryptionKey, config: deps.config }),
        String(args.recipient).trim(),
        deps.domain,
        account,
      );
      if (!result.ok) {
        throw new ValidationError(result.failure.message, {
          details: { stage: result.failure.stage, stage_label: stageLabel(result.failure.stage), response_code: result.failure.responseCode ?? null },
        });
      }
      return { sent: true, server: result.server, email_account: result.account ?? null, message_id: result.messageId, response: result.response };
    },
    {
      methods: ['POST'],
      params: [
        { name: 'recipient', type: 'string', required: true },
        { name: 'email_account', type: 'string' },
      ],
    },
  );
}
