import { createServer, request, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import type { Duplex } from 'node:stream';
import { randomBytes } from 'node:crypto';
import type { Server as SocketServer } from 'socket.io';
import { SOCKET_IO_PATH } from './socket-server.js';

/** An Engine.IO session id that names the worker holding it: `w<port>.<random>`. */
const OWNED_SID = /^w(\d{1,5})\./;

type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;
type UpgradeListener = (req: IncomingMessage, socket: Duplex, head: Buffer) => void;

/** The worker port an Engine.IO request's `sid` names, when it names one. */
function ownerPort(req: IncomingMessage): number | undefined {
  const url = req.url ?? '';
  if (!url.startsWith(`${SOCKET_IO_PATH}/`)) return undefined;
  const sid = new URL(url, 'http://x').searchParams.get('sid');
  const match = sid ? OWNED_SID.exec(sid) : null;
  return match ? Number(match[1]) : undefined;
}

/** What an Engine.IO client is told when its session is gone: it then starts a new one. */
function sessionGone(res: ServerResponse): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(400, { 'Content-Type': 'application/json' }).end(JSON.stringify({ code: 1, message: 'Session ID unknown' }));
}

function forwardRequest(port: number, req: IncomingMessage, res: ServerResponse): void {
  const upstream = request({ host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  upstream.on('error', () => sessionGone(res));
  req.pipe(upstream);
}

function forwardUpgrade(port: number, req: IncomingMessage, socket: Duplex, head: Buffer): void {
  const upstream = connect(port, '127.0.0.1', () => {
    const lines = [`${req.method} ${req.url} HTTP/1.1`];
    for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
    upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
    if (head.length > 0) upstream.write(head);
    socket.pipe(upstream).pipe(socket);
  });
  upstream.on('error', () => socket.destroy());
  socket.on('error', () => upstream.destroy());
}

/**
 * Keeps every request of a Socket.IO session on the worker that holds it, under `--workers`
 * (docs/realtime.md, "Long-polling and workers"). The cluster hands connections to workers
 * in turn, but long-polling sends each poll as a new request and the session lives in one worker's
 * memory. So each worker listens on a private loopback port, puts that port in the session ids it
 * issues, and relays a request (or WebSocket upgrade) that carries another worker's session id to
 * that worker. Returns the function that stops the private listener.
 */
export async function routeSessionsToTheirWorker(server: HttpServer, io: SocketServer): Promise<() => Promise<void>> {
  const requestListeners = server.listeners('request') as RequestListener[];
  const upgradeListeners = server.listeners('upgrade') as UpgradeListener[];
  const local = {
    request: (req: IncomingMessage, res: ServerResponse) => {
      for (const l of requestListeners) l.call(server, req, res);
    },
    upgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      for (const l of upgradeListeners) l.call(server, req, socket, head);
    },
  };

  // Reached only from the other workers on this machine, and only for Engine.IO requests.
  const inner = createServer();
  inner.on('request', (req, res) => (req.url?.startsWith(`${SOCKET_IO_PATH}/`) ? local.request(req, res) : res.writeHead(404).end()));
  inner.on('upgrade', (req, socket, head) => (req.url?.startsWith(`${SOCKET_IO_PATH}/`) ? local.upgrade(req, socket, head) : socket.destroy()));
  await new Promise<void>((resolve, reject) => {
    inner.once('error', reject);
    // exclusive: a cluster worker would otherwise share one port with its siblings.
    inner.listen({ host: '127.0.0.1', port: 0, exclusive: true }, () => resolve());
  });
  const address = inner.address();
  const myPort = typeof address === 'object' && address ? address.port : 0;
  io.engine.generateId = () => `w${myPort}.${randomBytes(15).toString('base64url')}`;

  server.removeAllListeners('request');
  server.removeAllListeners('upgrade');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const port = ownerPort(req);
    if (port === undefined || port === myPort) local.request(req, res);
    else forwardRequest(port, req, res);
  });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const port = ownerPort(req);
    if (port === undefined || port === myPort) local.upgrade(req, socket, head);
    else forwardUpgrade(port, req, socket, head);
  });
  return () =>
    new Promise<void>((resolve) => {
      inner.closeAllConnections();
      inner.close(() => resolve());
    });
}
