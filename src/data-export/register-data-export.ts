import type { MethodRegistry, ParamSpec } from '../rpc/method-registry.js';
import { exportQuery } from './export-query.js';

/** What export is wired into: only the method registry. */
export interface DataExportParts {
  readonly methods: MethodRegistry;
}

const PARAMS: readonly ParamSpec[] = [
  { name: 'doctype', type: 'string', required: true },
  { name: 'fields', type: 'json' },
  { name: 'filters', type: 'json' },
  { name: 'or_filters', type: 'json' },
  { name: 'order_by', type: 'string' },
  { name: 'file_format_type', type: 'string' },
  { name: 'title', type: 'string' },
  { name: 'selected_items', type: 'json' },
  { name: 'csv_delimiter', type: 'string' },
];

/**
 * Wires export into a site (docs/import-export.md "Export"): `fw.desk.reportview.export_query`,
 * which also answers as `frappe.desk.reportview.export_query`. It only reads, so a POST (how a
 * browser form downloads) runs in a read unit too and never holds the write lock.
 */
export function registerDataExport(parts: DataExportParts): void {
  parts.methods.register('fw.desk.reportview.export_query', exportQuery, {
    params: PARAMS,
    readOnly: true,
    description: 'Exports the rows of a DocType the caller may read as a CSV or Excel file, streamed.\n\nNeeds the export right on the DocType.',
  });
}
