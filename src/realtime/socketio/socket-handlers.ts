import type { Socket } from 'socket.io';
import type { Principal } from '../../auth/principal.js';
import { principalOf } from '../read-decider.js';
import { announceViewers, type OpenDocTopic } from '../doc-viewers.js';
import type { RealtimeHub } from '../realtime-hub.js';
import type { TopicAccess } from '../realtime-site.js';
import type { SocketSubscriber } from './socket-transport.js';
import { docTopic, doctypeTopic, mayJoin, roomOf, taskTopic, type Topic } from '../topics.js';

/** An optional Socket.IO acknowledgement: `{ok: true}` or `{ok: false, error}`. Clients that pass none get nothing. */
type Ack = ((answer: { ok: boolean; error?: string }) => void) | undefined;

function lastAck(args: unknown[]): Ack {
  const last = args[args.length - 1];
  return typeof last === 'function' ? (last as Ack) : undefined;
}

/** The rooms a client is in from the start: its user's, `website`, and `all` for System Users (reference handlers). */
export function ownRooms(principal: Principal): string[] {
  if (principal.isGuest) return ['website'];
  const rooms = [`user:${principal.user}`, 'website'];
  if (principal.userType === 'System User') rooms.push('all');
  return rooms;
}

/**
 * The client events of the reference's realtime server (docs/realtime.md, "Connecting with Socket.IO"). A
 * subscription is checked against the user's read permission at that moment; a refused or
 * malformed one is ignored, as in the reference, and only an acknowledgement callback (an fw
 * addition) says so. Events for the document rooms are filtered again at each delivery.
 */
export function handleSocketEvents(site: TopicAccess, hub: RealtimeHub, subscriber: SocketSubscriber): void {
  const socket: Socket = subscriber.socket;
  const opened = new Map<string, OpenDocTopic>();

  /** Joins after the permission check with the user's current roles; a user gone or disabled is disconnected. */
  const subscribe = async (topic: Topic | undefined, ack: Ack): Promise<boolean> => {
    if (!topic) {
      ack?.({ ok: false, error: 'malformed subscription' });
      return false;
    }
    const principal = await principalOf(site, subscriber.user);
    if (!principal) {
      subscriber.close('user disabled');
      return false;
    }
    const allowed = await mayJoin(site, principal, topic).catch(() => false);
    if (!allowed || !socket.connected) {
      ack?.({ ok: false, error: 'not permitted' });
      return false;
    }
    if (!hub.join(subscriber, roomOf(topic))) {
      ack?.({ ok: false, error: 'too many subscriptions' });
      return false;
    }
    ack?.({ ok: true });
    return true;
  };
  const unsubscribe = (topic: Topic | undefined, ack: Ack) => {
    if (topic) hub.leave(subscriber, roomOf(topic));
    ack?.({ ok: topic !== undefined });
  };

  socket.on('doctype_subscribe', (doctype: unknown, ...rest: unknown[]) => void subscribe(doctypeTopic(doctype), lastAck(rest)));
  socket.on('doctype_unsubscribe', (doctype: unknown, ...rest: unknown[]) => unsubscribe(doctypeTopic(doctype), lastAck(rest)));
  socket.on('doc_subscribe', (doctype: unknown, name: unknown, ...rest: unknown[]) => void subscribe(docTopic('doc', doctype, name), lastAck(rest)));
  socket.on('doc_unsubscribe', (doctype: unknown, name: unknown, ...rest: unknown[]) => unsubscribe(docTopic('doc', doctype, name), lastAck(rest)));
  socket.on('task_subscribe', (taskId: unknown, ...rest: unknown[]) => void subscribe(taskTopic(taskId), lastAck(rest)));
  socket.on('progress_subscribe', (taskId: unknown, ...rest: unknown[]) => void subscribe(taskTopic(taskId), lastAck(rest)));
  socket.on('task_unsubscribe', (taskId: unknown, ...rest: unknown[]) => unsubscribe(taskTopic(taskId), lastAck(rest)));
  socket.on('doc_open', async (doctype: unknown, name: unknown, ...rest: unknown[]) => {
    const topic = docTopic('open_doc', doctype, name) as OpenDocTopic | undefined;
    if (!(await subscribe(topic, lastAck(rest))) || !topic) return;
    opened.set(roomOf(topic), topic);
    await announceViewers(hub, topic);
  });
  socket.on('doc_close', (doctype: unknown, name: unknown, ...rest: unknown[]) => {
    const topic = docTopic('open_doc', doctype, name) as OpenDocTopic | undefined;
    unsubscribe(topic, lastAck(rest));
    if (!topic || !opened.delete(roomOf(topic))) return;
    void announceViewers(hub, topic);
  });
  socket.on('ping', (...args: unknown[]) => {
    socket.emit('pong');
    lastAck(args)?.({ ok: true });
  });
  socket.on('disconnect', () => {
    hub.remove(subscriber);
    for (const topic of opened.values()) void announceViewers(hub, topic);
  });
}
