import { dispatch, dispatchNotification, useTransport, type DocUpdate, type NotificationEvent } from './realtime';

/*
 * The Socket.IO transport: the reference's protocol as fw serves it at /socket.io (namespace: the
 * site name, else the host name; rooms joined with doctype_subscribe and doc_subscribe). The client
 * library is loaded on first use, in its own chunk, so the shell stays small; the connection carries
 * the session cookie like any same-origin request.
 */
let started = false;

/**
 * Counts the rooms the server confirmed on the page's root element (`data-realtime-joined`), so
 * tests and curious people can see that the page is listening before they change something.
 */
function joined(answer: unknown): void {
  if ((answer as { ok?: boolean } | undefined)?.ok !== true) return;
  const root = document.documentElement;
  root.dataset.realtimeJoined = String(Number(root.dataset.realtimeJoined ?? 0) + 1);
}

export async function startRealtime(siteName: string | null): Promise<void> {
  if (started) return;
  started = true;
  const { io } = await import('socket.io-client');
  const socket = io(`/${siteName ?? window.location.hostname}`, { path: '/socket.io', withCredentials: true });
  const lists = new Set<string>();
  const docs = new Map<string, number>();
  socket.on('list_update', (data: DocUpdate) => dispatch('list_update', data));
  socket.on('doc_update', (data: DocUpdate) => dispatch('doc_update', data));
  socket.on('notification', (data: NotificationEvent) => dispatchNotification(data));
  // Rooms belong to one connection: after a reconnect every subscription is asked for again.
  socket.on('connect', () => {
    // Marks the page as listening (the user's own room is joined on connect), as data-realtime-joined does for rooms.
    document.documentElement.dataset.realtimeConnected = '1';
    for (const doctype of lists) socket.emit('doctype_subscribe', doctype, joined);
    for (const key of docs.keys()) {
      const [doctype, name] = JSON.parse(key) as [string, string];
      socket.emit('doc_subscribe', doctype, name, joined);
    }
  });
  useTransport({
    subscribeList(doctype) {
      if (lists.has(doctype)) return;
      lists.add(doctype);
      if (socket.connected) socket.emit('doctype_subscribe', doctype, joined);
    },
    subscribeDoc(doctype, name) {
      const key = JSON.stringify([doctype, name]);
      docs.set(key, (docs.get(key) ?? 0) + 1);
      if (socket.connected) socket.emit('doc_subscribe', doctype, name, joined);
    },
    unsubscribeDoc(doctype, name) {
      const key = JSON.stringify([doctype, name]);
      const left = (docs.get(key) ?? 1) - 1;
      if (left > 0) docs.set(key, left);
      else {
        docs.delete(key);
        socket.emit('doc_unsubscribe', doctype, name);
      }
    },
  });
}
