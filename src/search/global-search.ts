import { listQueryAfterAccess } from '../documents/lists/list-access.js';
import type { DocContext } from '../documents/doc-context.js';
import { listDocuments } from '../documents/lists/list-documents.js';
import { PermissionError } from '../errors/index.js';
import type { Queryable } from '../storage/database.js';
import type { Dialect } from '../storage/dialect.js';
import { GLOBAL_SEARCH_DOCTYPE, GLOBAL_SEARCH_SETTINGS } from './doctypes/index.js';
import { queryWords } from './fold-text.js';
import { rankCandidates, type RankedCandidate } from './search-ranking.js';
import type { SearchStore } from './search-store.js';

/**
 * How many matches of each kind (by words, by name) are ranked and checked for permission at most.
 * A search starts with a few times the page it wants and asks for more only when the caller may
 * not read enough of them.
 */
const CANDIDATE_CAP = 1000;
const FIRST_CANDIDATES = 60;
/** Names are matched inside from this many characters on (fewer would match nearly every name). */
const MIN_NAME_TEXT = 3;
/** Names per permission query (a list filter takes at most 1,000 values). */
const NAMES_PER_CHECK = 500;
/** At most this many results per call. */
export const MAX_LIMIT = 100;

/** What search asks for (the reference's `search(text, start, limit, doctype)`). */
export interface SearchRequest {
  readonly text: string;
  readonly start: number;
  readonly limit: number;
  /** Only this DocType, when given. */
  readonly doctype?: string;
}

/**
 * The documents matching `text` that the caller may read, ranked (docs/search.md "Ranking"). The
 * engine proposes candidates; each DocType's candidates then go through the same list query a list
 * view runs (role, if_owner, User Permission, permission hook and share rules), so a document the
 * caller may not read is dropped before paging: it is never shown nor counted.
 */
export async function searchDocuments(ctx: DocContext, store: SearchStore, request: SearchRequest): Promise<RankedCandidate[]> {
  const words = queryWords(request.text);
  const trimmed = request.text.trim().toLowerCase();
  const nameText = trimmed.length >= MIN_NAME_TEXT ? trimmed.slice(0, 140) : '';
  if (words.length === 0 && nameText === '') return [];
  // An unknown DocType is an error (DoesNotExistError), not an empty answer.
  if (request.doctype !== undefined) ctx.metas.get(request.doctype);
  const allowed = await allowedDocTypes(ctx.q, ctx.dialect);
  const doctypes = request.doctype ? [request.doctype] : allowed.length > 0 ? allowed : undefined;
  const priority = new Map(allowed.map((d, i) => [d, i]));
  const wanted = request.start + request.limit;
  for (let cap = Math.max(FIRST_CANDIDATES, wanted * 3); ; cap = Math.min(cap * 4, CANDIDATE_CAP)) {
    const candidates = await store.candidates(ctx.q, { words, nameText, doctypes, cap });
    const ranked = rankCandidates(candidates, words, nameText, (d) => priority.get(d) ?? allowed.length);
    const readable = await readableNames(ctx, ranked);
    const permitted = ranked.filter((c) => readable.has(`${c.doctype}\u0000${c.name}`));
    // Enough readable results, or every match seen (fewer than asked for came back), or the cap reached.
    if (permitted.length >= wanted || candidates.length < cap || cap >= CANDIDATE_CAP) return permitted.slice(request.start, wanted);
  }
}

/** Global Search Settings' DocTypes, in their order. */
async function allowedDocTypes(q: Queryable, dialect: Dialect): Promise<string[]> {
  const rows = await q.all<{ document_type: string | null }>(
    dialect.builder
      .selectFrom(`tab${GLOBAL_SEARCH_DOCTYPE}`)
      .select('document_type')
      .where('parent', '=', GLOBAL_SEARCH_SETTINGS)
      .where('parenttype', '=', GLOBAL_SEARCH_SETTINGS)
      .orderBy('idx')
      .compile(),
  );
  return rows.map((r) => r.document_type).filter((d): d is string => typeof d === 'string' && d !== '');
}

/** `doctype\0name` of the candidates the caller may read, asked once per DocType through the list query. */
async function readableNames(ctx: DocContext, candidates: readonly RankedCandidate[]): Promise<Set<string>> {
  const byDocType = new Map<string, string[]>();
  for (const c of candidates) {
    if (!ctx.metas.has(c.doctype)) continue;
    const names = byDocType.get(c.doctype) ?? [];
    names.push(c.name);
    byDocType.set(c.doctype, names);
  }
  const readable = new Set<string>();
  for (const [doctype, names] of byDocType) {
    try {
      for (let i = 0; i < names.length; i += NAMES_PER_CHECK) {
        const filters = [['name', 'in', names.slice(i, i + NAMES_PER_CHECK)]];
        const { rows } = await listDocuments(ctx, await listQueryAfterAccess(ctx, doctype, { fields: ['name'], filters, limit_page_length: 0 }));
        for (const row of rows as Array<{ name: string }>) readable.add(`${doctype}\u0000${row.name}`);
      }
    } catch (err) {
      // A DocType the caller may not read at all: none of its documents.
      if (!(err instanceof PermissionError)) throw err;
    }
  }
  return readable;
}
