import scheduledJobLog from './scheduled-job-log.json' with { type: 'json' };

/** The jobs' DocTypes (docs/jobs.md); checked and frozen with the other built-in DocTypes (site/built-in-doctypes.ts). */
export const JOB_DOCTYPE_JSON: readonly unknown[] = [scheduledJobLog];
