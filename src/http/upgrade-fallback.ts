import type { IncomingMessage, Server as HttpServer } from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * The request line and headers of `req` again, without what asks to switch protocols: the
 * `Upgrade` header and the `upgrade` token of `Connection`.
 */
function plainRequestHead(req: IncomingMessage): string {
  let head = `${req.method} ${req.url} HTTP/${req.httpVersion}\r\n`;
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!;
    let value = raw[i + 1]!;
    const lower = name.toLowerCase();
    if (lower === 'upgrade') continue;
    if (lower === 'connection') {
      value = value
        .split(',')
        .map((token) => token.trim())
        .filter((token) => token !== '' && token.toLowerCase() !== 'upgrade')
        .join(', ');
      if (value === '') continue;
    }
    head += `${name}: ${value}\r\n`;
  }
  return `${head}\r\n`;
}

/**
 * Once a server has an 'upgrade' listener (Socket.IO's), Node hands every request carrying
 * `Upgrade` (a WebSocket to another path, `curl --http2`'s `Upgrade: h2c`) to that event instead
 * of the app, and Socket.IO closes those that are not its own without a word. A server may ignore
 * an upgrade it does not offer (RFC 9110 7.8), so such a request is given back to the server's
 * HTTP handling without its `Upgrade`, and answered like any other. `isOwnUpgrade` tells the
 * upgrades another listener takes (Socket.IO's path).
 */
export function serveOtherUpgradesAsHttp(server: HttpServer, isOwnUpgrade: (url: string) => boolean): void {
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, bodyHead: Buffer) => {
    if (isOwnUpgrade(req.url ?? '')) return;
    socket.unshift(Buffer.concat([Buffer.from(plainRequestHead(req), 'latin1'), bodyHead]));
    server.emit('connection', socket);
  });
}
