import type { Doc } from '../meta/doctype.js';
import { fixedLinkTarget } from '../meta/field-links.js';
import type { Meta } from '../meta/meta.js';
import type { Condition } from '../query/list-query.js';

/** One User Permission row as the checks read it: the user may see `allow` documents named `forValue`. */
export interface UserPermissionRule {
  readonly allow: string;
  readonly forValue: string;
  /** Set when the rule applies to one DocType only (apply_to_all_doctypes off). */
  readonly applicableFor?: string;
}

/** A field whose value User Permissions restrict: a Link not marked ignore_user_permissions, or `name`. */
interface RestrictedField {
  readonly fieldname: string;
  readonly target: string;
}

/**
 * The values of `allow` the rules permit while working with documents of `forDoctype`, or an empty
 * list when no rule applies there (which means no restriction, as in the reference).
 */
export function allowedValues(rules: readonly UserPermissionRule[], allow: string, forDoctype: string): string[] {
  return rules.filter((r) => r.allow === allow && (r.applicableFor === undefined || r.applicableFor === forDoctype)).map((r) => r.forValue);
}

/** The Link fields of `meta` that User Permissions apply to. */
function restrictedLinks(meta: Meta): RestrictedField[] {
  return meta.fields
    .filter((f) => fixedLinkTarget(f) !== undefined && f.def.ignore_user_permissions !== 1)
    .map((f) => ({ fieldname: f.def.fieldname, target: fixedLinkTarget(f) as string }));
}

/**
 * The list restriction User Permissions put on `meta` (docs/api.md "Lists"): `name` among the allowed
 * values of `meta` itself, and every restricted Link either empty or among the allowed values of its
 * target. Undefined when no rule concerns this DocType.
 */
export function userPermissionCondition(meta: Meta, rules: readonly UserPermissionRule[]): Condition | undefined {
  if (rules.length === 0) return undefined;
  const parts: Condition[] = [];
  const own = allowedValues(rules, meta.name, meta.name);
  if (own.length > 0) parts.push({ field: { field: 'name' }, op: 'in', value: own });
  for (const link of restrictedLinks(meta)) {
    const values = allowedValues(rules, link.target, meta.name);
    if (values.length === 0) continue;
    parts.push({
      or: [
        { field: { field: link.fieldname }, op: 'is', value: 'not set' },
        { field: { field: link.fieldname }, op: 'in', value: values },
      ],
    });
  }
  if (parts.length === 0) return undefined;
  return parts.length === 1 ? parts[0] : { and: parts };
}

function isEmpty(value: unknown): boolean {
  return value === undefined || value === null || value === '';
}

/** True when every restricted Link of one row is empty or allowed (rules for the parent DocType apply). */
function linksAllowed(meta: Meta, row: Doc, rules: readonly UserPermissionRule[], forDoctype: string): boolean {
  return restrictedLinks(meta).every((link) => {
    const value = row[link.fieldname];
    if (isEmpty(value)) return true;
    const values = allowedValues(rules, link.target, forDoctype);
    return values.length === 0 || values.includes(String(value));
  });
}

/**
 * The document-level form of the same rules (reference `has_user_permission`): the document's own
 * name must be allowed when rules name its DocType (a document without a name yet is not), and every
 * restricted Link of the document and of its child rows must be empty or allowed.
 */
export function satisfiesUserPermissions(meta: Meta, doc: Doc, rules: readonly UserPermissionRule[], metaOf: (doctype: string) => Meta): boolean {
  if (rules.length === 0) return true;
  const own = allowedValues(rules, meta.name, meta.name);
  if (own.length > 0 && (isEmpty(doc.name) || !own.includes(String(doc.name)))) return false;
  if (!linksAllowed(meta, doc, rules, meta.name)) return false;
  return meta.tableFields.every((tf) => {
    const rows = doc[tf.def.fieldname];
    if (!Array.isArray(rows)) return true;
    const childMeta = metaOf(tf.def.options ?? '');
    return rows.every((row: Doc) => linksAllowed(childMeta, row, rules, meta.name));
  });
}
