import type { HookRegistry } from '../documents/hooks.js';
import { ValidationError } from '../errors/index.js';
import type { Doc } from '../meta/doctype.js';
import { REPORT } from './doctypes/index.js';
import { readReportQuery } from './report-definition.js';
import { childTablesOf } from './run-report.js';

/**
 * The Report controller (docs/reports.md "The Report DocType"): a report on an existing, top-level
 * DocType; a Report Builder report's saved query must read; the reference's `add_total_row` is
 * copied into the query as it does; a report without roles gets the roles of its DocType's
 * permission rows (reference set_doctype_roles). Query and Script reports may be stored (a site
 * moved from the reference keeps them) but never run.
 */
export function registerReportController(hooks: HookRegistry): void {
  hooks.on(REPORT, 'validate', async ({ doc, ctx }, next) => {
    const doctype = String(doc.ref_doctype ?? '');
    const meta = ctx.metas.has(doctype) ? ctx.metas.get(doctype) : undefined;
    if (!meta) throw new ValidationError(`DocType ${doctype} does not exist`, { doctype: REPORT });
    if (meta.isChild || meta.isSingle) throw new ValidationError(`Reports are made on DocTypes with many documents, not on ${doctype}`, { doctype: REPORT });
    doc.is_standard = 'No';
    doc.module ??= meta.def.module ?? null;
    if ((doc.report_type ?? 'Report Builder') === 'Report Builder' && doc.json) {
      readReportQuery(meta, String(doc.json), childTablesOf(meta));
      const params = JSON.parse(String(doc.json)) as Record<string, unknown>;
      params.add_total_row = Number(doc.add_total_row ?? 0);
      doc.json = JSON.stringify(params);
    }
    const roles = Array.isArray(doc.roles) ? (doc.roles as Doc[]) : [];
    if (roles.length === 0) {
      const fromDocType = [...new Set((meta.def.permissions ?? []).filter((p) => (p.permlevel ?? 0) === 0 && p.read !== 0).map((p) => p.role))];
      doc.roles = fromDocType.map((role) => ({ role }));
    }
    await next();
  });
}
