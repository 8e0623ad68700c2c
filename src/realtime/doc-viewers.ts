import type { RealtimeHub } from './realtime-hub.js';
import type { DeliveredMessage } from './realtime-message.js';
import { roomOf, type Topic } from './topics.js';

/** The room of a document open in a form. */
export type OpenDocTopic = Topic & { kind: 'open_doc' };

/**
 * Sends `doc_viewers` to an open-document room: the distinct users viewing the document in this
 * process. Like `doc_update`, it reaches only those who may read the document now and names only
 * them, so a viewer whose access ended (a share removed, a role taken away) neither hears who
 * looks at it nor shows up (docs/realtime.md, "Privacy"). Announcements run between two batches,
 * one after another, so a client never gets an older list after a newer one.
 */
export function announceViewers(hub: RealtimeHub, topic: OpenDocTopic): Promise<void> {
  const announcing = hub.exclusive(async () => {
    const room = roomOf(topic);
    const members = [...hub.members(room)];
    if (members.length === 0) return;
    const readableBy = { doctype: topic.doctype, name: topic.name };
    const probe: DeliveredMessage = { kind: 'event', id: '', event: 'doc_viewers', room, message: null, readableBy };
    const readers = await hub.audience(probe, members, new Map());
    if (readers.length === 0) return;
    const users = [...new Set(readers.map((m) => m.user))];
    hub.sendTo(readers, { ...probe, message: { doctype: topic.doctype, docname: topic.name, users } });
  });
  // The read check answers false rather than failing; nothing else here can fail a client.
  return announcing.catch(() => undefined);
}
