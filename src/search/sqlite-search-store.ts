import type { Queryable } from '../storage/database.js';
import type { SearchEntry } from './search-entry.js';
import { SEARCH_TABLE, type Candidate, type CandidateQuery, type SearchStore } from './search-store.js';

const FTS_TABLE = `${SEARCH_TABLE}_fts`;
/** Names by trigram (FTS5's trigram tokenizer): a part of a name is found without scanning every row. */
const NAME_TABLE = `${SEARCH_TABLE}_names`;
/** bm25 weights of the FTS columns: a word in the title counts ten times one in the content. */
const BM25 = `bm25("${FTS_TABLE}", 10.0, 1.0)`;

const SETUP = [
  `create table if not exists "${SEARCH_TABLE}" (
     id integer primary key, doctype text not null, name text not null, title text not null, content text not null,
     name_folded text not null, modified text not null, unique (doctype, name))`,
  // Contentless: the words live only in the index; rows are deleted by rowid (SQLite 3.43+).
  `create virtual table if not exists "${FTS_TABLE}" using fts5(title, content, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2')`,
  `create virtual table if not exists "${NAME_TABLE}" using fts5(name_folded, content='', contentless_delete=1, tokenize='trigram')`,
];

const run = (q: Queryable, sql: string, parameters: unknown[] = []) => q.run({ sql, parameters });
const all = <T>(q: Queryable, sql: string, parameters: unknown[] = []) => q.all<T>({ sql, parameters });

/** The index on SQLite: a row table and an FTS5 table sharing rowids, ranked with bm25. */
export const sqliteSearchStore: SearchStore = {
  async setup(q) {
    for (const sql of SETUP) await run(q, sql);
  },

  async upsert(q, e: SearchEntry) {
    const [row] = await all<{ id: number }>(q, `select id from "${SEARCH_TABLE}" where doctype = ? and name = ?`, [e.doctype, e.name]);
    let id: number;
    if (row) {
      id = row.id;
      await run(q, `update "${SEARCH_TABLE}" set title = ?, content = ?, name_folded = ?, modified = ? where id = ?`, [
        e.title,
        e.content,
        e.nameFolded,
        e.modified,
        id,
      ]);
      await run(q, `delete from "${FTS_TABLE}" where rowid = ?`, [id]);
      await run(q, `delete from "${NAME_TABLE}" where rowid = ?`, [id]);
    } else {
      const [added] = await all<{ id: number }>(
        q,
        `insert into "${SEARCH_TABLE}" (doctype, name, title, content, name_folded, modified) values (?, ?, ?, ?, ?, ?) returning id`,
        [e.doctype, e.name, e.title, e.content, e.nameFolded, e.modified],
      );
      id = added.id;
    }
    await run(q, `insert into "${FTS_TABLE}" (rowid, title, content) values (?, ?, ?)`, [id, e.titleWords, e.contentWords]);
    await run(q, `insert into "${NAME_TABLE}" (rowid, name_folded) values (?, ?)`, [id, e.nameFolded]);
  },

  async upsertMany(q, entries) {
    // In-process statements cost little: one at a time, as upsert does.
    for (const entry of entries) await sqliteSearchStore.upsert(q, entry);
  },

  async remove(q, doctype, name) {
    const [row] = await all<{ id: number }>(q, `select id from "${SEARCH_TABLE}" where doctype = ? and name = ?`, [doctype, name]);
    if (!row) return;
    await run(q, `delete from "${FTS_TABLE}" where rowid = ?`, [row.id]);
    await run(q, `delete from "${NAME_TABLE}" where rowid = ?`, [row.id]);
    await run(q, `delete from "${SEARCH_TABLE}" where id = ?`, [row.id]);
  },

  async removeDocType(q, doctype) {
    await run(q, `delete from "${FTS_TABLE}" where rowid in (select id from "${SEARCH_TABLE}" where doctype = ?)`, [doctype]);
    await run(q, `delete from "${NAME_TABLE}" where rowid in (select id from "${SEARCH_TABLE}" where doctype = ?)`, [doctype]);
    await run(q, `delete from "${SEARCH_TABLE}" where doctype = ?`, [doctype]);
  },

  async candidates(q, query: CandidateQuery) {
    const out: Candidate[] = [];
    const only = query.doctypes ? ` and g.doctype in (${query.doctypes.map(() => '?').join(', ')})` : '';
    const onlyParams = query.doctypes ?? [];
    if (query.words.length > 0) {
      // Words are letters and digits only (fold-text.ts): quoting them is all FTS5 syntax needs.
      const match = query.words.map((w) => `"${w}"*`).join(' AND ');
      out.push(
        ...(await all<Candidate>(
          q,
          `select g.doctype, g.name, g.title, g.content, g.modified, -${BM25} as score
           from "${FTS_TABLE}" join "${SEARCH_TABLE}" g on g.id = "${FTS_TABLE}".rowid
           where "${FTS_TABLE}" match ?${only} order by ${BM25} limit ?`,
          [match, ...onlyParams, query.cap],
        )),
      );
    }
    if (query.nameText !== '') {
      // The trigram index narrows to names holding every trigram of the text; instr keeps exactly
      // those holding the text itself (the same test PostgreSQL's LIKE makes).
      const phrase = `"${query.nameText.replace(/"/g, '""')}"`;
      out.push(
        ...(await all<Candidate>(
          q,
          `select g.doctype, g.name, g.title, g.content, g.modified, 0 as score
           from "${NAME_TABLE}" join "${SEARCH_TABLE}" g on g.id = "${NAME_TABLE}".rowid
           where "${NAME_TABLE}" match ? and instr(g.name_folded, ?) > 0${only} order by g.name_folded = ? desc, g.modified desc limit ?`,
          [phrase, query.nameText, ...onlyParams, query.nameText, query.cap],
        )),
      );
    }
    return out;
  },
};
