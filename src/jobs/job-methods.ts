import type { DocContext } from '../documents/doc-context.js';
import { DataError, DoesNotExistError, PermissionError, ValidationError } from '../errors/index.js';
import type { MethodCall, MethodRegistry } from '../rpc/method-registry.js';
import type { JobQueue, JobUnit } from './job-queue.js';
import { countJobs, deleteFailedJob, getJob, listJobs, retryFailedJob } from './job-store.js';
import type { JobRow, JobStatus } from './job-table.js';

/** The namespace of the Background Job methods (docs/jobs.md "API"). */
export const JOB_METHODS = 'fw.core.background_job';

const STATUSES: readonly JobStatus[] = ['queued', 'running', 'failed'];
/** Who may call the methods: they are listed for no one else (docs/jobs.md "API"). */
const SYSTEM_MANAGER = ['System Manager'];
const MAX_PAGE = 500;

/** Jobs can carry anything an app put in their arguments: System Managers only, as the reference's RQ Job. */
function requireSystemManager(ctx: DocContext): void {
  const { principal } = ctx;
  if (principal.isAdministrator || principal.roles.has('System Manager')) return;
  throw new PermissionError('Only a System Manager may see or retry background jobs', {
    messages: [{ message: 'You need to be in the System Manager role to see background jobs', title: 'Not permitted' }],
  });
}

/** A job row as the API shows it: times as ISO text, arguments parsed. */
export function presentJob(row: JobRow): Record<string, unknown> {
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  let args: unknown = row.args;
  try {
    args = JSON.parse(row.args);
  } catch {
    // Stored by enqueue as JSON; shown raw if that ever fails.
  }
  return {
    name: row.name,
    job_id: row.job_id,
    queue: row.queue,
    handler: row.handler,
    args,
    status: row.status,
    attempts: row.attempts,
    max_retries: row.max_retries,
    timeout: row.timeout_ms,
    run_at: iso(row.run_at),
    lease_until: iso(row.lease_until),
    user: row.run_as,
    error: row.error,
    enqueued_at: iso(row.enqueued_at),
    finished_at: iso(row.finished_at),
  };
}

function pageArg(value: unknown, fallback: number, name: string): number {
  if (value === undefined || value === null || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new DataError(`${name} must be a whole number >= 0`);
  return n;
}

/** Registers `get_jobs`, `get_job`, `retry_job` and `delete_job` under {@link JOB_METHODS}. */
export function registerJobMethods(methods: MethodRegistry, jobs: JobQueue): void {
  const dialect = jobs.db.dialect;

  methods.register(
    `${JOB_METHODS}.get_jobs`,
    async ({ ctx, args }: MethodCall) => {
      requireSystemManager(ctx);
      const status = args.status === undefined || args.status === '' ? undefined : String(args.status);
      if (status !== undefined && !(STATUSES as readonly string[]).includes(status)) {
        throw new DataError(`status must be one of ${STATUSES.join(', ')}`);
      }
      const limit = Math.min(pageArg(args.limit_page_length, 100, 'limit_page_length') || MAX_PAGE, MAX_PAGE);
      const rows = await listJobs(ctx.q, dialect, {
        status: status as JobStatus | undefined,
        queue: typeof args.queue === 'string' && args.queue !== '' ? args.queue : undefined,
        handler: typeof args.handler === 'string' && args.handler !== '' ? args.handler : undefined,
        limit,
        start: pageArg(args.limit_start, 0, 'limit_start'),
      });
      return { jobs: rows.map(presentJob), counts: await countJobs(ctx.q, dialect) };
    },
    {
      methods: ['GET'],
      roles: SYSTEM_MANAGER,
      params: [
        { name: 'status', type: 'string' },
        { name: 'queue', type: 'string' },
        { name: 'handler', type: 'string' },
        { name: 'limit_start', type: 'int' },
        { name: 'limit_page_length', type: 'int' },
      ],
    },
  );

  methods.register(
    `${JOB_METHODS}.get_job`,
    async ({ ctx, args }: MethodCall) => {
      requireSystemManager(ctx);
      const row = await getJob(ctx.q, dialect, String(args.name));
      if (!row) throw new DoesNotExistError(`Background job ${String(args.name)} not found`);
      return presentJob(row);
    },
    { methods: ['GET'], roles: SYSTEM_MANAGER, params: [{ name: 'name', type: 'string', required: true }] },
  );

  methods.register(
    `${JOB_METHODS}.retry_job`,
    async ({ ctx, args }: MethodCall) => {
      requireSystemManager(ctx);
      const name = String(args.name);
      const row = await getJob(ctx.q, dialect, name);
      if (!row) throw new DoesNotExistError(`Background job ${name} not found`);
      if (row.status !== 'failed') throw new ValidationError(`Only failed jobs can be retried; ${name} is ${row.status}`);
      if (!(await retryFailedJob(ctx.q, dialect, name, jobs.clock.now()))) {
        throw new ValidationError(`Another job with job id ${String(row.job_id)} is already waiting`);
      }
      (ctx as Partial<JobUnit>).unit?.afterCommit(() => jobs.wake());
      return presentJob((await getJob(ctx.q, dialect, name)) as JobRow);
    },
    { methods: ['POST'], roles: SYSTEM_MANAGER, params: [{ name: 'name', type: 'string', required: true }] },
  );

  methods.register(
    `${JOB_METHODS}.delete_job`,
    async ({ ctx, args }: MethodCall) => {
      requireSystemManager(ctx);
      const name = String(args.name);
      const row = await getJob(ctx.q, dialect, name);
      if (!row) throw new DoesNotExistError(`Background job ${name} not found`);
      if (!(await deleteFailedJob(ctx.q, dialect, name))) throw new ValidationError(`Only failed jobs can be deleted; ${name} is ${row.status}`);
      return 'ok';
    },
    { methods: ['POST', 'DELETE'], roles: SYSTEM_MANAGER, params: [{ name: 'name', type: 'string', required: true }] },
  );
}
