import { loadPrincipal } from '../auth/principal.js';
import { findLoginUser } from '../auth/user-names.js';
import type { DocContext } from '../documents/doc-context.js';
import type { HookRegistry } from '../documents/hooks.js';
import { ValidationError } from '../errors/index.js';
import type { Doc } from '../meta/doctype.js';
import type { Meta } from '../meta/meta.js';
import type { RealtimePublisher } from '../realtime/realtime-publisher.js';
import type { DocMethodRegistry } from '../rpc/doc-methods.js';
import { AfterCommitOutbox } from '../jobs/after-commit-outbox.js';
import type { Queryable, Row } from '../storage/database.js';
import { ConditionError, parseCondition, type Condition } from '../webhooks/condition.js';
import { MAIL_DOCTYPE_NAMES, NOTIFICATION, NOTIFICATION_LOG, NOTIFICATION_RECIPIENT } from './doctypes/index.js';
import { isEmailAddress, parseAddressList } from './mail-addresses.js';
import { checkMailTemplate, MailTemplateError, renderMailTemplate } from './mail-template.js';
import { queueMail, type QueueDeps } from './queue-mail.js';
import { hasOutgoingMail } from './smtp-settings.js';
import { NOTIFY_OUTBOX } from './notify-outbox-table.js';

/** What notifications need. */
export interface NotificationDeps extends QueueDeps {
  readonly realtime: RealtimePublisher;
  /** Where a failed batch of the notify outbox is reported (its entries wait for the next batch or sweep), and an entry set aside. */
  readonly report?: (err: unknown) => void;
}

/** A matched Email notification waiting in the outbox for its notify job. */
interface NotifyEntry {
  readonly notification: string;
  readonly doctype: string;
  readonly doc: Doc;
  /** Who wrote the document: the job runs as them. */
  readonly user: string;
}

/** How long the notify outbox collects commits before a batch writes their jobs. */
const NOTIFY_BATCH_MS = 100;

export type NotificationEvent = 'New' | 'Save' | 'Submit' | 'Cancel' | 'Value Change' | 'Days Before' | 'Days After' | 'Method';

interface RecipientRule {
  readonly field: string;
  readonly role: string;
  readonly cc: string;
  readonly bcc: string;
}

export interface LoadedNotification {
  readonly name: string;
  readonly event: NotificationEvent;
  readonly channel: 'Email' | 'System Notification';
  readonly valueChanged: string;
  readonly method: string;
  readonly dateChanged: string;
  readonly daysInAdvance: number;
  readonly condition: Condition | undefined;
  readonly subject: string;
  readonly message: string;
  readonly recipients: readonly RecipientRule[];
}

/** Which document event each Notification event listens to. */
const EVENT_OF: Readonly<Record<string, readonly NotificationEvent[]>> = {
  after_insert: ['New'],
  on_update: ['Save', 'Value Change'],
  on_submit: ['Submit'],
  on_cancel: ['Cancel'],
};

/** The enabled notifications by DocType, read again whenever the Notification metadata is new. */
class NotificationCache {
  #source: Meta | undefined;
  #byDoctype = new Map<string, LoadedNotification[]>();

  async for(ctx: DocContext, doctype: string): Promise<readonly LoadedNotification[]> {
    const meta = ctx.metas.get(NOTIFICATION);
    if (this.#source !== meta) {
      this.#byDoctype = await loadNotifications(ctx);
      this.#source = meta;
    }
    return this.#byDoctype.get(doctype) ?? [];
  }
}

export async function loadNotifications(ctx: DocContext): Promise<Map<string, LoadedNotification[]>> {
  const b = ctx.dialect.builder;
  const rows = await ctx.q.all<Row>(b.selectFrom(ctx.metas.get(NOTIFICATION).tableName).selectAll().where('enabled', '=', 1).compile());
  const rules = await ctx.q.all<Row>(
    b.selectFrom(ctx.metas.get(NOTIFICATION_RECIPIENT).tableName).selectAll().where('parenttype', '=', NOTIFICATION).orderBy('idx').compile(),
  );
  const out = new Map<string, LoadedNotification[]>();
  for (const row of rows) {
    let condition: Condition | undefined;
    try {
      condition = String(row.condition ?? '').trim() === '' ? undefined : parseCondition(String(row.condition));
    } catch {
      continue; // refused on save; a stored one that no longer parses fires nothing
    }
    const loaded: LoadedNotification = {
      name: String(row.name),
      event: String(row.event) as NotificationEvent,
      channel: row.channel === 'System Notification' ? 'System Notification' : 'Email',
      valueChanged: String(row.value_changed ?? ''),
      method: String(row.method ?? ''),
      dateChanged: String(row.date_changed ?? ''),
      daysInAdvance: Number(row.days_in_advance ?? 0),
      condition,
      subject: String(row.subject ?? ''),
      message: String(row.message ?? ''),
      recipients: rules
        .filter((r) => r.parent === row.name)
        .map((r) => ({
          field: String(r.receiver_by_document_field ?? '').trim(),
          role: String(r.receiver_by_role ?? ''),
          cc: String(r.cc ?? ''),
          bcc: String(r.bcc ?? ''),
        })),
    };
    const doctype = String(row.document_type);
    out.set(doctype, [...(out.get(doctype) ?? []), loaded]);
  }
  return out;
}

/**
 * Notifications (docs/mail.md "Notifications"): the controller checks a Notification on save; a
 * hook on every DocType fires the matching ones inside the write's own transaction, so their mail
 * and Notification Logs exist exactly when the write committed; the live `notification` event goes
 * out after the commit. A recipient who may not read the document gets nothing.
 */
export function registerNotifications(hooks: HookRegistry, docMethods: DocMethodRegistry, deps: NotificationDeps): void {
  hooks.on(NOTIFICATION, 'validate', async ({ doc, ctx }, next) => {
    const fail = (message: string): never => {
      throw new ValidationError(message, { doctype: NOTIFICATION });
    };
    const doctype = String(doc.document_type ?? '');
    if (!ctx.metas.has(doctype)) fail(`DocType ${doctype} does not exist`);
    const meta = ctx.metas.get(doctype);
    if (meta.isChild || MAIL_DOCTYPE_NAMES.has(doctype)) fail(`Notifications cannot be set on ${doctype}`);
    if (Number(doc.attach_print ?? 0) === 1) fail('Attach Print is not available: fw has no printing yet');
    if ((doc.event === 'Submit' || doc.event === 'Cancel') && !meta.isSubmittable) fail(`${doctype} is not submittable: choose another event`);
    if (doc.event === 'Value Change' && !meta.hasColumn(String(doc.value_changed ?? ''))) fail('Value Change needs Value Changed: a field of the document');
    if (doc.event === 'Days Before' || doc.event === 'Days After') {
      const type = meta.field(String(doc.date_changed ?? ''))?.def.fieldtype;
      if (type !== 'Date' && type !== 'Datetime') fail(`${doc.event} needs Reference Date: a Date or Datetime field of the document`);
      const days = Number(doc.days_in_advance ?? 0);
      if (!Number.isInteger(days) || days < 0 || days > 3650) fail('Days Before or After must be a whole number from 0 to 3650');
    }
    if (doc.event === 'Method' && !/^[A-Za-z_][A-Za-z0-9_]{0,139}$/.test(String(doc.method ?? '')))
      fail('Method needs Trigger Method: the name of a document method');
    try {
      parseCondition(String(doc.condition ?? ''));
      await checkMailTemplate(String(doc.subject ?? ''), 'Subject');
      await checkMailTemplate(String(doc.message ?? ''), 'Message');
    } catch (err) {
      if (err instanceof ConditionError) fail(`Invalid condition: ${err.message}`);
      if (err instanceof MailTemplateError) fail(err.message);
      throw err;
    }
    for (const row of (doc.recipients as Doc[] | undefined) ?? []) {
      const field = String(row.receiver_by_document_field ?? '').trim();
      if (field !== '' && !meta.hasColumn(field)) fail(`${doctype} has no field ${field}`);
      parseAddressList(row.cc, 'CC');
      parseAddressList(row.bcc, 'BCC');
    }
    await next();
  });
  for (const event of ['on_update', 'on_trash'] as const) {
    hooks.on(NOTIFICATION, event, async ({ ctx }, next) => {
      await ctx.metas.bumpVersion(ctx.q);
      await next();
    });
  }

  const cache = new NotificationCache();
  registerNotifyJob(deps, cache);
  const { jobs } = deps;
  const outbox = new AfterCommitOutbox<NotifyEntry, { q: Queryable }>({
    db: jobs.db,
    table: NOTIFY_OUTBOX,
    transaction: (work) => jobs.db.transaction((q) => work({ q })),
    apply: (scope, entries) =>
      jobs.enqueueBatch(
        entries.map((e) => ({ handler: NOTIFY_JOB, args: { notification: e.notification, doctype: e.doctype, doc: e.doc }, options: { user: e.user } })),
        scope,
      ),
    applied: () => jobs.wake(),
    report: deps.report ?? (() => {}),
    batchMs: NOTIFY_BATCH_MS,
    inOrder: false,
  });
  jobs.addSource(outbox);
  // A matched notification fires: a System Notification in the write's own transaction (its log is
  // part of the change); an Email one only writes an outbox row there, with the document as it was,
  // which a batch right after the commit turns into a notify job (one unindexed row in the write
  // instead of a job and its indexes). Finding the recipients, checking that each may read the
  // document, rendering and composing the mail happen in the job (docs/benchmarks.md "Mail").
  const dispatch = (ctx: DocContext, doctype: string, doc: Doc, n: LoadedNotification) =>
    n.channel === 'Email' ? outbox.write(ctx, { notification: n.name, doctype, doc, user: ctx.principal.user }) : fire(deps, ctx, doctype, doc, n);
  for (const docEvent of Object.keys(EVENT_OF) as (keyof typeof EVENT_OF)[]) {
    hooks.on('*', docEvent as 'after_insert', async ({ doc, before, ctx }, next, doctype) => {
      await next();
      if (MAIL_DOCTYPE_NAMES.has(doctype) || !ctx.metas.has(NOTIFICATION)) return;
      for (const n of await cache.for(ctx, doctype)) {
        if (!EVENT_OF[docEvent]!.includes(n.event)) continue;
        if (n.event === 'Value Change' && (before === undefined || String(before[n.valueChanged] ?? '') === String(doc[n.valueChanged] ?? ''))) continue;
        if (n.condition && !n.condition.matches(doc)) continue;
        await dispatch(ctx, doctype, doc, n);
      }
    });
  }
  // A GET runs in a read unit, where nothing may be written: Method notifications fire for the other verbs.
  docMethods.onRun(async ({ ctx, doctype, method, doc, verb }) => {
    if (verb === 'GET' || MAIL_DOCTYPE_NAMES.has(doctype) || !ctx.metas.has(NOTIFICATION)) return;
    for (const n of await cache.for(ctx, doctype)) {
      if (n.event !== 'Method' || n.method !== method) continue;
      if (n.condition && !n.condition.matches(doc)) continue;
      await dispatch(ctx, doctype, doc, n);
    }
  });
}

/** The job that turns a matched Email notification into queued mail (docs/mail.md "Notifications"). */
export const NOTIFY_JOB = 'fw.mail.notify';

/** The notify job: the notification as enabled now (one disabled or deleted since sends nothing). */
function registerNotifyJob(deps: NotificationDeps, cache: NotificationCache): void {
  deps.jobs.register(
    NOTIFY_JOB,
    async (args: { notification?: unknown; doctype?: unknown; doc?: unknown }, run) => {
      const doctype = String(args.doctype ?? '');
      const doc = args.doc as Doc | undefined;
      if (!doc || typeof doc !== 'object') return;
      await run.write(async (ctx) => {
        if (!ctx.metas.has(doctype)) return;
        const n = (await cache.for(ctx, doctype)).find((x) => x.name === args.notification);
        if (n) await fire(deps, ctx, doctype, doc, n);
      });
    },
    { timeout: 60_000, maxRetries: 3 },
  );
}

interface Reader {
  readonly user: string | undefined;
  readonly email: string;
}

/** The users (and plain addresses) a rule names, before the read check. */
async function readersOf(ctx: DocContext, doc: Doc, rule: RecipientRule): Promise<Reader[]> {
  const out: Reader[] = [];
  const byName = async (value: string) => {
    const user = await findLoginUser(ctx, value);
    if (user === undefined) {
      if (isEmailAddress(value)) out.push({ user: undefined, email: value });
      return;
    }
    const [row] = await ctx.q.all<Row>(ctx.dialect.builder.selectFrom('tabUser').select(['email', 'enabled']).where('name', '=', user).compile());
    if (row && Number(row.enabled) === 1 && row.email) out.push({ user, email: String(row.email) });
  };
  if (rule.field !== '' && typeof doc[rule.field] === 'string' && doc[rule.field] !== '') await byName(String(doc[rule.field]));
  if (rule.role !== '') {
    const users = await ctx.q.all<{ parent: string }>(
      ctx.dialect.builder.selectFrom('tabHas Role').select('parent').where('role', '=', rule.role).where('parenttype', '=', 'User').compile(),
    );
    for (const { parent } of users) await byName(parent);
  }
  return out;
}

/** True when `user` may read the document (the same checks as a GET of it). */
async function mayRead(deps: NotificationDeps, ctx: DocContext, user: string, doctype: string, name: string): Promise<boolean> {
  const principal = await loadPrincipal(ctx.q, ctx.dialect, user);
  if (!principal) return false;
  try {
    await deps.documents.get({ ...ctx, principal }, doctype, name);
    return true;
  } catch {
    return false;
  }
}

export async function fire(deps: NotificationDeps, ctx: DocContext, doctype: string, doc: Doc, n: LoadedNotification): Promise<void> {
  const name = String(doc.name);
  const to = new Map<string, Reader>();
  const cc: string[] = [];
  const bcc: string[] = [];
  for (const rule of n.recipients) {
    for (const r of await readersOf(ctx, doc, rule)) to.set(r.email.toLowerCase(), r);
    cc.push(...parseAddressList(rule.cc, 'CC'));
    bcc.push(...parseAddressList(rule.bcc, 'BCC'));
  }
  const allowed: Reader[] = [];
  for (const r of to.values()) if (r.user === undefined || (await mayRead(deps, ctx, r.user, doctype, name))) allowed.push(r);
  const context = { doc };
  const subject = await renderMailTemplate(n.subject, context, 'text', `The subject of Notification ${n.name}`);
  if (n.channel === 'Email') {
    // Without outgoing mail an Email notification sends nothing rather than refusing the document's write.
    if (!(await hasOutgoingMail({ q: ctx.q, dialect: ctx.dialect, metas: ctx.metas, encryptionKey: deps.encryptionKey, config: deps.config }))) return;
    // cc and bcc addresses that belong to users are checked like the others.
    const fixed = async (list: string[]) => {
      const kept: string[] = [];
      for (const address of list) {
        const user = await findLoginUser(ctx, address);
        if (user === undefined || (await mayRead(deps, ctx, user, doctype, name))) kept.push(address);
      }
      return kept;
    };
    const recipients = allowed.map((r) => r.email);
    const ccKept = await fixed(cc);
    const bccKept = await fixed(bcc);
    if (recipients.length + ccKept.length + bccKept.length === 0) return;
    const message = await renderMailTemplate(n.message, context, 'html', `Notification ${n.name}`);
    await queueMail(deps, ctx, {
      recipients,
      cc: ccKept,
      bcc: bccKept,
      subject,
      message,
      headers: {},
      priority: 1,
      attachments: [],
      referenceDoctype: doctype,
      referenceName: name,
    });
    return;
  }
  const message = n.message.trim() === '' ? '' : await renderMailTemplate(n.message, context, 'html', `Notification ${n.name}`);
  for (const r of allowed) {
    if (r.user === undefined) continue;
    await recordNotificationLog(deps, ctx, { forUser: r.user, subject, doctype, name, type: 'Alert', emailContent: message || null });
  }
}

/** One Notification Log row for a user (the reference's `type`: Alert, Assignment, ...). */
export interface NotificationLogEntry {
  readonly forUser: string;
  readonly fromUser?: string;
  readonly subject: string;
  readonly doctype: string;
  readonly name: string;
  readonly type: 'Alert' | 'Assignment' | 'Mention' | 'Share';
  readonly emailContent?: string | null;
}

/**
 * Writes a Notification Log in the caller's unit of work and tells its user live once the unit
 * committed (docs/mail.md "Notifications"): nothing is told of a write that rolled back.
 */
export async function recordNotificationLog(
  deps: Pick<NotificationDeps, 'documents' | 'realtime'>,
  ctx: DocContext,
  entry: NotificationLogEntry,
): Promise<void> {
  const { forUser: user, subject, doctype, name } = entry;
  const log = await deps.documents.insert(
    ctx,
    NOTIFICATION_LOG,
    {
      for_user: user,
      from_user: entry.fromUser ?? null,
      subject,
      document_type: doctype,
      document_name: name,
      type: entry.type,
      read: 0,
      email_content: entry.emailContent ?? null,
    },
    { ignorePermissions: true },
  );
  ctx.unit.afterCommit(() => deps.realtime.publish('notification', { name: log.name, subject, document_type: doctype, document_name: name }, { user }));
}
