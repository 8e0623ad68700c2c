import { registerImportJob, type ImportJobParts } from './import-job.js';
import { registerImportMethods } from './import-methods.js';
import type { MethodRegistry } from '../rpc/method-registry.js';

/** What Data Import is wired into: the site's methods, and what its job needs (see ImportJobParts). */
export interface DataImportParts extends ImportJobParts {
  readonly methods: MethodRegistry;
}

/**
 * Wires Data Import into a site as openSite opens it: the slice job on the site's queue and the
 * reference's methods. Its DocTypes ship with the core ones (src/data-import/doctypes).
 */
export function registerDataImport(parts: DataImportParts): void {
  registerImportJob(parts);
  registerImportMethods(parts.methods, parts);
}
