import { foldText } from './fold-text.js';
import type { Candidate } from './search-store.js';

/** A candidate with what the ranking compares. */
export interface RankedCandidate extends Candidate {
  readonly exactName: boolean;
  readonly titleHit: boolean;
  readonly priority: number;
}

/**
 * The one ranking of both engines (docs/search.md "Ranking"): a document whose name is the query
 * first; then documents whose title holds every word; then the engine's score; then the DocType's
 * place in Global Search Settings; then the most recently modified; DocType and name last, so
 * equal documents always come in the same order. Candidates found twice (by words and by name)
 * are kept once, with the better score.
 */
export function rankCandidates(
  candidates: readonly Candidate[],
  words: readonly string[],
  nameText: string,
  priorityOf: (doctype: string) => number,
): RankedCandidate[] {
  const unique = new Map<string, Candidate>();
  for (const c of candidates) {
    const key = `${c.doctype}\u0000${c.name}`;
    const seen = unique.get(key);
    if (!seen || c.score > seen.score) unique.set(key, c);
  }
  const ranked = [...unique.values()].map(
    (c): RankedCandidate => ({
      ...c,
      exactName: nameText !== '' && c.name.toLowerCase() === nameText,
      titleHit: words.length > 0 && titleHolds(c.title, words),
      priority: priorityOf(c.doctype),
    }),
  );
  return ranked.sort(compareRanked);
}

function titleHolds(title: string, words: readonly string[]): boolean {
  const titleWords = foldText(title).split(' ');
  return words.every((w) => titleWords.some((t) => t.startsWith(w)));
}

/** Scores are compared to a few significant digits: engines' floating point must not reorder equals. */
function roundScore(score: number): number {
  return Number(score.toPrecision(6));
}

export function compareRanked(a: RankedCandidate, b: RankedCandidate): number {
  return (
    Number(b.exactName) - Number(a.exactName) ||
    Number(b.titleHit) - Number(a.titleHit) ||
    roundScore(b.score) - roundScore(a.score) ||
    a.priority - b.priority ||
    (a.modified < b.modified ? 1 : a.modified > b.modified ? -1 : 0) ||
    (a.doctype < b.doctype ? -1 : a.doctype > b.doctype ? 1 : 0) ||
    (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)
  );
}
