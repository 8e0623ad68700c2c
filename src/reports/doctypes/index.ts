import report from './report.json' with { type: 'json' };

/** The reference's Report DocType; checked and frozen with the core DocTypes. */
export const REPORT_DOCTYPE_JSON: readonly unknown[] = [report];

export const REPORT = 'Report';
