import type { CollaborationNotice } from './collaboration-parts.js';

/** The Notification Log `type` of a notice, in the reference's values. */
export function noticeType(notice: CollaborationNotice): 'Assignment' | 'Alert' {
  return notice.kind === 'followed_document_changed' ? 'Alert' : 'Assignment';
}

/** The line a notice shows in the notification list (docs/collaboration.md "Notifications"). */
export function noticeSubject(notice: CollaborationNotice): string {
  const doc = `${notice.doctype} ${notice.name}`;
  switch (notice.kind) {
    case 'assigned':
      return `${notice.fromUser} assigned ${doc} to you${notice.description ? `: ${notice.description}` : ''}`;
    case 'assignment_cancelled':
      return `${notice.fromUser} removed your assignment on ${doc}`;
    case 'assignment_closed':
      return `${notice.fromUser} closed your assignment on ${doc}`;
    case 'followed_document_changed':
      return `${notice.fromUser} changed ${doc}, which you follow`;
  }
}
