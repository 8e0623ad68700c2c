import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Doc } from '../meta/doctype.js';
import { hideUnreadableFields } from './hide-unreadable-fields.js';
import { ADMIN, fakeContext, NOTE, userWith } from './permission-fixtures.js';

const { metaOf } = fakeContext(ADMIN);

const stored: Doc = {
  name: 'n1',
  owner: 'u@x.com',
  title: 'Q3',
  salary: 100,
  grade: 'A',
  lines: [{ name: 'r1', company: 'Acme', cost: 5 }],
};

describe('hideUnreadableFields', () => {
  const cases: Array<[string, ReturnType<typeof userWith>, string[], string[]]> = [
    ['a role without level-1 read loses the level-1 fields, child rows included', userWith('u', 'Sales'), ['title', 'lines'], ['salary', 'grade']],
    ['a role reading level 1 keeps them', userWith('a', 'Auditor'), ['title', 'salary', 'grade'], []],
    ['write at level 1 implies read there', userWith('m', 'Manager'), ['salary', 'grade'], []],
    ['the Administrator keeps everything', ADMIN, ['title', 'salary', 'grade'], []],
  ];
  for (const [title, who, kept, removed] of cases) {
    test(title, () => {
      const out = hideUnreadableFields(who, NOTE, stored, metaOf);
      for (const key of kept) assert.ok(key in out, `${key} kept`);
      for (const key of removed) assert.ok(!(key in out), `${key} removed`);
    });
  }

  test('child rows lose the fields of levels the parent does not grant, and the input is left as it was', () => {
    const out = hideUnreadableFields(userWith('u', 'Sales'), NOTE, stored, metaOf);
    assert.deepEqual(out.lines, [{ name: 'r1', company: 'Acme' }]);
    assert.equal((stored.lines as Doc[])[0].cost, 5);
    assert.equal(stored.salary, 100);
  });
});
