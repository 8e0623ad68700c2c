import dataImportLog from './data-import-log.json' with { type: 'json' };
import dataImport from './data-import.json' with { type: 'json' };

/** The reference's import DocTypes; checked and frozen with the core DocTypes. */
export const DATA_IMPORT_DOCTYPE_JSON: readonly unknown[] = [dataImport, dataImportLog];

export const DATA_IMPORT = 'Data Import';
export const DATA_IMPORT_LOG = 'Data Import Log';
