import { isNumeric } from './format';

/*
 * What the report view (docs/reports.md "Running a report") shows of `query_report.run`'s answer:
 * the rows, and a totals row — the server's own when the report adds one (`add_total_row`, its last
 * row), else one summed here over the numeric columns, so a group-by always shows its total.
 */

export interface ReportColumn {
  fieldname: string;
  label?: string;
  fieldtype: string;
}

export type ReportRow = Record<string, unknown>;

export interface ReportAnswer {
  result: ReportRow[];
  columns: ReportColumn[];
  add_total_row?: number;
  chart?: unknown;
}

/** An average of averages is not the average: such a column gets no total. */
function summable(c: ReportColumn): boolean {
  return isNumeric(c.fieldtype) && !/^Average of /.test(c.label ?? '');
}

/** The totals of the rows: numeric columns summed (Percent averaged), `Total` in a first column that is not numeric. */
export function totalsOf(columns: ReportColumn[], rows: ReportRow[]): ReportRow {
  const total: ReportRow = {};
  for (const c of columns) {
    if (!summable(c)) continue;
    const sum = rows.reduce((acc, r) => acc + (Number(r[c.fieldname]) || 0), 0);
    total[c.fieldname] = c.fieldtype === 'Percent' && rows.length ? sum / rows.length : sum;
  }
  const first = columns[0];
  if (first && !isNumeric(first.fieldtype)) total[first.fieldname] = 'Total';
  return total;
}

/** The rows to list and the totals row to show under them (null when no column is numeric or nothing came back). */
export function splitReport(answer: ReportAnswer): { rows: ReportRow[]; total: ReportRow | null } {
  const rows = Array.isArray(answer.result) ? answer.result : [];
  if (answer.add_total_row && rows.length) return { rows: rows.slice(0, -1), total: rows[rows.length - 1] };
  if (!rows.length || !answer.columns.some(summable)) return { rows, total: null };
  return { rows, total: totalsOf(answer.columns, rows) };
}
