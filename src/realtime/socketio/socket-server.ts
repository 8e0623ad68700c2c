import type { IncomingHttpHeaders, Server as HttpServer } from 'node:http';
import { Server, type Namespace, type Socket } from 'socket.io';
import { clientAddressOf, proxyTrust } from './client-address.js';
import { authenticateHandshake, authorizationOf, cookiesTrusted, hostnameOf, originTrust } from '../handshake-auth.js';
import { siteStopped } from '../maintenance-watch.js';
import type { RealtimeHub } from '../realtime-hub.js';
import type { SocketSite } from '../realtime-site.js';
import { handleSocketEvents, ownRooms } from './socket-handlers.js';
import { SocketSubscriber, SocketTransport } from './socket-transport.js';

/** Where the reference's clients look for Socket.IO. */
export const SOCKET_IO_PATH = '/socket.io';
const NAMESPACE = /^\/[A-Za-z0-9._-]{1,253}$/;

/** What a refused client reads in `connect_error` (its `message`), and in a refused handshake's body. */
const IN_MAINTENANCE = 'Site in maintenance';

/** An error a refused client sees in `connect_error` (its `message`). */
function refusal(message: string): Error {
  return new Error(message);
}

/** The CORS answer of an Engine.IO request (polling), as the cors package takes it. */
interface EngineCors {
  readonly origin: string | false;
  readonly credentials: boolean;
}

/**
 * CORS for Socket.IO's long-polling requests, by the rules of the HTTP API (docs/security.md,
 * "CORS"): the Origin is echoed when it is the site's own host or allowed by `allow_cors`, and
 * credentials are allowed only for the site's own host and origins `allow_cors` lists by name,
 * never for one admitted by `"*"`.
 */
function engineCors(site: SocketSite) {
  return (req: { readonly headers: IncomingHttpHeaders }, callback: (err: Error | null, options: EngineCors) => void): void => {
    const origin = req.headers.origin;
    void originTrust(site, req.headers).then(
      (trust) =>
        callback(null, {
          origin: origin !== undefined && trust !== 'refused' && trust !== 'no-origin' ? origin : false,
          credentials: trust === 'same-host' || trust === 'listed',
        }),
      () => callback(null, { origin: false, credentials: false }),
    );
  };
}

/**
 * The Socket.IO 4 server of a site on the same HTTP server as the API, at `/socket.io`, with one
 * namespace named after the site (`site_name`, or the host name the client used; docs/realtime.md).
 * Every connection is authenticated like an HTTP request and checked for a cross-site origin
 * before it joins anything; none is opened while the site is in maintenance.
 */
export function createSocketServer(site: SocketSite, hub: RealtimeHub, httpServer: HttpServer): Server {
  const config = site.config.realtime;
  const transport = new SocketTransport();
  const io = new Server(httpServer, {
    path: SOCKET_IO_PATH,
    serveClient: false,
    maxHttpBufferSize: config.realtime_max_message_bytes,
    // A namespace that no admitted socket uses is closed, those that failed admission included.
    cleanupEmptyChildNamespaces: true,
    cors: engineCors(site),
    // A new Engine.IO session (a handshake) is refused in maintenance, as HTTP requests are.
    allowRequest: (_req, callback) => callback(IN_MAINTENANCE, !siteStopped(site)),
    // Upgrades to other paths are served as plain HTTP by the app (http/upgrade-fallback.ts), not closed.
    destroyUpgrade: false,
  });
  // Clients of the reference must name the site: the default namespace serves nobody.
  io.use((_socket, next) => next(refusal('Invalid namespace')));

  // Without site_name, the namespace is the host name the client used. Any well-formed name may
  // be tried; admission (below) refuses one that is not the Host's, and socket.io then closes the
  // namespace again, so names that fail hold no slot and cannot crowd out the real one.
  const namespace: Namespace = config.site_name ? io.of(`/${config.site_name}`) : io.of((name, _auth, next) => next(null, NAMESPACE.test(name)));

  const trust = proxyTrust(site.config.trust_proxy);
  namespace.use((socket: Socket, next: (err?: Error) => void) => {
    void admit(site, hub, socket, clientAddressOf(socket.request, trust)).then(
      () => next(),
      (err: Error) => next(refusal(err.message)),
    );
  });
  namespace.on('connection', (socket: Socket) => {
    const { user, sid, viaToken, authorization, address, rooms } = socket.data as SocketData;
    // Maintenance may have begun while this one was being admitted.
    if (siteStopped(site)) return void socket.disconnect(true);
    const subscriber = new SocketSubscriber(socket, user, sid, viaToken, viaToken ? authorization : undefined, address, transport);
    hub.add(subscriber, rooms);
    handleSocketEvents(site, hub, subscriber);
  });
  return io;
}

/** What the connection middleware learnt about a socket. */
interface SocketData {
  readonly user: string;
  readonly sid: string | undefined;
  readonly viaToken: boolean;
  readonly authorization: string | undefined;
  readonly address: string;
  readonly rooms: string[];
}

/**
 * The checks of a new connection, in the reference's order: the site must be serving, the
 * namespace must be the site's, the origin the site's own or an allowed one, the credentials valid
 * (cookies count only where the origin may use them); then fw's limit per user (per address for
 * Guests).
 */
async function admit(site: SocketSite, hub: RealtimeHub, socket: Socket, address: string): Promise<void> {
  const { headers } = socket.handshake;
  const config = site.config.realtime;
  if (siteStopped(site)) throw new Error(IN_MAINTENANCE);
  if (!config.site_name) {
    const forwarded = site.config.trust_proxy ? headers['x-forwarded-host'] : undefined;
    const host = hostnameOf(Array.isArray(forwarded) ? forwarded[0] : forwarded) ?? hostnameOf(headers.host);
    if (socket.nsp.name.slice(1).toLowerCase() !== host) throw new Error('Invalid namespace');
  }
  const trust = await originTrust(site, headers);
  if (trust === 'refused') throw new Error('Invalid origin');
  let authenticated: Awaited<ReturnType<typeof authenticateHandshake>>;
  const handshake = { headers, auth: socket.handshake.auth as Record<string, unknown> | undefined };
  try {
    authenticated = await authenticateHandshake(site, handshake, cookiesTrusted(trust));
  } catch {
    throw new Error('Invalid credentials');
  }
  const { principal, sid } = authenticated;
  if (hub.countFor(principal.user, address) >= config.realtime_max_sockets_per_user) {
    throw new Error(principal.isGuest ? 'Too many connections from this address' : 'Too many connections for this user');
  }
  const viaToken = !principal.isGuest && sid === undefined;
  const data: SocketData = { user: principal.user, sid, viaToken, authorization: authorizationOf(handshake), address, rooms: ownRooms(principal) };
  socket.data = data;
}

/** Closes every engine connection (their sockets leave the hub), leaving the HTTP server to its owner. */
export function closeSocketServer(io: Server): void {
  io.engine.close();
}
