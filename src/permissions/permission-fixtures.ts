import { makePrincipal, GUEST, type Principal } from '../auth/principal.js';
import type { DocPerm, DocTypeDef } from '../meta/doctype.js';
import { createFieldTypeRegistry } from '../meta/field-types/index.js';
import { Meta } from '../meta/meta.js';
import type { PermissionContext } from './permission-context.js';
import { PermissionHooks } from './permission-hooks.js';
import type { ShareGrant } from './shares.js';
import type { UserPermissionRule } from './user-permissions.js';

/*
 * Shared fixtures of the permission unit tests: a few DocTypes, principals, and a permission
 * context served from plain arrays instead of the database.
 */

const types = createFieldTypeRegistry();

/** Compiles a definition for a test. */
export function metaOf(def: DocTypeDef): Meta {
  return new Meta(def, types);
}

/** Every right of a DocPerm row on, for `role` at `permlevel`. */
export function fullRow(role: string, extra: Partial<DocPerm> = {}): DocPerm {
  return { role, read: 1, write: 1, create: 1, delete: 1, share: 1, print: 1, email: 1, report: 1, export: 1, ...extra };
}

/** A company a note can point at. */
export const COMPANY = metaOf({
  name: 'Company',
  fields: [{ fieldname: 'title', fieldtype: 'Data' }],
  permissions: [fullRow('Sales')],
});

/** A child row of a note, with its own Link to Company. */
export const NOTE_LINE = metaOf({
  name: 'Note Line',
  istable: 1,
  fields: [
    { fieldname: 'company', fieldtype: 'Link', options: 'Company' },
    { fieldname: 'cost', fieldtype: 'Currency', permlevel: 1 },
  ],
});

/**
 * A note: readable by Sales, by Clerk only for their own notes; `salary` is at permlevel 1 (read
 * and write for Manager, read only for Auditor); `lines` is a child table.
 */
export const NOTE = metaOf({
  name: 'Note',
  search_fields: 'title',
  fields: [
    { fieldname: 'title', fieldtype: 'Data' },
    { fieldname: 'company', fieldtype: 'Link', options: 'Company' },
    { fieldname: 'reviewer', fieldtype: 'Link', options: 'User', ignore_user_permissions: 1 },
    { fieldname: 'salary', fieldtype: 'Currency', permlevel: 1 },
    { fieldname: 'grade', fieldtype: 'Data', permlevel: 1, default: 'B' },
    { fieldname: 'lines', fieldtype: 'Table', options: 'Note Line' },
  ],
  permissions: [
    fullRow('Sales'),
    fullRow('Clerk', { if_owner: 1 }),
    { role: 'Viewer', select: 1 },
    fullRow('Manager'),
    { role: 'Manager', permlevel: 1, read: 1, write: 1 },
    { role: 'Auditor', read: 1 },
    { role: 'Auditor', permlevel: 1, read: 1 },
  ],
});

const ALL_METAS = new Map([COMPANY, NOTE_LINE, NOTE].map((m) => [m.name, m]));

/** A logged-in System User holding `roles` (plus the automatic ones). */
export function userWith(user: string, ...roles: string[]): Principal {
  return makePrincipal({ user, roles });
}

/** The Administrator. */
export const ADMIN = makePrincipal({ user: 'Administrator', roles: [] });

/** Anonymous requests. */
export const ANONYMOUS = GUEST;

/** What a fake permission context serves, and a record of what was asked of it. */
export interface FakeData {
  readonly rules?: readonly UserPermissionRule[];
  /** Shares by DocType. */
  readonly shares?: Readonly<Record<string, readonly ShareGrant[]>>;
  readonly hooks?: PermissionHooks;
}

/** A permission context answering from `data`; `loads` counts the lookups a real one would query. */
export function fakeContext(principal: Principal, data: FakeData = {}): PermissionContext & { loads: string[] } {
  const loads: string[] = [];
  return {
    principal,
    metaOf: (d) => {
      const meta = ALL_METAS.get(d);
      if (!meta) throw new Error(`no test DocType ${d}`);
      return meta;
    },
    hooks: data.hooks ?? new PermissionHooks(),
    // No test hook reads the database.
    ctx: {},
    loads,
    async userPermissions() {
      loads.push('userPermissions');
      return data.rules ?? [];
    },
    async shares(doctype, name) {
      loads.push(name === undefined ? `shares ${doctype}` : `shares ${doctype} ${name}`);
      const all = data.shares?.[doctype] ?? [];
      return name === undefined ? all : all.filter((s) => s.name === name);
    },
  };
}

/** A share of one document giving the listed rights. */
export function shareOf(name: string, ...rights: Array<'read' | 'write' | 'share' | 'submit'>): ShareGrant {
  return { name, read: rights.includes('read'), write: rights.includes('write'), share: rights.includes('share'), submit: rights.includes('submit') };
}
