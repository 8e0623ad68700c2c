import type { Doc } from '../meta/doctype.js';
import type { FieldContext } from '../meta/field-types/field-type.js';
import type { Meta, ResolvedField } from '../meta/meta.js';

/** One changed value: `[fieldname, old, new]`. */
export type FieldChange = [string, unknown, unknown];

/**
 * What one save changed, in the reference Version's shape: field changes, child rows added and
 * removed (whole rows), and changed child rows as `[table field, index, row name, changes]`.
 */
export interface VersionDiff {
  readonly added: [string, Doc][];
  readonly changed: FieldChange[];
  readonly removed: [string, Doc][];
  readonly row_changed: [string, number, string, FieldChange[]][];
}

/** What comparing needs besides the two documents. */
export interface DiffEnv {
  readonly metaOf: (doctype: string) => Meta;
  /** For bringing both sides to their stored form through the field types. */
  readonly fieldContext: FieldContext;
}

/**
 * The stored form of a value. The document before a save holds values as read (JSON form), the
 * document being saved holds them coerced; coercing both makes `2024-01-01 10:00:00` and
 * `2024-01-01 10:00:00.000000` (or a JSON object and its text) the same value.
 */
function stored(field: ResolvedField, value: unknown, env: DiffEnv, doctype: string): unknown {
  if (value === undefined || value === null) return null;
  try {
    return field.type.coerce(value, field.def, { ...env.fieldContext, doctype });
  } catch {
    // A stored value the type no longer accepts is compared as it is rather than failing the save.
    return value;
  }
}

/** The value as a client reads it. */
function shown(field: ResolvedField, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  return field.type.fromDb ? field.type.fromDb(value, field.def) : value;
}

/** Empty text and NULL mean the same "not set"; a change between them records nothing. */
function sameValue(a: unknown, b: unknown): boolean {
  const x = a === '' ? null : a;
  const y = b === '' ? null : b;
  if (x === null || y === null) return x === y;
  return JSON.stringify(x) === JSON.stringify(y);
}

/** Value fields a Version records: every one with a column, except secrets (never written down). */
function recordedFields(meta: Meta): ResolvedField[] {
  return meta.valueFields.filter((f) => f.type.secret !== true);
}

/** `[fieldname, old, new]` for every recorded field whose stored value differs. */
export function fieldChanges(meta: Meta, before: Doc, after: Doc, env: DiffEnv): FieldChange[] {
  const out: FieldChange[] = [];
  for (const f of recordedFields(meta)) {
    const old = stored(f, before[f.def.fieldname], env, meta.name);
    const now = stored(f, after[f.def.fieldname], env, meta.name);
    if (!sameValue(old, now)) out.push([f.def.fieldname, shown(f, old), shown(f, now)]);
  }
  return out;
}

/** A child row as a client reads it, secrets left out. */
function shownRow(meta: Meta, row: Doc, env: DiffEnv): Doc {
  const out: Doc = {};
  for (const col of meta.standardColumns) out[col] = row[col] ?? null;
  for (const f of recordedFields(meta)) out[f.def.fieldname] = shown(f, stored(f, row[f.def.fieldname], env, meta.name));
  out.doctype = meta.name;
  return out;
}

function rowsOf(doc: Doc, fieldname: string): Doc[] {
  const rows = doc[fieldname];
  return Array.isArray(rows) ? (rows as Doc[]) : [];
}

/**
 * The diff between the stored document and the one being saved (reference `get_diff`), or
 * undefined when nothing recorded changed. Standard fields other than docstatus are ignored, so a
 * save that only moves `modified` records nothing. Child rows are matched by name; a changed row
 * is reported at its 0-based position in the saved table, as the reference does.
 */
export function documentDiff(meta: Meta, before: Doc, after: Doc, env: DiffEnv): VersionDiff | undefined {
  const diff: VersionDiff = { added: [], changed: fieldChanges(meta, before, after, env), removed: [], row_changed: [] };
  for (const tf of meta.tableFields) {
    const table = tf.def.fieldname;
    const childMeta = env.metaOf(tf.def.options ?? '');
    const oldRows = rowsOf(before, table);
    const newRows = rowsOf(after, table);
    const oldByName = new Map(oldRows.map((r) => [String(r.name), r]));
    const newNames = new Set(newRows.map((r) => String(r.name)));
    newRows.forEach((row, i) => {
      const old = oldByName.get(String(row.name));
      if (old === undefined) {
        diff.added.push([table, shownRow(childMeta, row, env)]);
        return;
      }
      const changes = fieldChanges(childMeta, old, row, env);
      if (changes.length > 0) diff.row_changed.push([table, i, String(row.name), changes]);
    });
    for (const row of oldRows) {
      if (!newNames.has(String(row.name))) diff.removed.push([table, shownRow(childMeta, row, env)]);
    }
  }
  const oldStatus = Number(before.docstatus ?? 0);
  const newStatus = Number(after.docstatus ?? 0);
  if (oldStatus !== newStatus) diff.changed.push(['docstatus', oldStatus, newStatus]);
  const empty = diff.changed.length + diff.added.length + diff.removed.length + diff.row_changed.length === 0;
  return empty ? undefined : diff;
}
