import { UpdateAfterSubmitError } from '../errors/index.js';
import type { Doc } from '../meta/doctype.js';
import type { Meta, ResolvedField } from '../meta/meta.js';

/** Unset as the reference sees it (`not value`): both sides unset count as unchanged. */
function isUnset(value: unknown): boolean {
  return value === null || value === undefined || value === '' || value === 0;
}

function same(a: unknown, b: unknown): boolean {
  if (isUnset(a) && isUnset(b)) return true;
  if ((a !== null && typeof a === 'object') || (b !== null && typeof b === 'object')) return JSON.stringify(a) === JSON.stringify(b);
  return String(a ?? '') === String(b ?? '');
}

function show(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

function refuse(meta: Meta, field: ResolvedField, from: unknown, to: unknown, row?: number): never {
  const prefix = row === undefined ? '' : `Row #${row}: `;
  const message = `${prefix}Not allowed to change ${meta.label(field.def.fieldname)} after submission from ${show(from)} to ${show(to)}`;
  throw new UpdateAfterSubmitError(message, { doctype: meta.name, messages: [{ message, title: 'Cannot Update After Submit' }] });
}

function checkValues(meta: Meta, doc: Doc, stored: Doc, row?: number): void {
  for (const f of meta.valueFields) {
    if (f.def.allow_on_submit === 1) continue;
    const from = stored[f.def.fieldname];
    const to = doc[f.def.fieldname];
    if (!same(from, to)) refuse(meta, f, from, to, row);
  }
}

/**
 * Refuses a write on a submitted document that changes a field without `allow_on_submit`
 * (reference `validate_update_after_submit`): 417 UpdateAfterSubmitError "Not allowed to change
 * <Label> after submission from X to Y". A table without allow_on_submit keeps its rows; rows of
 * any table keep the values of their own fields without allow_on_submit; a table with
 * allow_on_submit may gain and lose rows. `doc` and `stored` must be in the same (stored) form.
 */
export function checkUpdateAfterSubmit(meta: Meta, doc: Doc, stored: Doc, metaOf: (doctype: string) => Meta): void {
  checkValues(meta, doc, stored);
  for (const tf of meta.tableFields) {
    const rows = Array.isArray(doc[tf.def.fieldname]) ? (doc[tf.def.fieldname] as Doc[]) : [];
    const storedRows = Array.isArray(stored[tf.def.fieldname]) ? (stored[tf.def.fieldname] as Doc[]) : [];
    const tableMayChange = tf.def.allow_on_submit === 1;
    const storedByName = new Map(storedRows.map((r) => [r.name, r]));
    const replaced = rows.some((r) => !storedByName.has(r.name));
    if (!tableMayChange && (rows.length !== storedRows.length || replaced)) {
      refuse(meta, tf, storedRows.length, rows.length);
    }
    const childMeta = metaOf(tf.def.options ?? '');
    rows.forEach((row, i) => {
      const storedRow = storedByName.get(row.name);
      if (storedRow) checkValues(childMeta, row, storedRow, i + 1);
    });
  }
}
