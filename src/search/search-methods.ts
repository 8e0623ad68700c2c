import { permissionContext } from '../documents/unit-permissions.js';
import { DataError } from '../errors/index.js';
import { mayUseDocType } from '../permissions/document-access.js';
import { permissionDenied } from '../permissions/permission-denied.js';
import type { MethodCall, MethodRegistry, ParamSpec } from '../rpc/method-registry.js';
import { GLOBAL_SEARCH_SETTINGS } from './doctypes/index.js';
import { MAX_LIMIT, searchDocuments, type SearchRequest } from './global-search.js';
import { queueRebuild, type RebuildParts } from './rebuild-index.js';
import type { SearchStore } from './search-store.js';

const MAX_TEXT = 500;

function whole(value: unknown, name: string, fallback: number, min: number, max: number): number {
  if (value === undefined || value === null || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) throw new DataError(`${name} must be a whole number from ${min} to ${max}`);
  return n;
}

function searchRequest(args: Readonly<Record<string, unknown>>): SearchRequest {
  const text = typeof args.text === 'string' ? args.text : '';
  if (text.length > MAX_TEXT) throw new DataError(`text must be at most ${MAX_TEXT} characters`);
  const doctype = typeof args.doctype === 'string' && args.doctype !== '' ? args.doctype : undefined;
  return { text, start: whole(args.start, 'start', 0, 0, 100_000), limit: whole(args.limit, 'limit', 20, 1, MAX_LIMIT), ...(doctype ? { doctype } : {}) };
}

const PARAMS: readonly ParamSpec[] = [
  { name: 'text', type: 'string', required: true },
  { name: 'start', type: 'any' },
  { name: 'limit', type: 'any' },
];

/**
 * The reference's global search methods (docs/search.md "Methods"): `search` for the desk and
 * `web_search` for anyone (Guest too), both answering only documents the caller may read, and
 * `rebuild_for_doctype` to queue a rebuild.
 */
export function registerSearchMethods(methods: MethodRegistry, store: SearchStore, rebuild: RebuildParts): void {
  methods.register(
    'fw.utils.global_search.search',
    async ({ ctx, args }: MethodCall) => {
      const found = await searchDocuments(ctx, store, searchRequest(args));
      return found.map((c) => ({ doctype: c.doctype, name: c.name, title: c.title, content: c.content, rank: Number(c.score.toPrecision(6)) }));
    },
    {
      params: [...PARAMS, { name: 'doctype', type: 'string' }],
      readOnly: true,
      description: 'Searches every indexed DocType for documents the caller may read, best first.',
    },
  );
  methods.register(
    'fw.utils.global_search.web_search',
    async ({ ctx, args }: MethodCall) => {
      const found = await searchDocuments(ctx, store, searchRequest({ ...args, doctype: undefined }));
      // fw serves no web pages of its own: a document has no route.
      return found.map((c) => ({ doctype: c.doctype, name: c.name, content: c.content, title: c.title, route: null }));
    },
    {
      params: [...PARAMS, { name: 'scope', type: 'string' }],
      allowGuest: true,
      readOnly: true,
      description: 'Searches for documents the caller (Guest too) may read, best first.',
    },
  );
  methods.register(
    'fw.utils.global_search.rebuild_for_doctype',
    async ({ ctx, args }: MethodCall) => {
      const meta = ctx.metas.get(GLOBAL_SEARCH_SETTINGS);
      if (!(await mayUseDocType(permissionContext(ctx), meta, 'write'))) throw permissionDenied(ctx.principal, meta, 'write');
      const doctype = String(args.doctype);
      ctx.metas.get(doctype);
      return { job: await queueRebuild(rebuild.jobs, doctype, ctx) };
    },
    {
      params: [{ name: 'doctype', type: 'string', required: true }],
      methods: ['POST'],
      description: 'Queues a rebuild of the global search index of one DocType.',
    },
  );
}
