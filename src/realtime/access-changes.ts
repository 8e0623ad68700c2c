import type { CommittedDocEvent, HookRegistry } from '../documents/hooks.js';
import type { RealtimePublisher } from './realtime-publisher.js';

/** The user a share or User Permission row concerns; undefined (everyone) for a share with everyone. */
function userOf(row: CommittedDocEvent['doc']): string | undefined {
  if (Number(row.everyone) === 1) return undefined;
  return typeof row.user === 'string' && row.user !== '' ? row.user : undefined;
}

/**
 * Tells every process, through the bus and after the commit, that rights changed, so it judges the
 * next events with the rights as they are and drops the subscriptions no longer allowed
 * (docs/realtime.md, "Privacy"): a User saved (roles taken away, Has Role rows), a User Permission
 * or DocShare written or removed (that user, or everyone for a share with everyone), a Role or a
 * DocType's permission rows changed (everyone). A rolled-back change tells nothing.
 */
export function registerAccessChanges(hooks: HookRegistry, publisher: RealtimePublisher): void {
  const forUser = (e: CommittedDocEvent) => publisher.enqueue({ kind: 'access', user: e.name });
  const forRowUser = (e: CommittedDocEvent) => {
    const users = new Set([userOf(e.doc), ...(e.before ? [userOf(e.before)] : [])]);
    // A row that concerns everyone (or moved from one user to another) concerns everyone's clients.
    if (users.has(undefined)) return publisher.enqueue({ kind: 'access' });
    for (const user of users) if (user !== undefined) publisher.enqueue({ kind: 'access', user });
  };
  const forEveryone = () => publisher.enqueue({ kind: 'access' });
  hooks.onCommitted('User', 'on_update', forUser);
  for (const doctype of ['User Permission', 'DocShare']) {
    hooks.onCommitted(doctype, 'on_change', forRowUser);
    hooks.onCommitted(doctype, 'after_delete', forRowUser);
  }
  for (const doctype of ['Role', 'DocType']) {
    hooks.onCommitted(doctype, 'on_change', forEveryone);
    hooks.onCommitted(doctype, 'after_delete', forEveryone);
  }
}
