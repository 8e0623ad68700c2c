import { GUEST_USER } from '../auth/principal.js';
import type { DocContext } from '../documents/doc-context.js';
import { FrappeTypeError, PermissionError } from '../errors/index.js';
import type { MethodCall, MethodRegistry } from '../rpc/method-registry.js';
import type { Row } from '../storage/database.js';
import { NOTIFICATION_LOG } from './doctypes/index.js';

/** The reference's Notification Log methods (docs/mail.md "Notifications"). */
export const LOG_METHODS = 'fw.desk.doctype.notification_log.notification_log';

function me(ctx: DocContext): string {
  if (ctx.principal.user === GUEST_USER) throw new PermissionError('Log in to read your notifications');
  return ctx.principal.user;
}

/** get_notification_logs, mark_as_read and mark_all_as_read: each user sees and marks only their own. */
export function registerNotificationLogMethods(methods: MethodRegistry): void {
  methods.register(
    `${LOG_METHODS}.get_notification_logs`,
    async ({ ctx, args }: MethodCall) => {
      const user = me(ctx);
      const limit = args.limit === undefined ? 20 : Number(args.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw new FrappeTypeError('limit must be a whole number from 1 to 500');
      const table = ctx.metas.get(NOTIFICATION_LOG).tableName;
      const b = ctx.dialect.builder;
      const logs = await ctx.q.all<Row>(
        b
          .selectFrom(table)
          .select(['name', 'subject', 'document_type', 'document_name', 'type', 'read', 'creation', 'email_content', 'from_user', 'for_user'])
          .where('for_user', '=', user)
          .orderBy('creation', 'desc')
          .orderBy('name', 'desc')
          .limit(limit)
          .compile(),
      );
      const [unread] = await ctx.q.all<{ n: number | string }>(
        b
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .where('for_user', '=', user)
          .where('read', '=', 0)
          .compile(),
      );
      return { notification_logs: logs.map((l) => ({ ...l, read: Number(l.read) })), unread_count: Number(unread?.n ?? 0) };
    },
    { methods: ['GET', 'POST'], params: [{ name: 'limit', type: 'int' }] },
  );

  methods.register(
    `${LOG_METHODS}.mark_as_read`,
    async ({ ctx, args }: MethodCall) => {
      const user = me(ctx);
      await ctx.q.run(
        ctx.dialect.builder
          .updateTable(ctx.metas.get(NOTIFICATION_LOG).tableName)
          .set({ read: 1 })
          .where('name', '=', String(args.docname))
          .where('for_user', '=', user)
          .compile(),
      );
    },
    { methods: ['POST'], params: [{ name: 'docname', type: 'string', required: true }] },
  );

  methods.register(
    `${LOG_METHODS}.mark_all_as_read`,
    async ({ ctx }: MethodCall) => {
      const user = me(ctx);
      await ctx.q.run(
        ctx.dialect.builder
          .updateTable(ctx.metas.get(NOTIFICATION_LOG).tableName)
          .set({ read: 1 })
          .where('for_user', '=', user)
          .where('read', '=', 0)
          .compile(),
      );
    },
    { methods: ['POST'] },
  );
}
