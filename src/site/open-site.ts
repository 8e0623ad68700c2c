import { BUILT_IN_DOCTYPES } from './built-in-doctypes.js';
import { mkdir, stat } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { loadApps } from '../apps/load-apps.js';
import { registerApps } from '../apps/register-apps.js';
import { Identity } from '../auth/identity.js';
import { ADMINISTRATOR_USER, loadPrincipal } from '../auth/principal.js';
import { PrincipalCache } from '../auth/principal-cache.js';
import { adminPasswordWeakness } from '../auth/password-policy.js';
import { SessionStore } from '../auth/sessions.js';
import { TokenCache } from '../auth/token-cache.js';
import { registerCommentController } from '../controllers/comment-controller.js';
import { registerDeletedDocumentController } from '../controllers/deleted-document-controller.js';
import { registerDocShareController } from '../controllers/doc-share-controller.js';
import { registerDocTypeController } from '../controllers/doctype-controller.js';
import { registerFileController } from '../controllers/file-controller.js';
import { registerSingleDocTypeController } from '../controllers/single-doctype-controller.js';
import { registerSystemSettingsController } from '../controllers/system-settings-controller.js';
import { registerToDoController } from '../controllers/todo-controller.js';
import { registerUserController } from '../controllers/user-controller.js';
import { registerUserPermissionController } from '../controllers/user-permission-controller.js';
import { registerUserSelfShare } from '../controllers/user-self-share.js';
import { registerVersionController } from '../controllers/version-controller.js';
import { DocumentService } from '../documents/document-service.js';
import { HookRegistry } from '../documents/hooks.js';
import { JobQueue } from '../jobs/job-queue.js';
import { registerJobMethods } from '../jobs/job-methods.js';
import { registerSiteScheduler } from './site-jobs.js';
import { registerWebhooks } from '../webhooks/register-webhooks.js';
import { registerWorkflows } from '../workflows/register-workflows.js';
import { registerReports } from '../reports/register-reports.js';
import { registerDataImport } from '../data-import/register-data-import.js';
import { registerDataExport } from '../data-export/register-data-export.js';
import { registerSearch } from '../search/register-search.js';
import { registerMail } from '../mail/register-mail.js';
import { registerTwoFactor, type TwoFactor } from '../twofactor/register-two-factor.js';
import type { JobClock } from '../jobs/job-clock.js';
import { registerSocialLogin } from '../social-login/register-social-login.js';
import { registerCollaboration } from '../collaboration/register-collaboration.js';
import { registerOAuth } from '../oauth/register-oauth.js';
import { noticeSubject, noticeType } from '../collaboration/notice-subject.js';
import { assertDatabaseUrl } from '../storage/database-url.js';
import { engineOf } from '../storage/open-database.js';
import { openFileStore } from '../files/open-file-store.js';
import { folderWriteProblem } from '../files/storage-failure.js';
import { createFieldTypeRegistry } from '../meta/field-types/index.js';
import { MetaRegistry } from '../meta/meta-registry.js';
import { registerBuiltinMethods } from '../rpc/builtin/index.js';
import { MethodRegistry } from '../rpc/method-registry.js';
import { createRealtime } from '../realtime/index.js';
import { setAdministratorPassword, type Progress } from './install-core.js';
import { migrateDatabase } from './migrate-site.js';
import { openSiteDatabase } from './open-site-database.js';
import { writeNewSiteConfig } from './site-config.js';
import { sitePaths, type SitePaths } from './site-paths.js';
import { prepareUndoOfSiteCreation } from './undo-site-creation.js';
import { siteSettings } from '../settings/site-settings.js';
import { Site } from './site.js';

/** Options of openSite. */
export interface OpenSiteOptions {
  /** Overrides the site config's database URL. */
  readonly dbUrl?: string;
  readonly progress?: Progress;
  /** Set by createSite only: the database may be new (see OpenSiteDatabaseOptions.create). */
  readonly create?: boolean;
  /** Where warnings about site_config.json go; stderr when absent. */
  readonly warn?: (message: string) => void;
  /** The site's clock for the job queue and two-factor codes (epoch ms); tests move it. The system clock by default. */
  readonly clock?: JobClock;
}

/**
 * The one composition root: config -> apps -> database -> registries -> services. Runs the built-in
 * part of the migration (migrateDatabase, scope `builtIn`: built-in DocTypes, and the apps'
 * DocTypes when they changed) before serving, so an upgraded fw or a newly listed app works on an
 * older site; custom DocTypes' tables are re-synced by `fw migrate`.
 */
export async function openSite(dir: string, options: OpenSiteOptions = {}): Promise<Site> {
  const { paths, config, db } = await openSiteDatabase(dir, { dbUrl: options.dbUrl, create: options.create, warn: options.warn });
  // Declared first: the file store's failure report reaches the site's logger once the site exists.
  let site: Site | undefined;
  // The same site once it exists, for the callbacks that run only after (the session expiry).
  let opened!: Site;
  try {
    const types = createFieldTypeRegistry();
    const apps = await loadApps(paths.root, config.apps, types, BUILT_IN_DOCTYPES);
    const metas = new MetaRegistry(db.dialect, types);
    await migrateDatabase(db, metas, { scope: 'builtIn', apps, progress: options.progress });
    await db.read((q) => metas.load(q));

    const hooks = new HookRegistry();
    registerDocTypeController(hooks);
    registerUserController(hooks);
    registerToDoController(hooks);
    registerDocShareController(hooks);
    registerUserPermissionController(hooks);
    registerSystemSettingsController(hooks);
    registerSingleDocTypeController(hooks);
    // Store failures go to the site's logger, which the server replaces once it starts.
    const files = await openFileStore(paths, config.file_storage, (err, folder) =>
      site?.logger.error({ err, folder }, `files cannot be written to ${folder}: ${err.message}`),
    );
    registerFileController(hooks, files);
    const documents = new DocumentService({ encryptionKey: config.encryption_key });
    registerUserSelfShare(hooks, documents);
    registerVersionController(hooks, documents);
    registerCommentController(hooks);
    registerDeletedDocumentController(hooks, documents);
    const methods = new MethodRegistry();
    const realtime = createRealtime(config, hooks, metas, methods);
    const tokenCache = new TokenCache();
    // Set once mail exists, below; the login gate is asked for at each login, never before the site opens.
    let twoFactor: TwoFactor | undefined;
    registerBuiltinMethods(methods, {
      tokenCache,
      siteName: config.realtime.site_name,
      revokeSession: (ctx, sid) => realtime.revokeSession(ctx, sid),
      revokeTokens: (ctx, user) => realtime.revokeTokens(ctx, user),
      loginGate: () => {
        if (!twoFactor) throw new Error('login before the site finished opening');
        return twoFactor.gate;
      },
    });
    const jobs = new JobQueue(db, options.clock);
    registerJobMethods(methods, jobs);
    const baseUrl = config.mail.host_name ?? `http://${config.realtime.site_name ?? 'localhost'}`;
    // Workflow Action mail goes through the mail queue, registered below; it is only called once the site is open.
    registerWorkflows({
      hooks,
      methods,
      documents,
      mail: (ctx, m) =>
        mail
          .queue(ctx, {
            recipients: [m.recipient],
            cc: [],
            bcc: [],
            subject: m.subject,
            message: m.html,
            headers: {},
            priority: 1,
            attachments: [],
            referenceDoctype: m.doctype,
            referenceName: m.name,
          })
          .then(() => undefined),
      link: (doctype, name) => `${baseUrl}/app/${doctype.toLowerCase().replace(/ /g, '-')}/${encodeURIComponent(name)}`,
      db,
      jobs,
      asAdministrator: async (work) => {
        // Through the site's principal cache: a busy site runs a batch every 50 ms.
        const principal = await opened.principals.resolve(ADMINISTRATOR_USER, () => db.read((q) => loadPrincipal(q, db.dialect, ADMINISTRATOR_USER)));
        if (!principal) throw new Error('the Administrator is missing: Workflow Actions wait in their outbox');
        return opened.write(principal, work);
      },
      report: (err) => site?.logger.error({ err }, 'workflow actions: a batch failed (its entries wait), or an entry was set aside (the error says which)'),
    });
    registerReports({ hooks, methods, documents });
    // Before the apps, which get `api.mail`; the time zone is read once the site exists.
    const mail = registerMail({
      hooks,
      methods,
      documents,
      jobs,
      db,
      metas,
      timeZone: () => site?.settingsCache.current.time_zone ?? config.time_zone,
      encryptionKey: config.encryption_key,
      config: config.mail,
      domain: config.realtime.site_name ?? 'localhost',
      files,
      realtime,
      baseUrl,
      report: (err) =>
        site?.logger.error({ err }, 'notifications: an outbox batch failed (its entries wait), or an entry was set aside (the error says which)'),
    });
    // Every login passes its gate (docs/identity.md "Completing a login"); codes go out through mail.
    twoFactor = registerTwoFactor({
      methods,
      mail,
      encryptionKey: config.encryption_key,
      baseUrl: config.mail.host_name ?? `http://${config.realtime.site_name ?? 'localhost'}`,
      now: () => jobs.clock.now(),
    });
    // After the built-ins, so apps add to built-in behaviour and cannot take its method paths.
    // Assignments and follows tell their users through a Notification Log (docs/collaboration.md "Notifications").
    registerCollaboration({
      hooks,
      methods,
      documents,
      notify: (ctx, notice) =>
        mail.notifyUser(ctx, {
          forUser: notice.forUser,
          fromUser: notice.fromUser,
          subject: noticeSubject(notice),
          doctype: notice.doctype,
          name: notice.name,
          type: noticeType(notice),
        }),
    });
    await registerApps(apps, { hooks, methods, documents, jobs, realtime, mail });

    const sessions = new SessionStore(db.dialect);
    const identity = new Identity({
      db,
      principals: new PrincipalCache(),
      tokenCache,
      sessions,
      sessionExpirySeconds: async () => (await siteSettings(opened)).session_expiry,
    });
    site = new Site({ paths, config, db, metas, hooks, documents, methods, sessions, identity, realtime, files, jobs, mail });
    if (config.file_storage.backend === 'local') await warnAboutFileFolders(paths, options.warn);
    const { settingsCache } = site;
    opened = site;
    registerWebhooks({
      hooks,
      methods,
      jobs,
      db,
      metas,
      timeZone: () => settingsCache.current.time_zone,
      encryptionKey: config.encryption_key,
      targets: { denyInternal: config.webhook_deny_private_targets, allowed: config.webhook_allowed_targets },
      readAs: async (user, work) => {
        const principal = await db.read((q) => loadPrincipal(q, db.dialect, user));
        return principal ? { value: await opened.read(principal, work) } : undefined;
      },
      report: (err) => site?.logger.error({ err }, 'webhook outbox: a batch failed (its entries wait), or an entry was set aside (the error says which)'),
    });
    registerSocialLogin({
      hooks,
      methods,
      documents,
      encryptionKey: config.encryption_key,
      now: () => jobs.clock.now(),
      publicUrl: config.mail.host_name,
      gate: () => {
        if (!twoFactor) throw new Error('login before the site finished opening');
        return twoFactor.gate;
      },
    });
    registerDataImport({ methods, jobs, documents, files, realtime, metas });
    registerDataExport({ methods });
    await registerSearch({
      hooks,
      methods,
      jobs,
      db,
      metas,
      report: (err) => site?.logger.error({ err }, 'global search: an index batch failed; the rebuild job repairs the index'),
    });
    // After webhooks: the OAuth Client's fresh secret is put into the document after their hooks saw it.
    site.oauth = registerOAuth({
      hooks,
      methods,
      documents,
      db,
      encryptionKey: config.encryption_key,
      read: (principal, work) => opened.read(principal, work),
      write: (principal, work) => opened.write(principal, work),
      acceptBearerTokens: (verifier) => identity.acceptBearerTokens(verifier),
    });
    registerSiteScheduler(site);
    // Read before the first request, so even work that never touches the database (CORS on ping) sees them.
    await siteSettings(site);
    return site;
  } catch (err) {
    await db.close();
    throw err;
  }
}

/**
 * Warns (does not refuse: reads and everything else still work) when a file folder cannot be
 * written; uploads then answer 503 and the log names the cause (docs/files.md).
 */
async function warnAboutFileFolders(paths: SitePaths, warn: ((message: string) => void) | undefined): Promise<void> {
  const say = warn ?? ((m: string) => process.stderr.write(`fw: warning: ${m}\n`));
  for (const folder of [paths.publicFiles, paths.privateFiles]) {
    const problem = await folderWriteProblem(folder);
    if (problem) say(`${folder} cannot be written (${problem}): uploads will be refused with 503 until it can`);
  }
}

/** True when `dir` already holds a site. */
export async function siteExists(dir: string): Promise<boolean> {
  try {
    await stat(sitePaths(dir).config);
    return true;
  } catch {
    return false;
  }
}

/** Result of creating a site: the Administrator password, when fw generated it. */
export interface NewSiteResult {
  readonly generatedPassword: string | undefined;
  /** PostgreSQL: true when fw created the database itself (ensurePostgresDatabase). */
  readonly createdDatabase: boolean;
  /** Why the given Administrator password is weak (it is accepted all the same), if it is. */
  readonly weakAdminPassword: string | undefined;
}

/**
 * Creates a site folder (config, database, file folders), the built-in tables and the
 * Administrator. Without a password one is generated and returned, to be shown once.
 */
export async function createSite(
  dir: string,
  options: {
    dbUrl?: string;
    adminPassword?: string;
    progress?: Progress;
    /** Also judge the given Administrator password's strength (loads zxcvbn; `fw new-site` does, `fw serve` not). */
    checkAdminStrength?: boolean;
  } = {},
): Promise<NewSiteResult> {
  const paths = sitePaths(dir);
  if (await siteExists(dir)) throw new Error(`${paths.root} already holds a site (site_config.json exists)`);
  const dbUrl = options.dbUrl ?? 'sqlite:site.db';
  assertDatabaseUrl(dbUrl);
  const undo = await prepareUndoOfSiteCreation(paths, dbUrl);
  const generatedPassword = options.adminPassword ? undefined : randomBytes(12).toString('base64url');
  // Before anything is written: a database that cannot be had leaves no folder behind.
  const serverDatabases = await engineOf(dbUrl).serverDatabases?.();
  const createdDatabase = serverDatabases !== undefined && (await serverDatabases.ensure(dbUrl));
  try {
    await mkdir(paths.publicFiles, { recursive: true });
    await mkdir(paths.privateFiles, { recursive: true });
    await writeNewSiteConfig(paths.config, dbUrl, createdDatabase);
    const site = await openSite(dir, { progress: options.progress, create: true });
    try {
      await site.db.transaction((q) => setAdministratorPassword(q, site.db.dialect, options.adminPassword ?? (generatedPassword as string)));
    } finally {
      await site.close();
    }
  } catch (err) {
    await undo();
    if (createdDatabase) await serverDatabases?.drop(dbUrl).catch(() => {});
    throw err;
  }
  const weakAdminPassword = options.adminPassword ? await adminPasswordWeakness(options.adminPassword, options.checkAdminStrength ?? false) : undefined;
  return { generatedPassword, createdDatabase, weakAdminPassword };
}
