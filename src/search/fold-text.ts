/**
 * Letters that Unicode does not decompose into a base letter and a mark, folded as people type
 * them without the keyboard for them.
 */
const LETTERS: Readonly<Record<string, string>> = {
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  đ: 'd',
  ð: 'd',
  ł: 'l',
  þ: 'th',
  ı: 'i',
  ħ: 'h',
  ŧ: 't',
};
const SPECIAL = new RegExp(`[${Object.keys(LETTERS).join('')}]`, 'g');
const MARKS = /\p{M}+/gu;
const NOT_WORD = /[^\p{L}\p{N}]+/gu;

/**
 * Text as the search index holds it and as queries are compared with it (docs/search.md
 * "Diacritics and words"): lower case, accents removed (`Café` → `cafe`), everything that is not
 * a letter or digit a space (`SINV-0001` → `sinv 0001`). Done here rather than by each engine's
 * tokenizer, so SQLite and PostgreSQL index exactly the same words.
 */
export function foldText(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFKD')
    .replace(MARKS, '')
    .replace(SPECIAL, (c) => LETTERS[c] ?? c)
    .replace(NOT_WORD, ' ')
    .trim();
}

/** The words of a query, folded; at most `max` of them (a longer query adds nothing but cost). */
export function queryWords(text: string, max = 12): string[] {
  const words = foldText(text)
    .split(' ')
    .filter((w) => w !== '');
  return [...new Set(words)].slice(0, max);
}
