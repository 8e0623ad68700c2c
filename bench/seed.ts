import { BENCH_USER } from './fw-auth.js';

/** How rows were added to reach a size. */
export interface SeedOutcome {
  readonly added: number;
  readonly seconds: number;
  readonly via: string;
}

const STATUSES = ['Open', 'Closed', 'Cancelled'];
const PRIORITIES = ['High', 'Medium', 'Low'];
/** Five existing DocTypes, so `reference_type` passes link validation. */
const REFERENCE_TYPES = ['ToDo', 'User', 'Role', 'File', 'DocType'];
const BATCH = 200;
const BATCHES_IN_FLIGHT = 2;
const SINGLE_IN_FLIGHT = 16;

/** The i-th seeded ToDo: deterministic, varied enough that filters and sorts have work to do. */
export function seedDoc(i: number): Record<string, unknown> {
  const day = new Date(Date.UTC(2024, 0, 1) + (i % 730) * 86_400_000).toISOString().slice(0, 10);
  return {
    doctype: 'ToDo',
    description: `bench-seed ${i}: follow up on order ${100_000 + i} with the customer and update the ticket`,
    status: STATUSES[i % 3],
    priority: PRIORITIES[(i >> 1) % 3],
    date: day,
    reference_type: REFERENCE_TYPES[i % 5],
    // 100 rows per value, whatever the size: the list scenarios filter on one of them.
    assignment_rule: `rule-${Math.floor(i / 100)}`,
    // ToDo's permission rule lets a user without a manager role reach only ToDos allocated to them.
    allocated_to: BENCH_USER,
  };
}

async function post(origin: string, auth: string, path: string, body: unknown): Promise<{ status: number; text: string }> {
  const res = await fetch(origin + path, {
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
}

/**
 * POSTs, and again (up to twice more) on 409 or 503: fw's hash names can clash under bulk inserts,
 * and a busy database sheds load with 503; either refusal stored nothing, so the retry is safe.
 */
async function postRetrying(origin: string, auth: string, path: string, body: unknown): Promise<{ status: number; text: string }> {
  let res = await post(origin, auth, path, body);
  for (let attempt = 1; attempt < 3 && (res.status === 409 || res.status === 503); attempt++) {
    await new Promise((r) => setTimeout(r, 500 * attempt));
    res = await post(origin, auth, path, body);
  }
  return res;
}

/** Whether fw has `frappe.client.insert_many` (an unknown method answers 404). */
export async function insertManyAvailable(origin: string, auth: string): Promise<boolean> {
  const res = await post(origin, auth, '/api/method/frappe.client.insert_many', { docs: [] });
  return res.status !== 404;
}

/** Runs `count` jobs with at most `width` in flight. */
async function inParallel(count: number, width: number, job: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < count) await job(next++);
  };
  await Promise.all(Array.from({ length: Math.min(width, count) }, lane));
}

/**
 * Adds ToDos number `from` to `to - 1` through fw's API as the bench user: `insert_many` in batches
 * of 200 when fw has it, otherwise one POST per document, 16 at a time. Prints progress.
 */
export async function seedToDos(
  origin: string,
  auth: string,
  from: number,
  to: number,
  useInsertMany: boolean,
  log: (line: string) => void,
): Promise<SeedOutcome> {
  const started = performance.now();
  const total = Math.max(0, to - from);
  let done = 0;
  let lastReport = started;
  const progress = (force = false) => {
    const now = performance.now();
    if (!force && now - lastReport < 3000) return;
    lastReport = now;
    const rate = done / ((now - started) / 1000);
    log(`  seeding ToDo: ${(from + done).toLocaleString('en')}/${to.toLocaleString('en')} (${Math.round(rate)} docs/s)`);
  };
  const fail = (what: string, res: { status: number; text: string }): never => {
    throw new Error(`seeding: ${what} answered ${res.status}: ${res.text.slice(0, 500)}`);
  };
  if (useInsertMany) {
    await inParallel(Math.ceil(total / BATCH), BATCHES_IN_FLIGHT, async (b) => {
      const docs = [];
      for (let i = from + b * BATCH; i < Math.min(to, from + (b + 1) * BATCH); i++) docs.push(seedDoc(i));
      const res = await postRetrying(origin, auth, '/api/method/frappe.client.insert_many', { docs });
      if (res.status !== 200) fail('insert_many', res);
      done += docs.length;
      progress();
    });
  } else {
    await inParallel(total, SINGLE_IN_FLIGHT, async (k) => {
      const res = await postRetrying(origin, auth, '/api/resource/ToDo', seedDoc(from + k));
      if (res.status !== 200) fail('POST /api/resource/ToDo', res);
      done += 1;
      progress();
    });
  }
  if (total > 0) progress(true);
  return {
    added: total,
    seconds: (performance.now() - started) / 1000,
    via: useInsertMany ? 'frappe.client.insert_many, batches of 200' : 'POST /api/resource/ToDo, 16 in parallel (insert_many missing)',
  };
}
