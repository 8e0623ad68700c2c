import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../../auth/principal.js';
import { DataError, TooManyRequestsError } from '../../errors/index.js';
import { authenticateCredentials } from '../../auth/identity.js';
import { cookiesTrusted, originTrust, sidCookie } from '../handshake-auth.js';
import type { RealtimeHub } from '../realtime-hub.js';
import type { StreamSite } from '../realtime-site.js';
import { ownRooms } from '../socketio/socket-handlers.js';
import { formatEvent, StreamSubscriber, StreamTransport } from './sse-transport.js';
import { docTopic, doctypeTopic, mayJoin, roomOf, taskTopic, type Topic } from '../topics.js';

/** The path of the event stream (docs/realtime.md, "Server-Sent Events"). */
export const SSE_PATH = '/api/v2/realtime';
/** How long a browser waits before reconnecting a dropped stream. */
const RETRY_MS = 3000;

function list(value: unknown): string[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).map(String);
}

/** The topics a stream asks for: `doctype=ToDo`, `doc=ToDo/<name>` (the name may hold `/`), `task=<id>`, each repeatable. */
function requestedTopics(query: Record<string, unknown>, max: number): Topic[] {
  const topics: (Topic | undefined)[] = [];
  for (const doctype of list(query.doctype)) topics.push(doctypeTopic(doctype) ?? bad(`doctype=${doctype}`));
  for (const doc of list(query.doc)) {
    const slash = doc.indexOf('/');
    topics.push((slash > 0 ? docTopic('doc', doc.slice(0, slash), doc.slice(slash + 1)) : undefined) ?? bad(`doc=${doc}`));
  }
  for (const task of list(query.task)) topics.push(taskTopic(task) ?? bad(`task=${task}`));
  if (topics.length > max) throw new DataError(`At most ${max} subscriptions per stream`);
  return topics as Topic[];
}

function bad(what: string): never {
  throw new DataError(`Malformed subscription ${what.slice(0, 200)}: use doctype=<DocType>, doc=<DocType>/<name> or task=<id>`);
}

let streams = 0;

/**
 * Who a stream acts as: as any request, except that a page of another origin that `allow_cors`
 * does not name (`"*"` admits any page, never with the visitor's session) cannot use the session
 * cookie its browser adds on its own; it is Guest unless it presents a token (docs/realtime.md, "Connecting with Socket.IO").
 */
async function streamPrincipal(site: StreamSite, req: FastifyRequest): Promise<{ principal: Principal; sid: string | undefined }> {
  const cookies = cookiesTrusted(await originTrust(site, req.headers));
  const parameter = (req.query as { sid?: unknown }).sid;
  // A `sid` parameter wins over the cookie, as for any request (docs/api.md "Authentication").
  const sid = () => (!cookies ? undefined : typeof parameter === 'string' && parameter !== '' ? parameter : sidCookie(req.headers.cookie));
  return authenticateCredentials(site, { authorization: req.headers.authorization, sid });
}

/**
 * `GET /api/v2/realtime`: the realtime events as `text/event-stream`, for clients without
 * Socket.IO (EventSource, `curl -N`). Same authentication as any request, same rooms and permission
 * checks as a socket; refused subscriptions are listed in the first `ready` event and otherwise
 * ignored. Each event carries an id; a client that reconnects with `Last-Event-ID` gets what it
 * missed while that id is among the recent events, else a `resync` event telling it to refetch.
 */
export function registerSseRoute(app: FastifyInstance, site: StreamSite, hub: RealtimeHub): void {
  const transport = new StreamTransport();
  const config = site.config.realtime;

  app.get(SSE_PATH, async (req: FastifyRequest, reply: FastifyReply) => {
    const topics = requestedTopics(req.query as Record<string, unknown>, config.realtime_max_subscriptions);
    const { principal, sid } = await streamPrincipal(site, req);
    if (hub.countFor(principal.user, req.ip) >= config.realtime_max_sockets_per_user) {
      throw new TooManyRequestsError(principal.isGuest ? 'Too many realtime connections from this address' : 'Too many realtime connections for this user');
    }
    const verdicts = await Promise.all(topics.map((t) => mayJoin(site, principal, t).catch(() => false)));
    const granted = topics.filter((_, i) => verdicts[i]).map(roomOf);
    const refused = topics.filter((_, i) => !verdicts[i]).map(roomOf);

    const viaToken = !principal.isGuest && sid === undefined;
    const subscriber = new StreamSubscriber(
      `sse-${process.pid}-${++streams}`,
      principal.user,
      sid,
      viaToken,
      viaToken ? req.headers.authorization : undefined,
      req.ip,
      transport,
    );
    subscriber.write(`retry: ${RETRY_MS}\n\n`);
    subscriber.write(formatEvent('ready', { user: principal.user, rooms: [...ownRooms(principal), ...granted], refused }));
    const lastEventId = req.headers['last-event-id'];
    // Joining and catching up happen between two batches, so nothing is missed or sent twice.
    await hub.exclusive(async () => {
      hub.add(subscriber, [...ownRooms(principal), ...granted]);
      if (typeof lastEventId === 'string' && lastEventId !== '') await replay(hub, subscriber, lastEventId);
    });

    const heartbeat = setInterval(() => subscriber.write(': heartbeat\n\n'), config.realtime_heartbeat_seconds * 1000);
    const end = () => {
      clearInterval(heartbeat);
      hub.remove(subscriber);
      subscriber.close('closed');
    };
    req.raw.once('close', end);
    subscriber.stream.once('end', () => clearInterval(heartbeat));
    reply.header('Content-Type', 'text/event-stream; charset=utf-8').header('X-Accel-Buffering', 'no').header('Connection', 'keep-alive');
    return reply.send(subscriber.stream);
  });
}

/** Sends the events after `lastEventId` that the stream's rooms and user may see, or `resync` when they are no longer known. */
async function replay(hub: RealtimeHub, subscriber: StreamSubscriber, lastEventId: string): Promise<void> {
  const missed = hub.recent.after(lastEventId);
  if (!missed) {
    subscriber.write(formatEvent('resync', { reason: 'Last-Event-ID is not among the recent events' }));
    return;
  }
  const cache = new Map<string, unknown>();
  for (const message of missed) {
    if (!subscriber.rooms.has(message.room)) continue;
    const audience = await hub.audience(message, [subscriber], cache);
    if (audience.length > 0) subscriber.transport.send([{ subscribers: audience, message }]);
  }
}
