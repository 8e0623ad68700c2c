import type { Queryable } from '../storage/database.js';
import type { SearchEntry } from './search-entry.js';
import { SEARCH_TABLE, type Candidate, type CandidateQuery, type SearchStore } from './search-store.js';

const SETUP = [
  `create table if not exists "${SEARCH_TABLE}" (
     doctype varchar(140) not null, name varchar(140) not null, title text not null, content text not null,
     title_words text not null, content_words text not null, name_folded text not null, modified text not null,
     tsv tsvector generated always as (
       setweight(to_tsvector('simple', title_words), 'A') || setweight(to_tsvector('simple', content_words), 'B')) stored,
     primary key (doctype, name))`,
  `create index if not exists "${SEARCH_TABLE}_tsv" on "${SEARCH_TABLE}" using gin (tsv)`,
];
/** With pg_trgm, a name's substring is found through an index rather than a scan. */
const TRIGRAM_INDEX = `create index if not exists "${SEARCH_TABLE}_name_trgm" on "${SEARCH_TABLE}" using gin (name_folded gin_trgm_ops)`;

const run = (q: Queryable, sql: string, parameters: unknown[] = []) => q.run({ sql, parameters });
const all = <T>(q: Queryable, sql: string, parameters: unknown[] = []) => q.all<T>({ sql, parameters });

/** `%`, `_` and `\` taken literally in a LIKE pattern. */
function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * The index on PostgreSQL: a weighted tsvector (title A, content B) with a GIN index, ranked with
 * ts_rank_cd; names matched by substring, through a pg_trgm index when the extension is there.
 */
export function postgresSearchStore(hasTrigrams: boolean): SearchStore {
  return {
    async setup(q) {
      for (const sql of SETUP) await run(q, sql);
      if (hasTrigrams) await run(q, TRIGRAM_INDEX);
    },

    async upsert(q, e: SearchEntry) {
      await this.upsertMany(q, [e]);
    },

    async upsertMany(q, entries: readonly SearchEntry[]) {
      if (entries.length === 0) return;
      const values = entries.map((_, i) => `(${Array.from({ length: 8 }, (_, k) => `$${i * 8 + k + 1}`).join(', ')})`).join(', ');
      await run(
        q,
        `insert into "${SEARCH_TABLE}" (doctype, name, title, content, title_words, content_words, name_folded, modified)
         values ${values}
         on conflict (doctype, name) do update set title = excluded.title, content = excluded.content, title_words = excluded.title_words,
           content_words = excluded.content_words, name_folded = excluded.name_folded, modified = excluded.modified`,
        entries.flatMap((e) => [e.doctype, e.name, e.title, e.content, e.titleWords, e.contentWords, e.nameFolded, e.modified]),
      );
    },

    async remove(q, doctype, name) {
      await run(q, `delete from "${SEARCH_TABLE}" where doctype = $1 and name = $2`, [doctype, name]);
    },

    async removeDocType(q, doctype) {
      await run(q, `delete from "${SEARCH_TABLE}" where doctype = $1`, [doctype]);
    },

    async candidates(q, query: CandidateQuery) {
      const out: Candidate[] = [];
      const only = query.doctypes ? ' and doctype = any($3)' : '';
      const cols = 'doctype, name, title, content, modified';
      if (query.words.length > 0) {
        // Words are letters and digits only (fold-text.ts), so they are safe tsquery lexemes.
        const tsquery = query.words.map((w) => `${w}:*`).join(' & ');
        const rows = await all<Candidate>(
          q,
          `select ${cols}, ts_rank_cd(tsv, query, 1)::float8 as score from "${SEARCH_TABLE}", to_tsquery('simple', $1) query
           where tsv @@ query${only} order by score desc limit $2`,
          [tsquery, query.cap, ...(query.doctypes ? [query.doctypes] : [])],
        );
        out.push(...rows.map((r) => ({ ...r, score: Number(r.score) })));
      }
      if (query.nameText !== '') {
        const rows = await all<Candidate>(
          q,
          `select ${cols}, 0 as score from "${SEARCH_TABLE}" where name_folded like $1${only.replace('$3', '$4')}
           order by name_folded = $3 desc, modified desc limit $2`,
          [`%${likeLiteral(query.nameText)}%`, query.cap, query.nameText, ...(query.doctypes ? [query.doctypes] : [])],
        );
        out.push(...rows.map((r) => ({ ...r, score: 0 })));
      }
      return out;
    },
  };
}
