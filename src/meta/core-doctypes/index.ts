import { ValidationError } from '../../errors/index.js';
import { PERMISSION_TYPES, type DocField, type DocPerm, type DocTypeDef } from '../doctype.js';
import comment from './comment.json' with { type: 'json' };
import deletedDocument from './deleted-document.json' with { type: 'json' };
import docField from './doc-field.json' with { type: 'json' };
import docPerm from './doc-perm.json' with { type: 'json' };
import docShare from './doc-share.json' with { type: 'json' };
import docType from './doc-type.json' with { type: 'json' };
import file from './file.json' with { type: 'json' };
import hasRole from './has-role.json' with { type: 'json' };
import role from './role.json' with { type: 'json' };
import systemSettings from './system-settings.json' with { type: 'json' };
import toDo from './to-do.json' with { type: 'json' };
import user from './user.json' with { type: 'json' };
import userPermission from './user-permission.json' with { type: 'json' };
import version from './version.json' with { type: 'json' };

/*
 * The key lists below are the runtime image of the DocTypeDef, DocField and DocPerm types. The
 * `Exhaustive` checks make the compiler fail here when a key is added to those types and not to
 * these lists, so a definition can never carry a key the check silently lets through.
 */

const DEF_STRING_KEYS = [
  'module',
  'autoname',
  'naming_rule',
  'title_field',
  'search_fields',
  'sort_field',
  'sort_order',
  'description',
] as const satisfies readonly (keyof DocTypeDef)[];
const DEF_CHECK_KEYS = [
  'custom',
  'istable',
  'issingle',
  'is_submittable',
  'track_changes',
  'track_views',
  'allow_rename',
] as const satisfies readonly (keyof DocTypeDef)[];

const FIELD_STRING_KEYS = ['label', 'options', 'default', 'precision', 'fetch_from', 'description'] as const satisfies readonly (keyof DocField)[];
const FIELD_CHECK_KEYS = [
  'reqd',
  'unique',
  'non_negative',
  'set_only_once',
  'search_index',
  'hidden',
  'read_only',
  'allow_on_submit',
  'fetch_if_empty',
  'ignore_user_permissions',
  'no_copy',
  'in_list_view',
  'in_standard_filter',
  'in_global_search',
] as const satisfies readonly (keyof DocField)[];
const FIELD_INT_KEYS = ['length', 'permlevel', 'idx'] as const satisfies readonly (keyof DocField)[];

const PERM_CHECK_KEYS = ['if_owner', ...PERMISSION_TYPES] as const satisfies readonly (keyof DocPerm)[];

type Exhaustive<T, Listed> = Exclude<keyof T, Listed> extends never ? true : never;
const defKeysComplete: Exhaustive<DocTypeDef, 'name' | 'fields' | 'permissions' | (typeof DEF_STRING_KEYS)[number] | (typeof DEF_CHECK_KEYS)[number]> = true;
const fieldKeysComplete: Exhaustive<
  DocField,
  'fieldname' | 'fieldtype' | (typeof FIELD_STRING_KEYS)[number] | (typeof FIELD_CHECK_KEYS)[number] | (typeof FIELD_INT_KEYS)[number]
> = true;
const permKeysComplete: Exhaustive<DocPerm, 'role' | 'permlevel' | (typeof PERM_CHECK_KEYS)[number]> = true;
void [defKeysComplete, fieldKeysComplete, permKeysComplete];

const DEF_KEYS = new Set<string>(['name', 'fields', 'permissions', ...DEF_STRING_KEYS, ...DEF_CHECK_KEYS]);
const FIELD_KEYS = new Set<string>(['fieldname', 'fieldtype', ...FIELD_STRING_KEYS, ...FIELD_CHECK_KEYS, ...FIELD_INT_KEYS]);
const PERM_KEYS = new Set<string>(['role', 'permlevel', ...PERM_CHECK_KEYS]);

type Fail = (path: string, problem: string) => never;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function requireString(obj: Record<string, unknown>, key: string, path: string, fail: Fail): void {
  if (typeof obj[key] !== 'string' || obj[key] === '') fail(`${path}.${key}`, 'must be a non-empty string');
}

/** Checks the keys of one object: no unknown key, and each known key of its kind. */
function checkKeys(
  obj: Record<string, unknown>,
  path: string,
  known: ReadonlySet<string>,
  kinds: { strings?: readonly string[]; checks?: readonly string[]; ints?: readonly string[] },
  fail: Fail,
): void {
  for (const key of Object.keys(obj)) {
    if (!known.has(key)) fail(`${path}.${key}`, 'is not a known key');
  }
  for (const key of kinds.strings ?? []) {
    if (key in obj && typeof obj[key] !== 'string') fail(`${path}.${key}`, 'must be a string');
  }
  for (const key of kinds.checks ?? []) {
    if (key in obj && obj[key] !== 0 && obj[key] !== 1) fail(`${path}.${key}`, 'must be 0 or 1');
  }
  for (const key of kinds.ints ?? []) {
    if (key in obj && !Number.isSafeInteger(obj[key])) fail(`${path}.${key}`, 'must be an integer');
  }
}

/**
 * Checks that parsed JSON has the shape of a DocTypeDef and returns it typed; any other shape
 * (a missing fieldtype, a misspelt key, a Check holding `true`) throws a ValidationError that
 * names the DocType and the offending path, so a broken definition fails when it is loaded.
 */
export function asDocTypeDef(json: unknown): DocTypeDef {
  const label = isRecord(json) && typeof json.name === 'string' ? json.name : '(unnamed)';
  const fail: Fail = (path, problem) => {
    throw new ValidationError(`Invalid DocType definition ${label}: ${path} ${problem}`);
  };
  if (!isRecord(json)) return fail('definition', 'must be a JSON object');
  requireString(json, 'name', 'definition', fail);
  checkKeys(json, 'definition', DEF_KEYS, { strings: DEF_STRING_KEYS, checks: DEF_CHECK_KEYS }, fail);

  if (!Array.isArray(json.fields)) return fail('definition.fields', 'must be an array');
  json.fields.forEach((field: unknown, i) => {
    const path = `fields[${i}]`;
    if (!isRecord(field)) return fail(path, 'must be an object');
    requireString(field, 'fieldname', path, fail);
    requireString(field, 'fieldtype', path, fail);
    checkKeys(field, path, FIELD_KEYS, { strings: FIELD_STRING_KEYS, checks: FIELD_CHECK_KEYS, ints: FIELD_INT_KEYS }, fail);
  });

  if (json.permissions !== undefined) {
    if (!Array.isArray(json.permissions)) return fail('definition.permissions', 'must be an array');
    json.permissions.forEach((perm: unknown, i) => {
      const path = `permissions[${i}]`;
      if (!isRecord(perm)) return fail(path, 'must be an object');
      requireString(perm, 'role', path, fail);
      checkKeys(perm, path, PERM_KEYS, { checks: PERM_CHECK_KEYS, ints: ['permlevel'] }, fail);
    });
  }
  return json as unknown as DocTypeDef;
}

/** Freezes a definition and everything in it: the JSON modules are shared by every importer. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** Built-in DocType definitions checked (every key) and frozen: the core's below, and each subsystem's (site/built-in-doctypes.ts). */
export function builtInDefinitions(jsons: readonly unknown[]): readonly DocTypeDef[] {
  return Object.freeze(jsons.map((json) => deepFreeze(asDocTypeDef(json))));
}

/**
 * The core's DocTypes, in the order a site installs them: child tables before the DocTypes whose
 * Table fields point at them. Subsystems ship their own (site/built-in-doctypes.ts has them all).
 */
export const CORE_DOCTYPES: readonly DocTypeDef[] = builtInDefinitions([
  docField,
  docPerm,
  docType,
  role,
  hasRole,
  user,
  toDo,
  file,
  userPermission,
  docShare,
  version,
  comment,
  deletedDocument,
  systemSettings,
]);
