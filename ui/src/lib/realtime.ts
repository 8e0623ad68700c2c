/*
 * Live updates (docs/admin-ui.md): the list refreshes on `list_update`, the form shows a banner on
 * `doc_update`. Views subscribe here and never see the transport; `connect` is where the socket is
 * opened once fw serves one.
 */

export interface DocUpdate {
  doctype: string;
  name: string;
  modified?: string;
  modified_by?: string;
}

type Listener = (event: DocUpdate) => void;

const listeners = { list_update: new Set<{ doctype: string; fn: Listener }>(), doc_update: new Set<{ doctype: string; name: string; fn: Listener }>() };

/** Calls `fn` whenever a document of `doctype` is created, saved or deleted; returns the unsubscribe. */
export function onListUpdate(doctype: string, fn: Listener): () => void {
  const entry = { doctype, fn };
  listeners.list_update.add(entry);
  transport?.subscribeList(doctype);
  return () => listeners.list_update.delete(entry);
}

/** Calls `fn` whenever the document is saved; returns the unsubscribe. */
export function onDocUpdate(doctype: string, name: string, fn: Listener): () => void {
  const entry = { doctype, name, fn };
  listeners.doc_update.add(entry);
  transport?.subscribeDoc(doctype, name);
  return () => {
    listeners.doc_update.delete(entry);
    transport?.unsubscribeDoc(doctype, name);
  };
}

/** Hands an event from the transport to the views that asked for it. */
export function dispatch(event: 'list_update' | 'doc_update', data: DocUpdate): void {
  if (event === 'list_update') {
    for (const l of listeners.list_update) if (l.doctype === data.doctype) l.fn(data);
  } else {
    for (const l of listeners.doc_update) if (l.doctype === data.doctype && l.name === data.name) l.fn(data);
  }
}

/** The `notification` event: a Notification Log was made for this user (docs/mail.md "Notifications"). */
export interface NotificationEvent {
  name: string;
  subject: string;
  document_type: string;
  document_name: string;
}

const notificationListeners = new Set<(event: NotificationEvent) => void>();

/** Calls `fn` on every `notification` event to the signed-in user; returns the unsubscribe. */
export function onNotification(fn: (event: NotificationEvent) => void): () => void {
  notificationListeners.add(fn);
  return () => notificationListeners.delete(fn);
}

/** Hands a `notification` event from the transport to its listeners. */
export function dispatchNotification(data: NotificationEvent): void {
  for (const fn of notificationListeners) fn(data);
}

/** What a transport must do: join and leave the reference's rooms. */
export interface Transport {
  subscribeList(doctype: string): void;
  subscribeDoc(doctype: string, name: string): void;
  unsubscribeDoc(doctype: string, name: string): void;
}

let transport: Transport | undefined;

/** Installs the transport once the shell knows the user is signed in. */
export function useTransport(t: Transport): void {
  transport = t;
  for (const l of listeners.list_update) t.subscribeList(l.doctype);
  for (const l of listeners.doc_update) t.subscribeDoc(l.doctype, l.name);
}
