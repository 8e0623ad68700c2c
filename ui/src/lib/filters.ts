import type { Filter } from './api';
import type { DocField } from './session';

/** One row of the filter builder. */
export interface FilterRow {
  field: string;
  op: string;
  value: string;
}

/** The relative dates a `timespan` filter offers (the server knows these and a few more: docs/api.md "Lists"). */
export const TIMESPANS = [
  'today',
  'yesterday',
  'this week',
  'last week',
  'this month',
  'last month',
  'last 7 days',
  'last 30 days',
  'last 90 days',
  'this year',
] as const;

/** How the builder names an operator; the value sent is the API's own. */
export const OP_LABELS: Record<string, string> = {
  '=': 'equals',
  '!=': 'is not',
  is: 'is set / not set',
  '>': 'greater than',
  '<': 'less than',
  '>=': 'at least',
  '<=': 'at most',
  between: 'between',
  timespan: 'within',
  like: 'contains',
  'not like': 'does not contain',
  in: 'is one of',
  'not in': 'is none of',
};

/** Operators offered for a field type; the API's names. */
export function operatorsFor(fieldtype: string): string[] {
  const base = ['=', '!=', 'is'];
  if (['Int', 'Long Int', 'Float', 'Currency', 'Percent', 'Duration', 'Rating', 'Date', 'Datetime', 'Time'].includes(fieldtype)) {
    return [...base, '>', '<', '>=', '<=', 'between', ...(fieldtype.startsWith('Date') ? ['timespan'] : [])];
  }
  if (fieldtype === 'Check') return ['='];
  if (fieldtype === 'Select') return [...base, 'in', 'not in'];
  return [...base, 'like', 'not like', 'in', 'not in'];
}

/** The filter builder's rows as the API's `[field, op, value]` filters; incomplete rows are left out. */
export function toApiFilters(rows: readonly FilterRow[], fields: readonly DocField[]): Filter[] {
  const out: Filter[] = [];
  for (const row of rows) {
    if (!row.field || !row.op) continue;
    const type = fields.find((f) => f.fieldname === row.field)?.fieldtype ?? 'Data';
    const value = row.value.trim();
    if (row.op === 'is') out.push([row.field, 'is', value === 'not set' ? 'not set' : 'set']);
    else if (row.op === 'in' || row.op === 'not in')
      out.push([
        row.field,
        row.op,
        value
          .split(',')
          .map((v) => v.trim())
          .filter(Boolean),
      ]);
    else if (row.op === 'between') out.push([row.field, 'between', value.split(',').map((v) => v.trim())]);
    else if (row.op === 'like' || row.op === 'not like') out.push([row.field, row.op, value.includes('%') ? value : `%${value}%`]);
    else if (type === 'Check') out.push([row.field, '=', value === '1' || value === 'true' ? 1 : 0]);
    else out.push([row.field, row.op, value]);
  }
  return out;
}

/** Filters kept in the URL (`?filters=[...]`) so a reload or a shared link shows the same list. */
export function rowsFromQuery(raw: unknown): FilterRow[] {
  if (typeof raw !== 'string' || !raw) return [];
  try {
    const parsed = JSON.parse(raw) as unknown;
    if (!Array.isArray(parsed)) return [];
    return parsed
      .filter((r): r is [string, string, unknown] => Array.isArray(r) && r.length === 3 && typeof r[0] === 'string' && typeof r[1] === 'string')
      .map(([field, op, value]) => ({
        field,
        op,
        value: Array.isArray(value) ? value.join(', ') : typeof value === 'string' && /^%.*%$/.test(value) ? value.slice(1, -1) : String(value ?? ''),
      }));
  } catch {
    return [];
  }
}
