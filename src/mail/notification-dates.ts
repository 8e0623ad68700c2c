import { formatDate, wallClock } from '../datetime/clock.js';
import type { DocContext } from '../documents/doc-context.js';
import type { Row } from '../storage/database.js';
import { fire, loadNotifications, type LoadedNotification, type NotificationDeps } from './notifications.js';

/** The daily job that sends Days Before and Days After notifications (docs/mail.md "Notifications"). */
export const DATE_NOTIFICATIONS_JOB = 'fw.mail.date_notifications';

/** What the daily job needs besides what firing a notification needs. */
export interface DateNotificationDeps extends NotificationDeps {
  readonly timeZone: () => string;
}

const DAY_MS = 86_400_000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** `date` moved by `days` (whole calendar days, no time zone involved). */
export function addDays(date: string, days: number): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const t = new Date(Date.UTC(y, m - 1, d) + days * DAY_MS);
  return formatDate({ year: t.getUTCFullYear(), month: t.getUTCMonth() + 1, day: t.getUTCDate() });
}

/** The Reference Date a notification looks for on `today`: ahead for Days Before, behind for Days After. */
export function referenceDate(n: Pick<LoadedNotification, 'event' | 'daysInAdvance'>, today: string): string {
  return addDays(today, n.event === 'Days Before' ? n.daysInAdvance : -n.daysInAdvance);
}

/**
 * Registers the daily run: for every enabled Days Before / Days After notification, the documents
 * (not cancelled) whose Reference Date falls on the day it looks for, filtered by its condition,
 * fire as any other event does. `args.date` (`YYYY-MM-DD`) replaces today, in the site's time zone,
 * so a missed day can be run again by hand.
 */
export function registerDateNotifications(deps: DateNotificationDeps): void {
  deps.jobs.register(
    DATE_NOTIFICATIONS_JOB,
    async (args: { date?: unknown }, run) => {
      const given = typeof args.date === 'string' && DATE.test(args.date) ? args.date : undefined;
      const today = given ?? formatDate(wallClock(deps.jobs.clock.now(), deps.timeZone()));
      await run.write((ctx) => sendDateNotifications(deps, ctx, today));
    },
    { timeout: 600_000, maxRetries: 0 },
  );
  deps.jobs.schedule('daily', DATE_NOTIFICATIONS_JOB);
}

async function sendDateNotifications(deps: NotificationDeps, ctx: DocContext, today: string): Promise<void> {
  for (const [doctype, notifications] of await loadNotifications(ctx)) {
    if (!ctx.metas.has(doctype)) continue;
    const meta = ctx.metas.get(doctype);
    for (const n of notifications) {
      if (n.event !== 'Days Before' && n.event !== 'Days After') continue;
      if (!meta.hasColumn(n.dateChanged)) continue;
      const day = referenceDate(n, today);
      // A half-open day covers Date and Datetime fields alike.
      const rows = await ctx.q.all<Row>(
        ctx.dialect.builder
          .selectFrom(meta.tableName)
          .select('name')
          .where(n.dateChanged, '>=', day)
          .where(n.dateChanged, '<', addDays(day, 1))
          .where('docstatus', '<', 2)
          .orderBy('name')
          .compile(),
      );
      for (const row of rows) {
        const doc = await deps.documents.get(ctx, doctype, String(row.name));
        if (n.condition && !n.condition.matches(doc)) continue;
        await fire(deps, ctx, doctype, doc, n);
      }
    }
  }
}
