import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';

/** A second listening port and how to stop it. */
export interface ExtraPort {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * Serves the app on a second port too (`socketio_port`, `--socketio-port`): frappe-ui and
 * frappe-react-sdk apps served from a page with an explicit port connect Socket.IO to port 9000
 * (docs/realtime.md, "Connecting with Socket.IO"). Every request and upgrade is handed to the app's own server,
 * so the second port behaves exactly like the first, Socket.IO and API alike.
 */
export async function listenOnSocketIoPort(app: FastifyInstance, host: string, port: number): Promise<ExtraPort> {
  const main = app.server;
  const extra = createServer();
  extra.on('request', (req: IncomingMessage, res: ServerResponse) => main.emit('request', req, res));
  extra.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => main.emit('upgrade', req, socket, head));
  await new Promise<void>((resolve, reject) => {
    extra.once('error', reject);
    extra.listen({ host, port }, () => resolve());
  });
  const address = extra.address();
  return {
    port: typeof address === 'object' && address ? address.port : port,
    close: () =>
      new Promise<void>((resolve) => {
        extra.closeAllConnections();
        extra.close(() => resolve());
      }),
  };
}
