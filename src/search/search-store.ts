import type { Queryable } from '../storage/database.js';
import type { SearchEntry } from './search-entry.js';

/** One document the engine found, before ranking and permission filtering. */
export interface Candidate {
  readonly doctype: string;
  readonly name: string;
  readonly title: string;
  readonly content: string;
  readonly modified: string;
  /** The engine's relevance (higher is better); 0 for a document found by its name alone. */
  readonly score: number;
}

/** What a search asks the engine for. */
export interface CandidateQuery {
  /** Folded words, each matched as a word prefix; all must match. */
  readonly words: readonly string[];
  /** The query lower-cased, matched inside names (`0001` finds SINV-0001); empty for none. */
  readonly nameText: string;
  /** Only these DocTypes, when given. */
  readonly doctypes: readonly string[] | undefined;
  /** At most this many of each kind of match. */
  readonly cap: number;
}

/**
 * The global search index on one engine (docs/search.md "Engines"): the only place that knows
 * SQLite's FTS5 from PostgreSQL's tsvector. Every method runs on the connection it is given.
 */
export interface SearchStore {
  /** Creates the tables and indexes if missing (idempotent). */
  setup(q: Queryable): Promise<void>;
  upsert(q: Queryable, entry: SearchEntry): Promise<void>;
  /** Several at once (the rebuild's pages): one statement where the engine gains by it. */
  upsertMany(q: Queryable, entries: readonly SearchEntry[]): Promise<void>;
  remove(q: Queryable, doctype: string, name: string): Promise<void>;
  removeDocType(q: Queryable, doctype: string): Promise<void>;
  /** Documents whose words match, best engine score first, and documents whose name holds `nameText`. */
  candidates(q: Queryable, query: CandidateQuery): Promise<Candidate[]>;
}

/** The index table on both engines; `__` keeps it out of any DocType's reach. */
export const SEARCH_TABLE = '__global_search';
