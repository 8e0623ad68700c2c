/*
 * The DocType builder's checks on its fields table, run as the user types so a problem is named
 * before saving (docs/admin-ui.md "DocType builder"). They mirror the server's own rules
 * (src/meta/check-definition.ts); the server still decides on save.
 */

/** Names every DocType has already: standard columns, child-row columns, collaboration columns. */
export const RESERVED_FIELDNAMES = new Set([
  'name',
  'owner',
  'creation',
  'modified',
  'modified_by',
  'docstatus',
  'idx',
  'parent',
  'parentfield',
  'parenttype',
  '_user_tags',
  '_comments',
  '_assign',
  '_liked_by',
  'doctype',
]);
const FIELDNAME = /^[a-z_][a-z0-9_]{0,63}$/;
const BREAKS: Record<string, string> = { 'Section Break': 'section_break', 'Column Break': 'column_break', 'Tab Break': 'tab_break' };
/** Field types whose options name a DocType: a Link's target, a Table's child table. */
export const DOCTYPE_OPTION_TYPES = new Set(['Link', 'Table', 'Table MultiSelect']);
export const TABLE_TYPES = new Set(['Table', 'Table MultiSelect']);

export interface BuilderField {
  fieldname?: unknown;
  label?: unknown;
  fieldtype?: unknown;
  options?: unknown;
  name?: unknown;
}

/** `Due Date` -> `due_date`; a name that would start with a digit gets `field_` before it. */
export function scrub(label: string): string {
  const s = label
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 60);
  return /^[0-9]/.test(s) ? `field_${s}`.slice(0, 64) : s;
}

/**
 * The fieldname a label gives in this table: scrubbed, then numbered (`name_1`) when it is
 * reserved or another row has it. A break without a label is named after its type.
 */
export function deriveFieldname(label: string, fieldtype: string, taken: ReadonlySet<string>): { fieldname: string; note?: string } {
  const base = scrub(label) || BREAKS[fieldtype] || '';
  if (!base) return { fieldname: '' };
  const reserved = RESERVED_FIELDNAMES.has(base);
  if (!reserved && !taken.has(base)) return { fieldname: base };
  let n = 1;
  while (taken.has(`${base}_${n}`) || RESERVED_FIELDNAMES.has(`${base}_${n}`)) n++;
  const fieldname = `${base}_${n}`;
  return reserved ? { fieldname, note: `"${base}" is reserved for a standard field, so the fieldname is ${fieldname}` } : { fieldname };
}

/** What is wrong with each row now, by row index: the first problem only, in the server's words where it has them. */
export function rowProblems(fields: readonly BuilderField[]): Map<number, string> {
  const out = new Map<number, string>();
  const seen = new Map<string, number>();
  fields.forEach((f, i) => {
    const fieldname = String(f.fieldname ?? '');
    const type = String(f.fieldtype ?? '');
    if (!fieldname) out.set(i, 'A fieldname is needed (type a label)');
    else if (!FIELDNAME.test(fieldname)) out.set(i, `Fieldname "${fieldname}" must be lower case letters, digits and _, starting with a letter or _`);
    else if (RESERVED_FIELDNAMES.has(fieldname)) out.set(i, `Fieldname "${fieldname}" is reserved for a standard field`);
    else if (seen.has(fieldname)) out.set(i, `Fieldname "${fieldname}" is also used by field ${seen.get(fieldname)! + 1}`);
    else if (DOCTYPE_OPTION_TYPES.has(type) && !String(f.options ?? '').trim())
      out.set(i, `A ${type} field needs the DocType it ${TABLE_TYPES.has(type) ? 'holds rows of' : 'points to'} in Options`);
    if (fieldname && !seen.has(fieldname)) seen.set(fieldname, i);
  });
  return out;
}

/**
 * The row a server refusal is about: the field it names (`Fieldname "x"`, `Field x:`, `field x`),
 * by fieldname; undefined when it names none of the rows.
 */
export function rowOfError(message: string, fields: readonly BuilderField[]): number | undefined {
  const patterns = [/Fieldname "([^"]*)"/, /\bField ([a-z_][a-z0-9_]*)\b/i, /\bfield ([a-z_][a-z0-9_]*)\b/];
  for (const p of patterns) {
    const m = p.exec(message);
    if (!m) continue;
    const i = fields.findIndex((f) => String(f.fieldname ?? '') === m[1]);
    if (i >= 0) return i;
  }
  return undefined;
}

/** Moves the row at `from` to `to` (a drag's drop target), answering the new order. */
export function moveRow<T>(rows: readonly T[], from: number, to: number): T[] {
  if (from === to || from < 0 || to < 0 || from >= rows.length || to >= rows.length) return [...rows];
  const out = [...rows];
  const [row] = out.splice(from, 1);
  out.splice(to, 0, row!);
  return out;
}
