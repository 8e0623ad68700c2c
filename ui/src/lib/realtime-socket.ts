import { dispatch, useTransport, type DocUpdate } from './realtime';

/*
 * The Socket.IO transport: the reference's protocol as fw serves it at /socket.io (namespace: the
 * site name, else the host name; rooms joined with doctype_subscribe and doc_subscribe). The client
 * library is loaded on first use, in its own chunk, so the shell stays small; the connection carries
 * the session cookie like any same-origin request.
 */
let started = false;

export async function startRealtime(siteName: string | null): Promise<void> {
  if (started) return;
  started = true;
  const { io } = await import('socket.io-client');
  const socket = io(`/${siteName ?? window.location.hostname}`, { path: '/socket.io', withCredentials: true });
  const lists = new Set<string>();
  const docs = new Map<string, number>();
  socket.on('list_update', (data: DocUpdate) => dispatch('list_update', data));
  socket.on('doc_update', (data: DocUpdate) => dispatch('doc_update', data));
  // Rooms belong to one connection: after a reconnect every subscription is asked for again.
  socket.on('connect', () => {
    for (const doctype of lists) socket.emit('doctype_subscribe', doctype);
    for (const key of docs.keys()) {
      const [doctype, name] = JSON.parse(key) as [string, string];
      socket.emit('doc_subscribe', doctype, name);
    }
  });
  useTransport({
    subscribeList(doctype) {
      if (lists.has(doctype)) return;
      lists.add(doctype);
      socket.emit('doctype_subscribe', doctype);
    },
    subscribeDoc(doctype, name) {
      const key = JSON.stringify([doctype, name]);
      docs.set(key, (docs.get(key) ?? 0) + 1);
      socket.emit('doc_subscribe', doctype, name);
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
