import { visibleDefinition } from '../../documents/readable-definition.js';
import type { PermissionType } from '../../meta/doctype.js';
import type { Meta } from '../../meta/meta.js';
import { DoesNotExistError, PermissionError } from '../../errors/index.js';
import { mayUseDocType } from '../../permissions/document-access.js';
import { isWithheld } from '../../permissions/field-level.js';
import { permissionContext } from '../../documents/unit-permissions.js';
import { permittedLevels, roleGrant } from '../../permissions/role-permissions.js';
import type { MethodCall, MethodRegistry } from '../method-registry.js';
import { readUserSettings } from '../../user-settings/user-settings-store.js';

/*
 * What the admin UI (docs/admin-ui.md) needs beyond documents: which DocTypes the caller may use
 * and with which rights, and the metadata of one DocType with the fields the caller may not read
 * left out. Both answer only from metadata and the caller's roles, so they show nothing the
 * resource API would not let the caller reach.
 */

/** The rights the UI shows or hides buttons for. */
const UI_RIGHTS = ['read', 'write', 'create', 'delete', 'submit', 'cancel', 'amend', 'report', 'export', 'import'] as const satisfies readonly PermissionType[];

type Rights = Record<(typeof UI_RIGHTS)[number], boolean>;

/** One DocType as the home page lists it. */
interface BootDocType {
  readonly name: string;
  readonly module: string;
  readonly issingle: 0 | 1;
  readonly is_submittable: 0 | 1;
  readonly custom: 0 | 1;
  readonly rights: Rights;
}

/**
 * The rights the caller's roles grant on a DocType (if_owner rows count: the server still checks
 * each document). A DocType reached only through shares shows as readable.
 */
async function rightsOn(call: MethodCall, meta: Meta): Promise<Rights> {
  const { principal } = call.ctx;
  const rights = Object.fromEntries(UI_RIGHTS.map((r) => [r, roleGrant(principal, meta, r) !== 'none'])) as Rights;
  if (!rights.read) rights.read = await mayUseDocType(permissionContext(call.ctx), meta, 'read');
  return rights;
}

async function fullName(call: MethodCall): Promise<string> {
  const { q, dialect, principal } = call.ctx;
  const rows = await q.all<{ full_name: string | null }>(
    dialect.builder.selectFrom('tabUser').select('full_name').where('name', '=', principal.user).limit(1).compile(),
  );
  return rows[0]?.full_name || principal.user;
}

/** `fw.desk.boot`: the caller, their roles, and every non-child DocType they may read with their rights on it. */
async function boot(call: MethodCall, siteName: string | null): Promise<object> {
  const { principal, metas } = call.ctx;
  const doctypes: BootDocType[] = [];
  for (const name of metas.names().sort()) {
    const meta = metas.get(name);
    if (meta.isChild) continue;
    const rights = await rightsOn(call, meta);
    if (!rights.read) continue;
    const { module = 'Custom', issingle = 0, is_submittable = 0, custom = 0 } = meta.def;
    doctypes.push({ name, module, issingle, is_submittable, custom, rights });
  }
  return {
    user: principal.user,
    full_name: await fullName(call),
    roles: [...principal.roles].sort(),
    is_system_manager: principal.isAdministrator || principal.roles.has('System Manager'),
    // The Socket.IO namespace is the site name when one is configured (docs/realtime.md).
    site_name: siteName,
    doctypes,
  };
}

/**
 * The latest `modified` among the stored documents of `names` (a DocType and its child tables):
 * the stamp a client caches the answer under, so a change to a child table invalidates it too.
 */
async function latestModified(call: MethodCall, names: readonly string[]): Promise<string | undefined> {
  const { q, dialect } = call.ctx;
  const rows = await q.all<{ modified: string | null }>(
    dialect.builder
      .selectFrom('tabDocType')
      .select('modified')
      .where('name', 'in', [...names])
      .compile(),
  );
  return (
    rows
      .map((r) => r.modified ?? '')
      .sort()
      .at(-1) || undefined
  );
}

/**
 * The name of the active Workflow of `doctype`, or null: the form asks for transitions only when
 * there is one (docs/workflows.md "In the admin UI"). A site without the Workflow DocType has none.
 */
async function activeWorkflow(call: MethodCall, doctype: string): Promise<string | null> {
  const { q, dialect, metas } = call.ctx;
  if (!metas.has('Workflow')) return null;
  const rows = await q.all<{ name: string }>(
    dialect.builder
      .selectFrom(metas.get('Workflow').tableName)
      .select('name')
      .where('document_type', '=', doctype)
      .where('is_active', '=', 1)
      .orderBy('modified', 'desc')
      .limit(1)
      .compile(),
  );
  return rows[0]?.name ?? null;
}

/**
 * `fw.desk.form.load.getdoctype`: the DocType and the child DocTypes of its tables, as the
 * reference's method answers them (`docs` at the top level of the body), with fields at permlevels
 * the caller may not read removed. Child tables follow their parent's levels. `user_settings` (the
 * caller's saved settings for the DocType, as JSON text) rides along; when `cached_timestamp` is the
 * stamp of the caller's cached copy the answer is `use_cache` instead of the documents.
 */
async function getDocType(call: MethodCall): Promise<string | undefined> {
  const doctype = String(call.args.doctype);
  const { metas, principal, q, dialect } = call.ctx;
  if (!metas.has(doctype)) throw new DoesNotExistError(`DocType ${doctype} not found`, { doctype });
  const meta = metas.get(doctype);
  if (meta.isChild || !(await rightsOn(call, meta)).read) {
    throw new PermissionError('Not permitted', { doctype, messages: [{ message: `No permission to read ${doctype}`, title: 'Not permitted' }] });
  }
  const levels = permittedLevels(principal, meta, 'read');
  // The caller's rights ride on the DocType's own document, for the buttons the form shows.
  const rights = { ...(await rightsOn(call, meta)), write_levels: [...permittedLevels(principal, meta, 'write')].sort() };
  const docs: Record<string, unknown>[] = [{ ...visibleDefinition(meta, levels), __rights: rights, __workflow: await activeWorkflow(call, doctype) }];
  for (const table of meta.tableFields) {
    const child = table.def.options;
    if (isWithheld(table.def, levels) || !child || !metas.has(child) || docs.some((d) => d.name === child)) continue;
    docs.push(visibleDefinition(metas.get(child), levels));
  }
  call.http.extraBody.user_settings = JSON.stringify(await readUserSettings(q, dialect, principal.user, doctype));
  const modified = await latestModified(
    call,
    docs.map((d) => String(d.name)),
  );
  const cached = call.args.cached_timestamp;
  if (modified !== undefined && typeof cached === 'string' && cached === modified) return 'use_cache';
  if (modified !== undefined) docs[0].modified = modified;
  call.http.extraBody.docs = docs;
  return undefined;
}

/** The admin UI's two metadata methods. */
export function registerDeskMethods(methods: MethodRegistry, siteName: string | null): void {
  methods.register('fw.desk.boot', (call) => boot(call, siteName), { methods: ['GET'] });
  // Any verb, as the reference's Desk sends it by POST and frappe-ui by GET.
  methods.register('fw.desk.form.load.getdoctype', getDocType, {
    params: [
      { name: 'doctype', type: 'string', required: true },
      { name: 'with_parent', type: 'bool' },
      { name: 'cached_timestamp', type: 'string' },
    ],
  });
}
