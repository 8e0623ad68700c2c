import { DataError } from '../errors/index.js';
import type { Meta } from '../meta/meta.js';

/** The aggregate of a Report Builder group-by (the reference's report view offers these three). */
export type AggregateFunction = 'count' | 'sum' | 'avg';

/** A saved Report Builder query, read from the Report's `json` (docs/reports.md "The saved query"). */
export interface ReportQuery {
  /** Select items as the list layer takes them, each with its output name. */
  readonly fields: readonly { readonly expr: string; readonly key: string; readonly fieldname: string; readonly doctype: string }[];
  readonly filters: readonly unknown[];
  readonly orderBy: string | undefined;
  readonly groupBy: { readonly field: string; readonly fn: AggregateFunction; readonly on: string | undefined } | undefined;
  readonly addTotalRow: boolean;
}

const AGGREGATES: ReadonlySet<string> = new Set(['count', 'sum', 'avg']);
/** A column as the reference's report view saves it in order_by and group_by: `` `tabDocType`.`field` ``. */
const QUALIFIED = /^`tab([^`]+)`\.`([^`]+)`$/;
const PLAIN = /^[A-Za-z_][A-Za-z0-9_]*$/;

function fail(message: string): never {
  throw new DataError(`Invalid report: ${message}`);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * A field of the report's DocType, or of one of its child tables, as the list layer names it:
 * `field`, or `table_field.field` for a child DocType's column.
 */
function fieldExpr(meta: Meta, childTables: ReadonlyMap<string, string>, doctype: string, fieldname: string): string {
  if (!PLAIN.test(fieldname)) fail(`${JSON.stringify(fieldname)} is not a field name`);
  if (doctype === meta.name) return fieldname;
  const table = childTables.get(doctype);
  if (!table) fail(`${doctype} is neither ${meta.name} nor one of its child tables`);
  return `${table}.${fieldname}`;
}

/** `` `tabX`.`f` ``, `X.f` or `f` as a list-layer field of the report's DocType. */
function columnRef(meta: Meta, childTables: ReadonlyMap<string, string>, text: string): string {
  const t = text.trim();
  const qualified = QUALIFIED.exec(t);
  if (qualified) return fieldExpr(meta, childTables, qualified[1], qualified[2]);
  const dot = t.lastIndexOf('.');
  if (dot > 0) return fieldExpr(meta, childTables, t.slice(0, dot), t.slice(dot + 1));
  return fieldExpr(meta, childTables, meta.name, t);
}

/** `column [asc|desc], …` with each column read by {@link columnRef}. */
function orderByOf(meta: Meta, childTables: ReadonlyMap<string, string>, text: string): string {
  return text
    .split(',')
    .map((term) => term.trim())
    .filter((term) => term !== '')
    .map((term) => {
      const m = /^(.*?)(?:\s+(asc|desc))?$/i.exec(term) as RegExpExecArray;
      return `${columnRef(meta, childTables, m[1])} ${(m[2] ?? 'asc').toLowerCase()}`;
    })
    .join(', ');
}

/**
 * Reads a Report Builder report's saved `json` (the reference's report view: `fields` or `columns`
 * as `[fieldname, doctype]` pairs, `filters` as `[doctype, field, operator, value]`, `order_by` or
 * `sort_by`/`sort_order`, `group_by` as `{group_by, aggregate_function, aggregate_on}`,
 * `add_totals_row`). Every name is checked against the DocType here, and again by the list layer.
 */
export function readReportQuery(meta: Meta, json: string | null | undefined, childTables: ReadonlyMap<string, string>): ReportQuery {
  let params: unknown = {};
  if (json && json.trim() !== '') {
    try {
      params = JSON.parse(json);
    } catch {
      fail('its JSON does not parse');
    }
  }
  if (!isRecord(params)) fail('its JSON must be an object');

  const rawFields = params.fields ?? params.columns ?? [['name', meta.name]];
  if (!Array.isArray(rawFields) || rawFields.length === 0) fail('fields must be a list of [fieldname, doctype] pairs');
  const seen = new Set<string>();
  const fields = rawFields.map((f) => {
    const [fieldname, doctype] = Array.isArray(f) ? f : [f, meta.name];
    if (typeof fieldname !== 'string' || typeof (doctype ?? meta.name) !== 'string') fail('fields must be a list of [fieldname, doctype] pairs');
    const dt = String(doctype ?? meta.name);
    const expr = fieldExpr(meta, childTables, dt, fieldname);
    // A child table's column is named after its table so it cannot clash with the parent's.
    const key = dt === meta.name ? fieldname : expr.replace('.', '_');
    if (seen.has(key)) fail(`field ${expr} is listed twice`);
    seen.add(key);
    return { expr, key, fieldname, doctype: dt };
  });

  const rawFilters = params.filters ?? [];
  if (!Array.isArray(rawFilters)) fail('filters must be a list');
  // The report view saves a fifth element (whether the filter is hidden); the list layer takes four.
  const filters = rawFilters.map((f) => (Array.isArray(f) && f.length > 4 ? f.slice(0, 4) : f));

  let orderBy: string | undefined;
  if (typeof params.order_by === 'string' && params.order_by.trim() !== '') orderBy = orderByOf(meta, childTables, params.order_by);
  else if (typeof params.sort_by === 'string' && params.sort_by !== '') {
    orderBy = orderByOf(meta, childTables, `${params.sort_by} ${String(params.sort_order ?? 'desc')}`);
    if (typeof params.sort_by_next === 'string' && params.sort_by_next !== '') {
      orderBy += `, ${orderByOf(meta, childTables, `${params.sort_by_next} ${String(params.sort_order_next ?? 'desc')}`)}`;
    }
  }

  let groupBy: ReportQuery['groupBy'];
  const g = params.group_by;
  if (isRecord(g) && typeof g.group_by === 'string' && g.group_by !== '') {
    const fn = String(g.aggregate_function ?? 'count').toLowerCase();
    if (!AGGREGATES.has(fn)) fail(`aggregate_function must be count, sum or avg, not ${JSON.stringify(fn)}`);
    const on = typeof g.aggregate_on === 'string' && g.aggregate_on !== '' ? columnRef(meta, childTables, g.aggregate_on) : undefined;
    if (fn !== 'count' && on === undefined) fail(`${fn} needs aggregate_on`);
    groupBy = { field: columnRef(meta, childTables, g.group_by), fn: fn as AggregateFunction, on };
  } else if (g !== undefined && g !== null && g !== '' && !isRecord(g)) {
    fail('group_by must be an object with group_by, aggregate_function and aggregate_on');
  }

  return { fields, filters, orderBy, groupBy, addTotalRow: params.add_totals_row === 1 || params.add_totals_row === true };
}
