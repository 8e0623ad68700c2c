import { listQueryAfterAccess } from '../../documents/lists/list-access.js';
import type { DocContext } from '../../documents/doc-context.js';
import { listDocuments } from '../../documents/lists/list-documents.js';
import { DataError } from '../../errors/index.js';
import type { Meta } from '../../meta/meta.js';
import type { MethodCall, MethodRegistry, ParamSpec } from '../method-registry.js';

/** Field types whose text a search matches (reference `search_widget`). */
const SEARCHABLE = new Set(['Data', 'Text', 'Small Text', 'Long Text', 'Link', 'Select', 'Read Only', 'Text Editor']);
const DEFAULT_PAGE_LENGTH = 10;
/** A search is a typeahead: a page longer than this is refused rather than read. */
const MAX_PAGE_LENGTH = 500;

/** The title field and search fields of a DocType that exist, hold a value and sit at permlevel 0. */
function searchColumns(meta: Meta): { title: string | undefined; extra: string[] } {
  const usable = (name: string) => {
    const f = meta.field(name);
    return f !== undefined && f.column !== undefined && (f.def.permlevel ?? 0) === 0;
  };
  const title = meta.def.title_field && usable(meta.def.title_field) ? meta.def.title_field : undefined;
  const extra = (meta.def.search_fields ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s, i, all) => s !== '' && s !== 'name' && s !== title && usable(s) && all.indexOf(s) === i);
  return { title, extra };
}

/** A non-negative integer argument, or the fallback; anything else is 417. */
function count(raw: unknown, param: string, fallback: number, max: number): number {
  if (raw === undefined || raw === null || raw === '') return fallback;
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\s*\d+\s*$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(n) || n < 0 || n > max) throw new DataError(`${param} must be an integer from 0 to ${max}`);
  return n;
}

/** What a search asks for, read from the arguments of search_link or search_widget. */
interface SearchRequest {
  readonly doctype: string;
  readonly txt: string;
  readonly filters: unknown;
  readonly start: number;
  readonly pageLength: number;
}

function searchRequest(args: Readonly<Record<string, unknown>>): SearchRequest {
  if (args.query !== undefined && args.query !== null && args.query !== '') {
    throw new DataError('Custom search queries are not supported; pass filters instead');
  }
  return {
    doctype: String(args.doctype),
    txt: typeof args.txt === 'string' ? args.txt.trim() : args.txt === undefined || args.txt === null ? '' : String(args.txt),
    filters: args.filters,
    start: count(args.start, 'start', 0, 2_147_483_647),
    pageLength: count(args.page_length, 'page_length', DEFAULT_PAGE_LENGTH, MAX_PAGE_LENGTH),
  };
}

/**
 * The rows a search finds, as `[name, title, ...search fields]`: documents the caller may read whose
 * name, title or search fields contain `txt` (case-insensitive on both engines), narrowed by
 * `filters`, without disabled ones (an `enabled` Check at 0, a `disabled` Check at 1).
 */
async function searchRows(ctx: DocContext, req: SearchRequest): Promise<{ columns: string[]; rows: unknown[][] }> {
  const meta = ctx.metas.get(req.doctype);
  const { title, extra } = searchColumns(meta);
  const columns = ['name', ...(title ? [title] : []), ...extra];
  const orFilters: unknown[] = [];
  if (req.txt !== '') {
    // Backslash escapes % and _ on both engines (compile-condition.ts), so the text matches as typed.
    const pattern = `%${req.txt.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    for (const f of columns) {
      if (f === 'name' || SEARCHABLE.has(meta.field(f)?.def.fieldtype ?? '')) orFilters.push([f, 'like', pattern]);
    }
  }
  const extraFilters: unknown[] = [];
  if (meta.field('enabled')?.def.fieldtype === 'Check') extraFilters.push(['enabled', '=', 1]);
  if (meta.field('disabled')?.def.fieldtype === 'Check') extraFilters.push(['disabled', '!=', 1]);
  const filters = combineFilters(req.filters, extraFilters);
  const { rows } = await listDocuments(
    ctx,
    await listQueryAfterAccess(ctx, req.doctype, {
      fields: columns,
      filters,
      or_filters: orFilters,
      limit_start: req.start,
      limit_page_length: req.pageLength,
      as_dict: false,
    }),
  );
  return { columns, rows: rows as unknown[][] };
}

/** The caller's filters (JSON text, a list or a dict) with the search's own conditions added. */
function combineFilters(raw: unknown, extra: unknown[]): unknown {
  let value: unknown = raw;
  if (typeof raw === 'string') {
    if (raw.trim() === '') value = undefined;
    else {
      try {
        value = JSON.parse(raw);
      } catch {
        throw new DataError(`filters is not valid JSON: ${raw.slice(0, 80)}`);
      }
    }
  }
  if (value === undefined || value === null) return extra;
  if (Array.isArray(value)) return [...value, ...extra];
  if (typeof value === 'object') {
    return [...Object.entries(value).map(([k, v]) => (Array.isArray(v) ? [k, ...v] : [k, '=', v])), ...extra];
  }
  throw new DataError('filters must be a list or a dict');
}

/**
 * `fw.desk.search.search_link` (every Link field's autocomplete): `[{value, label?, description}]`,
 * `label` being the title when the DocType has a title field, `description` the other search fields.
 */
async function searchLink({ ctx, args }: MethodCall): Promise<unknown[]> {
  const { columns, rows } = await searchRows(ctx, searchRequest(args));
  const hasTitle = columns.length > 1 && ctx.metas.get(String(args.doctype)).def.title_field === columns[1];
  return rows.map((row) => {
    const described = row
      .slice(hasTitle ? 2 : 1)
      .filter((v) => v !== null && v !== '')
      .map(String);
    return {
      value: row[0],
      ...(hasTitle ? { label: row[1] } : {}),
      description: [...new Set(described)].join(', '),
    };
  });
}

/** `fw.desk.search.search_widget`: the rows of a search, as arrays (or objects with `as_dict`). */
async function searchWidget({ ctx, args }: MethodCall): Promise<unknown[]> {
  const { columns, rows } = await searchRows(ctx, searchRequest(args));
  if (args.as_dict !== true) return rows;
  return rows.map((row) => Object.fromEntries(columns.map((c, i) => [c, row[i]])));
}

const SEARCH_PARAMS: readonly ParamSpec[] = [
  { name: 'doctype', type: 'string', required: true },
  { name: 'txt', type: 'string' },
  { name: 'query', type: 'string' },
  { name: 'filters', type: 'json' },
  { name: 'page_length', type: 'any' },
  { name: 'start', type: 'any' },
  { name: 'searchfield', type: 'string' },
  { name: 'reference_doctype', type: 'string' },
];

/** The desk's search: search_link (Link fields) and search_widget (search boxes). */
export function registerDeskSearchMethods(methods: MethodRegistry): void {
  methods.register('fw.desk.search.search_link', searchLink, { params: SEARCH_PARAMS });
  methods.register('fw.desk.search.search_widget', searchWidget, { params: [...SEARCH_PARAMS, { name: 'as_dict', type: 'bool' }] });
}
