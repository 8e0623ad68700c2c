import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { now } from '../datetime/clock.js';
import { BUILT_IN_DOCTYPES } from './built-in-doctypes.js';
import type { Doc, DocTypeDef } from '../meta/doctype.js';
import type { MetaRegistry } from '../meta/meta-registry.js';
import { syncTable } from '../meta/schema-sync.js';
import { DocumentRepository } from '../documents/document-repository.js';
import { ensureDoc, storeDefinition } from '../documents/shipped-documents.js';
import { seriesTableStatement } from '../documents/naming/naming-series.js';
import { singlesTableStatement } from '../documents/singles/single-rows.js';
import { addMissingAuthColumns, authTableStatements } from '../auth/auth-tables.js';
import { jobTableStatements } from '../jobs/job-table.js';
import { scheduleTableStatements } from '../jobs/schedule-table.js';
import { outboxTableStatements } from '../webhooks/outbox-table.js';
import { actionOutboxTableStatement } from '../workflows/action-outbox-table.js';
import { notifyOutboxTableStatement } from '../mail/notify-outbox-table.js';
import { userSettingsTableStatements } from '../user-settings/user-settings-store.js';
import { challengeTableStatements } from '../twofactor/login-challenges.js';
import { setUserPassword } from '../auth/passwords.js';
import { moveInternalTables } from './move-internal-tables.js';
import type { Queryable } from '../storage/database.js';
import type { Dialect } from '../storage/dialect.js';

/** The standard roles every site has (docs/architecture.md "Permissions"). */
export const STANDARD_ROLES = ['Administrator', 'System Manager', 'All', 'Guest', 'Desk User'] as const;

const SYSTEM_USER = 'Administrator';

/** Progress reports for long CLI work. */
export type Progress = (message: string) => void;

/** Fingerprint of what installCore writes, so an up-to-date site is left untouched at every start. */
const CORE_FINGERPRINT = createHash('sha256')
  .update(JSON.stringify([BUILT_IN_DOCTYPES, STANDARD_ROLES]))
  .digest('hex');
const FINGERPRINT_KEY = 'core_fingerprint';

/**
 * Creates or updates everything a site needs before it can serve: system tables, the tables and
 * stored definitions of the built-in DocTypes, the standard roles and the built-in users.
 * Idempotent: running it again brings an older site up to date without touching its data; a site
 * already installed by this version of fw is not written at all unless `force` is set.
 */
export async function installCore(
  q: Queryable,
  dialect: Dialect,
  metas: MetaRegistry,
  progress: Progress = () => {},
  options: { force?: boolean } = {},
): Promise<void> {
  await q.run(metas.stateTableStatement());
  await q.run(seriesTableStatement(dialect));
  await q.run(singlesTableStatement(dialect));
  for (const statement of authTableStatements(dialect)) await q.run(statement);
  const systemTables = [
    ...jobTableStatements(dialect),
    ...scheduleTableStatements(dialect),
    ...outboxTableStatements(dialect),
    actionOutboxTableStatement(dialect),
    notifyOutboxTableStatement(dialect),
    ...userSettingsTableStatements(dialect),
    ...challengeTableStatements(dialect),
  ];
  for (const statement of systemTables) await q.run(statement);
  await addMissingAuthColumns(q, dialect);
  await moveInternalTables(q, dialect);
  const fingerprint = await metas.readState(q, FINGERPRINT_KEY);
  if (!options.force && fingerprint === CORE_FINGERPRINT) {
    await ensureUserNameIndex(q, dialect, progress);
    progress('built-in DocTypes are up to date');
    return;
  }

  // Core definitions plus whatever custom DocTypes the site already holds.
  const custom = await existingCustomDefinitions(q, dialect, metas);
  // Every other stored DocType (custom and apps'), compiled before the registry is reset: a new fw
  // may add standard columns (docs/collaboration.md "Columns"), which their tables get below.
  const coreNames = new Set(BUILT_IN_DOCTYPES.map((d) => d.name));
  const otherMetas = metas
    .names()
    .filter((n) => !coreNames.has(n))
    .map((n) => metas.get(n));
  metas.setAll([...BUILT_IN_DOCTYPES, ...custom]);
  const repo = new DocumentRepository(dialect, (d) => metas.get(d));
  const stamp = now('UTC');

  for (const def of BUILT_IN_DOCTYPES) {
    progress(`DocType ${def.name}`);
    await syncTable(q, dialect, metas.get(def.name));
  }
  for (const meta of otherMetas) await syncTable(q, dialect, meta);
  let changed = false;
  for (const def of BUILT_IN_DOCTYPES) {
    if (await storeDefinition(q, repo, metas, { ...def, custom: 0, module: def.module ?? 'Core' }, stamp)) changed = true;
  }

  for (const role of STANDARD_ROLES) {
    if (await ensureDoc(q, repo, metas.get('Role'), { name: role, role_name: role, desk_access: role === 'Guest' ? 0 : 1 }, stamp)) changed = true;
  }
  const users = [
    builtInUser('Administrator', 'admin@example.com', 'System User', ['Administrator', 'System Manager']),
    builtInUser('Guest', 'guest@example.com', 'Website User', ['Guest']),
  ];
  for (const user of users) if (await ensureDoc(q, repo, metas.get('User'), user, stamp)) changed = true;
  await ensureUserNameIndex(q, dialect, progress);
  // A run that found everything as shipped (a second `fw migrate`) writes nothing: no new
  // `modified`, and no new metadata version that would make every process reload.
  if (fingerprint !== CORE_FINGERPRINT) await metas.writeState(q, FINGERPRINT_KEY, CORE_FINGERPRINT);
  if (changed) await metas.bumpVersion(q);
}

/**
 * User names are unique without regard to case (docs/security.md "Authentication"). The User
 * controller checks it, but two concurrent inserts on PostgreSQL (READ COMMITTED) could both pass
 * that check; this index makes the database refuse the second. A site that already holds names
 * differing only in case keeps working without it, and is told which to rename.
 */
async function ensureUserNameIndex(q: Queryable, dialect: Dialect, progress: Progress): Promise<void> {
  if ((await dialect.listColumns(q, 'tabUser')).length === 0) return;
  const clashes = await q.all<{ lowered: string }>({
    sql: 'select lower(name) as lowered from "tabUser" group by lower(name) having count(*) > 1',
    parameters: [],
  });
  if (clashes.length > 0) {
    progress(`user names differing only in case (${clashes.map((c) => c.lowered).join(', ')}): rename all but one, then run fw migrate`);
    return;
  }
  await q.run(dialect.builder.schema.createIndex('tabUser_name_lower').ifNotExists().unique().on('tabUser').expression(sql`lower(name)`).compile());
}

/** Sets the Administrator's password (at creation, or from the CLI). */
export async function setAdministratorPassword(q: Queryable, dialect: Dialect, password: string): Promise<void> {
  await setUserPassword(q, dialect, SYSTEM_USER, password);
}

function builtInUser(name: string, email: string, userType: string, roles: string[]): Doc {
  return {
    name,
    email,
    first_name: name,
    full_name: name,
    enabled: 1,
    user_type: userType,
    roles: roles.map((role) => ({ role })),
  };
}

async function existingCustomDefinitions(q: Queryable, dialect: Dialect, metas: MetaRegistry): Promise<DocTypeDef[]> {
  if ((await dialect.listColumns(q, 'tabDocType')).length === 0) return [];
  await metas.load(q);
  return metas
    .names()
    .map((n) => metas.get(n).def)
    .filter((d) => d.custom === 1);
}
