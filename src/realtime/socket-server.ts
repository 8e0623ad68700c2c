import type { Server as HttpServer } from 'node:http';
import { Server, type Namespace, type Socket } from 'socket.io';
import type { Site } from '../site/site.js';
import { authenticateHandshake, hostnameOf, originPermitted } from './handshake-auth.js';
import type { RealtimeHub } from './realtime-hub.js';
import { handleSocketEvents, ownRooms } from './socket-handlers.js';
import { SocketSubscriber, SocketTransport } from './socket-transport.js';

/** Where the reference's clients look for Socket.IO. */
export const SOCKET_IO_PATH = '/socket.io';
/** Namespaces a server without `site_name` creates for the host names it is reached by; more are refused. */
const MAX_HOST_NAMESPACES = 32;
const NAMESPACE = /^\/[A-Za-z0-9._-]{1,253}$/;

/** An error a refused client sees in `connect_error` (its `message`). */
function refusal(message: string): Error {
  return new Error(message);
}

/**
 * The Socket.IO 4 server of a site on the same HTTP server as the API, at `/socket.io`, with one
 * namespace named after the site (`site_name`, or the host name the client used; docs/realtime.md).
 * Every connection is authenticated like an HTTP request and checked for a cross-site origin
 * before it joins anything.
 */
export function createSocketServer(site: Site, hub: RealtimeHub, httpServer: HttpServer): Server {
  const config = site.config.realtime;
  const transport = new SocketTransport();
  const io = new Server(httpServer, {
    path: SOCKET_IO_PATH,
    serveClient: false,
    maxHttpBufferSize: config.realtime_max_message_bytes,
    cleanupEmptyChildNamespaces: true,
    // Polling requests from another origin need CORS; which origins may connect is decided below.
    cors: { origin: true, credentials: true },
    // Upgrades to other paths are served as plain HTTP by the app (http/upgrade-fallback.ts), not closed.
    destroyUpgrade: false,
  });
  // Clients of the reference must name the site: the default namespace serves nobody.
  io.use((_socket, next) => next(refusal('Invalid namespace')));

  const hostNamespaces = new Set<string>();
  const namespace: Namespace = config.site_name
    ? io.of(`/${config.site_name}`)
    : io.of((name, _auth, next) => {
        const known = hostNamespaces.has(name);
        if (!known && (!NAMESPACE.test(name) || hostNamespaces.size >= MAX_HOST_NAMESPACES)) return next(null, false);
        hostNamespaces.add(name);
        next(null, true);
      });

  namespace.use((socket: Socket, next: (err?: Error) => void) => {
    void admit(site, hub, socket).then(() => next(), (err: Error) => next(refusal(err.message)));
  });
  namespace.on('connection', (socket: Socket) => {
    const { user, sid, rooms } = socket.data as SocketData;
    const subscriber = new SocketSubscriber(socket, user, sid, transport);
    hub.add(subscriber, rooms);
    handleSocketEvents(site, hub, subscriber);
  });
  return io;
}

/** What the connection middleware learnt about a socket. */
interface SocketData {
  readonly user: string;
  readonly sid: string | undefined;
  readonly rooms: string[];
}

/**
 * The checks of a new connection, in the reference's order: the namespace must be the site's, the
 * origin the site's own or an allowed one, the credentials valid; then fw's per-user limit.
 */
async function admit(site: Site, hub: RealtimeHub, socket: Socket): Promise<void> {
  const { headers } = socket.handshake;
  const config = site.config.realtime;
  if (!config.site_name) {
    const forwarded = site.config.trust_proxy ? headers['x-forwarded-host'] : undefined;
    const host = hostnameOf(Array.isArray(forwarded) ? forwarded[0] : forwarded) ?? hostnameOf(headers.host);
    if (socket.nsp.name.slice(1).toLowerCase() !== host) throw new Error('Invalid namespace');
  }
  if (!(await originPermitted(site, headers))) throw new Error('Invalid origin');
  let authenticated: Awaited<ReturnType<typeof authenticateHandshake>>;
  try {
    authenticated = await authenticateHandshake(site, { headers, auth: socket.handshake.auth as Record<string, unknown> | undefined });
  } catch {
    throw new Error('Invalid credentials');
  }
  const { principal, sid } = authenticated;
  if (hub.countFor(principal.user) >= config.realtime_max_sockets_per_user) throw new Error('Too many connections for this user');
  const data: SocketData = { user: principal.user, sid, rooms: ownRooms(principal) };
  socket.data = data;
}

/** Closes every engine connection (their sockets leave the hub), leaving the HTTP server to its owner. */
export function closeSocketServer(io: Server): void {
  io.engine.close();
}
