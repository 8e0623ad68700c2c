import { BENCH_USER } from './fw-auth.js';
import type { RequestSpec } from './load-protocol.js';

/** Descriptions of documents the write scenarios create start with this, so they can be removed after. */
export const WRITE_MARK = 'bench-write';

/**
 * The list scenarios' equality filter: on an indexed column (`assignment_rule`, search_index), and
 * matching the same 100 seeded rows at every size, so that a list which uses the index costs the
 * same at 1k and 100k rows. (A filter matching a fixed share of the table instead, such as one
 * `reference_type` in five, makes both servers sort 20,000 rows per request at 100k.)
 */
export const LIST_FILTER = ['assignment_rule', '=', 'rule-1'] as const;

/** Identifiers of the scenarios, in the order they run (reads first, so they see exactly the seeded rows). */
export type ScenarioId = 'get-one' | 'list' | 'list-count' | 'insert' | 'update' | 'insert-many';

/** One measured workload, sent identically to fw (with its token) and to the baseline. */
export interface Scenario {
  readonly id: ScenarioId;
  readonly title: string;
  /** Adds or changes rows; the harness removes what write scenarios added before the next size. */
  readonly writes: boolean;
  /** Skipped on fw when this method is missing (detected at start, reported). */
  readonly needsMethod?: 'insert_many';
  /** Every connection sends these in turn. */
  readonly requests: readonly RequestSpec[];
}

const query = (params: Record<string, string | number>) =>
  Object.entries(params)
    .map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`)
    .join('&');

/** The list of scenario (b): 20 rows, 3 fields, the equality filter, newest first. */
export const LIST_PATH = `/api/resource/ToDo?${query({
  fields: JSON.stringify(['name', 'description', 'status']),
  filters: JSON.stringify([LIST_FILTER]),
  order_by: 'modified desc',
  limit_page_length: 20,
})}`;

/** The count a list view asks for beside its page. */
export const COUNT_PATH = `/api/method/frappe.client.get_count?${query({ doctype: 'ToDo', filters: JSON.stringify([LIST_FILTER]) })}`;

/** Every row, two fields, no limit: the streaming check. */
export const STREAM_PATH = `/api/resource/ToDo?${query({ fields: JSON.stringify(['name', 'description']), limit_page_length: 0 })}`;

const writeDoc = JSON.stringify({
  description: `${WRITE_MARK} {{seq}}: call the supplier about the delayed order`,
  priority: 'Low',
  reference_type: 'Role',
  allocated_to: BENCH_USER,
});

const insertManyBody = JSON.stringify({
  docs: Array.from({ length: 100 }, (_, i) => ({
    doctype: 'ToDo',
    description: `${WRITE_MARK} {{seq}}-${i}: call the supplier about the delayed order`,
    priority: 'Low',
    reference_type: 'Role',
    allocated_to: BENCH_USER,
  })),
});

/** The six scenarios of the issue, (a) to (f). */
export const SCENARIOS: readonly Scenario[] = [
  { id: 'get-one', title: '(a) GET one document', writes: false, requests: [{ method: 'GET', path: '/api/resource/ToDo/{{name}}' }] },
  { id: 'list', title: '(b) list 20, 3 fields, filter, order by modified desc', writes: false, requests: [{ method: 'GET', path: LIST_PATH }] },
  {
    id: 'list-count',
    title: '(c) the same list + get_count (2 requests per page)',
    writes: false,
    requests: [
      { method: 'GET', path: LIST_PATH },
      { method: 'GET', path: COUNT_PATH },
    ],
  },
  { id: 'insert', title: '(d) insert one document', writes: true, requests: [{ method: 'POST', path: '/api/resource/ToDo', body: writeDoc }] },
  {
    id: 'update',
    title: '(e) update one document',
    writes: true,
    requests: [{ method: 'PUT', path: '/api/resource/ToDo/{{name}}', body: JSON.stringify({ color: '#{{seq}}', priority: 'High' }) }],
  },
  {
    id: 'insert-many',
    title: '(f) insert_many of 100 documents',
    writes: true,
    needsMethod: 'insert_many',
    requests: [{ method: 'POST', path: '/api/method/frappe.client.insert_many', body: insertManyBody }],
  },
];
