import type { DocumentService } from '../documents/document-service.js';
import type { MethodRegistry } from '../rpc/method-registry.js';
import { exportReport } from './export-report.js';
import { groupByCount } from './group-by-count.js';
import { runnableReport, runReport } from './run-report.js';
import { sidebarStats, workflowStateCount } from './sidebar-stats.js';

/**
 * The report methods under the reference's paths (docs/reports.md "Running a report", "Exporting a report", "Sidebar counts"):
 * query_report.run, get_script and export_query, and the list sidebar's group-by counts (reportview and listview paths).
 */
export function registerReportMethods(methods: MethodRegistry, documents: DocumentService): void {
  methods.register(
    'fw.desk.query_report.run',
    async ({ ctx, args }) => runReport(ctx, await runnableReport(ctx, documents, String(args.report_name)), args.filters),
    {
      params: [
        { name: 'report_name', type: 'string', required: true },
        { name: 'filters', type: 'json' },
        { name: 'user', type: 'string' },
        { name: 'ignore_prepared_report', type: 'any' },
        { name: 'are_default_filters', type: 'any' },
      ],
      description: 'Runs a Report Builder report as the caller: columns, result, message, chart.',
    },
  );
  methods.register(
    'fw.desk.query_report.get_script',
    async ({ ctx, args }) => {
      const name = String(args.report_name);
      const { report } = await runnableReport(ctx, documents, name);
      const script = report.javascript ? String(report.javascript) : `frappe.query_reports[${JSON.stringify(name)}] = {}`;
      return { script, html_format: null, execution_time: 0, filters: [], custom_report_name: null };
    },
    {
      params: [{ name: 'report_name', type: 'string', required: true }],
      description: 'The client script of a report the caller may run.',
    },
  );
  methods.register('fw.desk.query_report.export_query', (call) => exportReport(call, documents), {
    params: [
      { name: 'report_name', type: 'string', required: true },
      { name: 'file_format_type', type: 'string' },
      { name: 'filters', type: 'json' },
      { name: 'visible_idx', type: 'json' },
      { name: 'csv_delimiter', type: 'string' },
      { name: 'csv_quoting', type: 'any' },
      { name: 'include_indentation', type: 'any' },
      { name: 'include_filters', type: 'any' },
    ],
    readOnly: true,
    description: 'Exports a Report Builder report as the caller runs it, as a CSV or Excel file.\n\nNeeds the export right on its DocType.',
  });
  for (const path of ['fw.desk.reportview.get_group_by_count', 'fw.desk.listview.get_group_by_count']) {
    methods.register(path, ({ ctx, args }) => groupByCount(ctx, String(args.doctype), args.current_filters, String(args.field)), {
      params: [
        { name: 'doctype', type: 'string', required: true },
        { name: 'current_filters', type: 'json' },
        { name: 'field', type: 'string', required: true },
      ],
      description: 'How many of the documents the list shows have each value of a field (the list sidebar).',
    });
  }
  methods.register('fw.desk.reportview.get_sidebar_stats', ({ ctx, args }) => sidebarStats(ctx, String(args.doctype), args.stats, args.filters), {
    params: [
      { name: 'stats', type: 'json', required: true },
      { name: 'doctype', type: 'string', required: true },
      { name: 'filters', type: 'json' },
    ],
    description: 'The older list sidebar: for each named field, [[value, count], …] over the matching documents.',
  });
  methods.register(
    'fw.workflow.doctype.workflow.workflow.get_workflow_state_count',
    ({ ctx, args }) => workflowStateCount(ctx, String(args.doctype), String(args.workflow_state_field), args.states),
    {
      params: [
        { name: 'doctype', type: 'string', required: true },
        { name: 'workflow_state_field', type: 'string', required: true },
        { name: 'states', type: 'json' },
      ],
      description: 'How many documents are in each workflow state not listed in states (the list sidebar).',
    },
  );
}
