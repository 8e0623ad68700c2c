import type { IdentityHolder } from '../auth/identity.js';
import type { Principal } from '../auth/principal.js';
import type { DocContext } from '../documents/doc-context.js';
import type { DocumentService } from '../documents/document-service.js';
import type { SettingsSource } from '../settings/site-settings.js';
import type { Database, Queryable } from '../storage/database.js';
import type { RealtimeBus } from './bus/realtime-bus.js';
import type { RealtimeConfig } from './realtime-config.js';

/*
 * What realtime takes of a site (docs/architecture.md "The parts and their arrows"): narrow ports,
 * each naming only what its users read, so realtime imports neither `site/` nor `http/`. `Site`
 * satisfies every one of them as it is; the composition root and the HTTP app hand it over whole.
 */

/** `trust_proxy` of site_config.json, as the HTTP app also reads it (docs/deployment.md, "Behind a reverse proxy"). */
export type TrustProxy = false | number | readonly string[];

/** The maintenance keys of site_config.json as they are now (docs/configuration.md "Maintenance"). */
export interface MaintenanceSource {
  readonly maintenance: { readonly current: { readonly on: boolean; readonly allowReads: boolean } };
}

/** Read units and the document service, in which subscriptions and deliveries are judged. */
export interface ReadUnits {
  read<T>(principal: Principal, work: (ctx: DocContext) => Promise<T>): Promise<T>;
  readonly documents: DocumentService;
}

/** What judges a subscription: who a user is now (the Identity service) and what they may read. */
export interface TopicAccess extends ReadUnits, IdentityHolder {}

/** What the read check at delivery takes: the access of subscriptions, and a context per user inside one read unit. */
export interface DecidingSite extends TopicAccess {
  context(principal: Principal, q: Queryable, writable: boolean): DocContext;
}

/** What re-judging subscriptions takes: their access, and the caches it empties first. */
export interface RecheckSite extends TopicAccess {
  readonly principals: { clear(): void };
  readonly tokenCache: { clear(): void };
}

/** What the bus between processes is opened from: the realtime config and the database's broadcast channel. */
export interface BusSource {
  readonly config: { readonly realtime: RealtimeConfig };
  readonly db: Pick<Database, 'broadcast'>;
}

/** What the event stream takes: its limits, the origin policy's settings, identity and read access. */
export interface StreamSite extends TopicAccess, SettingsSource {
  readonly config: { readonly realtime: RealtimeConfig };
}

/** What the Socket.IO server takes: the stream's parts, `trust_proxy`, and the maintenance state. */
export interface SocketSite extends StreamSite, MaintenanceSource {
  readonly config: { readonly realtime: RealtimeConfig; readonly trust_proxy: TrustProxy };
}

/** Everything the server half of realtime takes of a site (`registerRealtime`); `Site` is one. */
export interface RealtimeSite extends SocketSite, DecidingSite, RecheckSite, BusSource {
  readonly config: SocketSite['config'];
  readonly db: Database;
  /** The site's publisher, which the server attaches its bus to. */
  readonly realtime: { attach(bus: RealtimeBus | undefined): void };
}
