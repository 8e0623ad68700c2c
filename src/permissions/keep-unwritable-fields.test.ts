import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Doc } from '../meta/doctype.js';
import { keepUnwritableFields } from './keep-unwritable-fields.js';
import { ADMIN, fakeContext, NOTE, userWith } from './permission-fixtures.js';

const { metaOf } = fakeContext(ADMIN);
const before: Doc = { name: 'n1', title: 'Q3', salary: 100, grade: 'A', lines: [{ name: 'r1', company: 'Acme', cost: 5 }] };

function edited(): Doc {
  return {
    name: 'n1',
    title: 'Q4',
    salary: 999,
    grade: 'Z',
    lines: [
      { name: 'r1', company: 'Beta', cost: 50 },
      { company: 'Gamma', cost: 7 },
    ],
  };
}

describe('keepUnwritableFields', () => {
  test('an update by a role without level-1 write keeps the stored level-1 values, child rows included', () => {
    const doc = edited();
    keepUnwritableFields(userWith('u', 'Sales'), NOTE, doc, before, metaOf);
    assert.deepEqual(doc, {
      name: 'n1',
      title: 'Q4',
      salary: 100,
      grade: 'A',
      lines: [{ name: 'r1', company: 'Beta', cost: 5 }, { company: 'Gamma' }],
    });
  });

  test('an insert drops the level-1 values so that defaults apply', () => {
    const doc = edited();
    keepUnwritableFields(userWith('u', 'Sales'), NOTE, doc, undefined, metaOf);
    assert.ok(!('salary' in doc) && !('grade' in doc));
    assert.deepEqual(doc.lines, [{ name: 'r1', company: 'Beta' }, { company: 'Gamma' }]);
  });

  const writers: Array<[string, ReturnType<typeof userWith>, boolean]> = [
    ['a role writing level 1', userWith('m', 'Manager'), true],
    ['a role only reading level 1', userWith('a', 'Auditor'), false],
    ['the Administrator', ADMIN, true],
  ];
  for (const [who, principal, changes] of writers) {
    test(`${who} ${changes ? 'changes' : 'cannot change'} level-1 fields`, () => {
      const doc = edited();
      keepUnwritableFields(principal, NOTE, doc, before, metaOf);
      assert.equal(doc.salary, changes ? 999 : 100);
      assert.equal(doc.title, 'Q4');
    });
  }
});
