/**
 * SQL for the baseline server: the plain statements a hand-written endpoint would run, with every
 * identifier checked against the table's columns (the baseline knows no metadata, but it must not
 * splice request text into SQL either).
 */

/** A filter the baseline understands: `field op value`. */
export type Filter = readonly [field: string, op: string, value: unknown];

/** A parsed list request. */
export interface ListSpec {
  readonly fields: readonly string[];
  readonly filters: readonly Filter[];
  readonly orderBy: readonly (readonly [field: string, dir: 'asc' | 'desc'])[];
  /** 0 = no limit. */
  readonly limit: number;
  readonly offset: number;
}

/** A statement with its parameters. */
export interface Sql {
  readonly text: string;
  readonly params: unknown[];
}

/** `?` for SQLite, `$n` for PostgreSQL. */
export type Placeholder = (index: number) => string;

const OPERATORS = new Set(['=', '!=', '<', '>', '<=', '>=', 'like']);

/** A client mistake: Fastify answers it with status 400 and the message. */
export function badRequest(message: string): Error {
  return Object.assign(new Error(message), { statusCode: 400 });
}

function parseJsonParam(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    throw badRequest(`not JSON: ${value.slice(0, 100)}`);
  }
}

/** Validates an identifier against the table's columns and quotes it. */
export function column(columns: ReadonlySet<string>, name: string): string {
  if (!columns.has(name)) throw badRequest(`unknown column ${name}`);
  return `"${name}"`;
}

/** `filters` as the list and count endpoints receive it: a JSON list of triples (or quads) or a dict. */
export function parseFilters(raw: unknown): Filter[] {
  const value = parseJsonParam(raw);
  if (value === undefined || value === null || value === '') return [];
  if (Array.isArray(value)) {
    return value.map((f) => {
      if (!Array.isArray(f) || f.length < 3) throw badRequest('a filter is [field, op, value]');
      const [field, op, v] = f.length >= 4 ? f.slice(1) : f;
      return [String(field), String(op).toLowerCase(), v] as const;
    });
  }
  if (typeof value === 'object') {
    return Object.entries(value).map(([field, v]) => (Array.isArray(v) ? ([field, String(v[0]).toLowerCase(), v[1]] as const) : ([field, '=', v] as const)));
  }
  throw badRequest('filters must be a list or a dict');
}

/** The list parameters of `GET /api/resource/ToDo`. */
export function parseListSpec(query: Record<string, unknown>): ListSpec {
  const fieldsValue = query.fields === undefined ? ['name'] : parseJsonParam(query.fields);
  if (!Array.isArray(fieldsValue)) throw badRequest('fields must be a list');
  const orderBy = String(query.order_by ?? 'creation desc')
    .split(',')
    .map((part) => part.trim().split(/\s+/))
    .filter((words) => words[0])
    .map(([field, dir]) => [field, dir?.toLowerCase() === 'asc' ? 'asc' : 'desc'] as const);
  const limit = Number(query.limit_page_length ?? query.limit ?? 20);
  const offset = Number(query.limit_start ?? 0);
  if (!Number.isInteger(limit) || limit < 0 || !Number.isInteger(offset) || offset < 0) throw badRequest('bad paging');
  return { fields: fieldsValue.map(String), filters: parseFilters(query.filters), orderBy, limit, offset };
}

function where(columns: ReadonlySet<string>, filters: readonly Filter[], ph: Placeholder, params: unknown[]): string {
  if (filters.length === 0) return '';
  const terms = filters.map(([field, op, value]) => {
    if (!OPERATORS.has(op)) throw badRequest(`unsupported operator ${op}`);
    params.push(value);
    return `${column(columns, field)} ${op} ${ph(params.length)}`;
  });
  return ` where ${terms.join(' and ')}`;
}

/** `select <fields> from tabToDo where ... order by ... limit ...` */
export function listSql(table: string, columns: ReadonlySet<string>, spec: ListSpec, ph: Placeholder): Sql {
  const params: unknown[] = [];
  const fields = spec.fields.map((f) => column(columns, f)).join(', ');
  let text = `select ${fields} from "${table}"${where(columns, spec.filters, ph, params)}`;
  if (spec.orderBy.length) text += ` order by ${spec.orderBy.map(([f, d]) => `${column(columns, f)} ${d}`).join(', ')}`;
  if (spec.limit > 0) text += ` limit ${spec.limit}`;
  if (spec.offset > 0) text += ` offset ${spec.offset}`;
  return { text, params };
}

/** `select count(*) as n from tabToDo where ...` */
export function countSql(table: string, columns: ReadonlySet<string>, filters: readonly Filter[], ph: Placeholder): Sql {
  const params: unknown[] = [];
  return { text: `select count(*) as n from "${table}"${where(columns, filters, ph, params)}`, params };
}

/** `delete from tabToDo where ...` (the harness's clean-up after write scenarios). */
export function deleteSql(table: string, columns: ReadonlySet<string>, filters: readonly Filter[], ph: Placeholder): Sql {
  if (filters.length === 0) throw badRequest('refusing to delete without a filter');
  const params: unknown[] = [];
  return { text: `delete from "${table}"${where(columns, filters, ph, params)}`, params };
}

/** `insert into tabToDo (<keys of row>) values (...)` */
export function insertSql(table: string, columns: ReadonlySet<string>, row: Record<string, unknown>, ph: Placeholder): Sql {
  const keys = Object.keys(row);
  return {
    text: `insert into "${table}" (${keys.map((k) => column(columns, k)).join(', ')}) values (${keys.map((_, i) => ph(i + 1)).join(', ')})`,
    params: keys.map((k) => row[k]),
  };
}

/** `update tabToDo set ... where name = ?` */
export function updateSql(table: string, columns: ReadonlySet<string>, name: string, values: Record<string, unknown>, ph: Placeholder): Sql {
  const keys = Object.keys(values);
  const sets = keys.map((k, i) => `${column(columns, k)} = ${ph(i + 1)}`).join(', ');
  return { text: `update "${table}" set ${sets} where "name" = ${ph(keys.length + 1)}`, params: [...keys.map((k) => values[k]), name] };
}
