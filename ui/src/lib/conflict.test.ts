import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { differences, editedFields, keepMine } from './conflict';

describe('conflict', () => {
  const base = { name: 'T-1', modified: '2026-01-01 10:00:00.000000', title: 'a', qty: 1, note: 'x' };
  const theirs = { ...base, modified: '2026-01-01 10:05:00.000000', modified_by: 'jane', qty: 2, note: 'theirs' };
  const mine = { ...base, title: 'mine', note: 'mine too' };

  test('finds the fields the user edited, never the stamps', () => {
    assert.deepEqual(editedFields({ ...mine, modified: 'later' }, base), ['title', 'note']);
  });

  test('"keep mine" takes their copy and puts only the user\'s edits on top, with their modified', () => {
    assert.deepEqual(keepMine(mine, base, theirs), { ...theirs, title: 'mine', note: 'mine too' });
  });

  test('lists the fields that differ between the two copies', () => {
    assert.deepEqual(differences(mine, theirs).sort(), ['note', 'qty', 'title']);
  });
});
