import { Server, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The server of one site under `fw serve --sites`: it never listens; the dispatcher in front
 * (serve-sites.ts) emits on it the `request` and `upgrade` events of that site's requests, so the
 * site's app, Socket.IO included, runs exactly as on a server of its own. `listen()` only
 * reports "listening" (the app's onListen hooks start the realtime bus) and `address()` answers
 * the dispatcher's address.
 */
export class SiteServer extends Server {
  readonly #address: () => AddressInfo | string | null;

  constructor(handler: RequestListener, address: () => AddressInfo | string | null) {
    super({ requireHostHeader: false }, handler);
    this.#address = address;
  }

  override listen(): this {
    process.nextTick(() => this.emit('listening'));
    return this;
  }

  override address(): AddressInfo | string | null {
    return this.#address();
  }
}
