import type { DocumentService } from '../documents/document-service.js';
import type { HookRegistry } from '../documents/hooks.js';
import type { MethodRegistry } from '../rpc/method-registry.js';
import { registerReportController } from './report-controller.js';
import { registerReportMethods } from './report-methods.js';

/** What reports are wired into: the site's registries and the document service they read through. */
export interface ReportParts {
  readonly hooks: HookRegistry;
  readonly methods: MethodRegistry;
  readonly documents: DocumentService;
}

/** Wires reports into a site as openSite opens it (docs/reports.md): the Report controller and the report methods. */
export function registerReports(parts: ReportParts): void {
  registerReportController(parts.hooks);
  registerReportMethods(parts.methods, parts.documents);
}
