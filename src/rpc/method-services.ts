import type { SessionStore } from '../auth/sessions.js';
import type { DocumentService } from '../documents/document-service.js';
import type { UnitRunner } from '../documents/unit-runner.js';
import type { FileStore } from '../files/file-store.js';
import type { Settings } from '../settings/settings.js';

/**
 * What a method handler (`MethodCall.services`, `DocMethodCall.services`) may use of its site,
 * beside the unit of work in `ctx`: the services, never the site itself, so no handler reaches
 * the database handle, the whole configuration (its `encryption_key`) or the registries
 * (docs/apps.md, "Whitelisted methods"). `openSite` builds one per site (`Site.services`). An
 * app's handlers publish live events through the `api.realtime` their `register` was given.
 */
export interface MethodServices extends UnitRunner {
  /** get, insert, update, submit, cancel, discard, delete: permission checks, validation and hooks. */
  readonly documents: DocumentService;
  /** The site's one file store (docs/files.md). */
  readonly files: FileStore;
  /** Database sessions: create at login, destroy at logout, CSRF tokens. */
  readonly sessions: SessionStore;
  /** The settings in effect: System Settings over site_config.json (docs/configuration.md). */
  settings(): Promise<Settings>;
}
