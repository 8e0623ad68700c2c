import type { Doc } from '../meta/doctype.js';
import type { Meta } from '../meta/meta.js';
import type { Row } from '../storage/database.js';
import { objectLiteralKey } from '../storage/object-literal-key.js';

/** Turns a stored row of one DocType into a document: JSON values, `doctype` set. */
export type DocFromRow = (row: Row) => Doc;

const converters = new WeakMap<Meta, DocFromRow>();

/**
 * The row-to-document conversion of `meta`, compiled once per compiled Meta into a single object
 * literal: a document read is the hottest path there is, and a literal with fixed keys reading
 * fixed properties costs a fraction of a loop that sets keys one by one (see docs/benchmarks.md).
 * Keys come out in the same order as ever: standard columns, then fields, then `doctype`. Standard
 * columns are kept as stored (`name` as text; `docstatus` and `idx` as numbers), fields go through
 * their type's `fromDb`, and missing values are null.
 */
export function docFromRow(meta: Meta): DocFromRow {
  let convert = converters.get(meta);
  if (!convert) {
    convert = compile(meta);
    converters.set(meta, convert);
  }
  return convert;
}

function compile(meta: Meta): DocFromRow {
  const fromDb: ((value: unknown) => unknown)[] = [];
  const entries: string[] = [];
  for (const column of meta.standardColumns) {
    const value = `row[${JSON.stringify(column)}]`;
    const expression =
      column === 'name'
        ? `(v = ${value}) == null ? null : String(v)`
        : column === 'docstatus' || column === 'idx'
          ? `Number(${value} ?? 0)`
          : `${value} ?? null`;
    entries.push(`${objectLiteralKey(column)}: ${expression}`);
  }
  for (const field of meta.valueFields) {
    const name = field.def.fieldname;
    const value = `(v = row[${JSON.stringify(name)}]) == null ? null`;
    const { type, def } = field;
    if (type.fromDb) {
      const convert = type.fromDb.bind(type);
      fromDb.push((v) => convert(v, def));
      entries.push(`${objectLiteralKey(name)}: ${value} : fromDb[${fromDb.length - 1}](v)`);
    } else {
      entries.push(`${objectLiteralKey(name)}: ${value} : v`);
    }
  }
  entries.push(`"doctype": doctype`);
  const body = `return function docFromRow(row) { let v; return { ${entries.join(', ')} }; };`;
  return new Function('fromDb', 'doctype', body)(fromDb, meta.name) as DocFromRow;
}
