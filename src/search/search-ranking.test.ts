import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rankCandidates } from './search-ranking.js';
import type { Candidate } from './search-store.js';

const c = (name: string, over: Partial<Candidate> = {}): Candidate => ({
  doctype: 'Note',
  name,
  title: name,
  content: '',
  modified: '2025-01-01',
  score: 0,
  ...over,
});
const order = (list: Candidate[], words: string[], nameText: string, priority: (d: string) => number = () => 0) =>
  rankCandidates(list, words, nameText, priority).map((r) => `${r.doctype}/${r.name}`);

test('an exact name beats a title hit, which beats a higher score', () => {
  const list = [c('a', { title: 'other', score: 9 }), c('b', { title: 'Crème brûlée', score: 1 }), c('creme', { title: 'x', score: 0 })];
  assert.deepEqual(order(list, ['creme'], 'creme'), ['Note/creme', 'Note/b', 'Note/a']);
});

test('then the engine score, then the settings priority, then the newest, then DocType and name', () => {
  const list = [
    c('old', { title: 't', score: 2, modified: '2024-01-01' }),
    c('new', { title: 't', score: 2, modified: '2025-06-01' }),
    c('best', { title: 't', score: 5 }),
    c('p', { doctype: 'Task', title: 't', score: 2, modified: '2024-01-01' }),
    c('z', { title: 't', score: 1 }),
    c('y', { title: 't', score: 1 }),
  ];
  assert.deepEqual(
    order(list, ['word'], '', (d) => (d === 'Task' ? 0 : 1)),
    ['Note/best', 'Task/p', 'Note/new', 'Note/old', 'Note/y', 'Note/z'],
  );
});

test('a document found by words and by name is listed once, with its better score', () => {
  const ranked = rankCandidates([c('x', { score: 0 }), c('x', { score: 3 })], ['w'], 'x', () => 0);
  assert.equal(ranked.length, 1);
  assert.equal(ranked[0].score, 3);
});

test('scores equal to six digits are equal: the next step decides', () => {
  assert.deepEqual(order([c('a', { title: 't', score: 1.0000001, modified: '2020' }), c('b', { title: 't', score: 1.0000002, modified: '2021' })], ['w'], ''), [
    'Note/b',
    'Note/a',
  ]);
  assert.deepEqual(order([c('a', { title: 't', score: 1.0000002, modified: '2021' }), c('b', { title: 't', score: 1.0000001, modified: '2020' })], ['w'], ''), [
    'Note/a',
    'Note/b',
  ]);
});
