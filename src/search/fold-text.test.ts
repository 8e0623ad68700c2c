import { test } from 'node:test';
import assert from 'node:assert/strict';
import { foldText, queryWords } from './fold-text.js';

const cases: Array<[string, string]> = [
  ['Café Crème', 'cafe creme'],
  ['São Paulo', 'sao paulo'],
  ['Straße', 'strasse'],
  ['Łódź', 'lodz'],
  ['Ærøskøbing', 'aeroskobing'],
  ['SINV-0001', 'sinv 0001'],
  ['  a.b,c  ', 'a b c'],
  ['漢字 テスト', '漢字 テスト'],
  ['ﬁle', 'file'],
];

for (const [input, folded] of cases) {
  test(`${input} folds to ${folded}`, () => assert.equal(foldText(input), folded));
}

test('query words are folded, unique and capped', () => {
  assert.deepEqual(queryWords('Crème  creme CRÈME sinv-0001'), ['creme', 'sinv', '0001']);
  assert.equal(queryWords(Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ')).length, 12);
  assert.deepEqual(queryWords(' -- "" '), []);
});
