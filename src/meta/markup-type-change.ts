import { SINGLES_TABLE } from '../documents/singles/single-rows.js';
import type { Queryable } from '../storage/database.js';
import type { Dialect } from '../storage/dialect.js';
import type { DocTypeDef } from './doctype.js';
import type { Meta } from './meta.js';
import { containsMarkup, sanitizeHtml } from './field-types/html-sanitizer.js';

/*
 * A field that becomes a type the admin UI renders as markup keeps no markup it would not accept
 * now (docs/security.md "Stored markup"). Values of Code, HTML Editor or Markdown Editor fields are
 * stored as typed, `<iframe srcdoc>` and all; the UI shows them as text. Once such a field is a
 * Text Editor, the UI would put them into the page as markup, so the change sanitises them with the
 * same sanitiser a Text Editor value passes on save, in the transaction that changes the type.
 */

/** The field types the admin UI renders as markup (ui/src/components/TextEditor.vue). */
export const RENDERED_AS_MARKUP: ReadonlySet<string> = new Set(['Text Editor']);

/** Rows rewritten per round trip: a table of any size is walked without holding it in memory. */
const PAGE = 500;

/** The fields of `after` that become a type rendered as markup, having been another type in `before`. */
export function fieldsBecomingMarkup(before: DocTypeDef, after: DocTypeDef): string[] {
  const previous = new Map(before.fields.map((f) => [f.fieldname, f.fieldtype]));
  return after.fields
    .filter((f) => RENDERED_AS_MARKUP.has(f.fieldtype))
    .filter((f) => previous.has(f.fieldname) && !RENDERED_AS_MARKUP.has(previous.get(f.fieldname) as string))
    .map((f) => f.fieldname);
}

/** The sanitised value, or undefined when `value` needs no change. */
function cleaned(value: unknown): string | undefined {
  if (typeof value !== 'string' || !containsMarkup(value)) return undefined;
  const safe = sanitizeHtml(value);
  return safe === value ? undefined : safe;
}

/** Sanitises the stored values of `fields` in the rows of a table DocType; answers how many rows changed. */
async function sanitizeTable(q: Queryable, dialect: Dialect, table: string, fields: readonly string[]): Promise<number> {
  const b = dialect.builder;
  let changed = 0;
  let after: string | undefined;
  for (;;) {
    let page = b
      .selectFrom(table)
      .select(['name', ...fields])
      .where((eb) => eb.or(fields.map((f) => eb(f, 'like', '%<%'))))
      .orderBy('name')
      .limit(PAGE);
    if (after !== undefined) page = page.where('name', '>', after);
    const rows = await q.all<Record<string, unknown>>(page.compile());
    for (const row of rows) {
      const updates = Object.fromEntries(
        fields.flatMap((f) => {
          const safe = cleaned(row[f]);
          return safe === undefined ? [] : [[f, safe]];
        }),
      );
      if (Object.keys(updates).length === 0) continue;
      await q.run(b.updateTable(table).set(updates).where('name', '=', String(row.name)).compile());
      changed += 1;
    }
    if (rows.length < PAGE) return changed;
    after = String(rows[rows.length - 1].name);
  }
}

/** Sanitises the stored values of `fields` of a Single DocType. */
async function sanitizeSingle(q: Queryable, dialect: Dialect, doctype: string, fields: readonly string[]): Promise<number> {
  const b = dialect.builder;
  const rows = await q.all<{ field: string; value: unknown }>(
    b
      .selectFrom(SINGLES_TABLE)
      .select(['field', 'value'])
      .where('doctype', '=', doctype)
      .where('field', 'in', [...fields])
      .compile(),
  );
  let changed = 0;
  for (const row of rows) {
    const safe = cleaned(row.value);
    if (safe === undefined) continue;
    await q.run(b.updateTable(SINGLES_TABLE).set({ value: safe }).where('doctype', '=', doctype).where('field', '=', row.field).compile());
    changed += 1;
  }
  return changed;
}

/**
 * Sanitises what `fields` of `meta` hold, after its table took the new definition (DocType
 * `on_update`, inside the save's transaction: a failure leaves type and values as they were).
 */
export async function sanitizeValuesBecomingMarkup(q: Queryable, dialect: Dialect, meta: Meta, fields: readonly string[]): Promise<number> {
  if (fields.length === 0) return 0;
  return meta.isSingle ? sanitizeSingle(q, dialect, meta.name, fields) : sanitizeTable(q, dialect, meta.tableName, fields);
}
