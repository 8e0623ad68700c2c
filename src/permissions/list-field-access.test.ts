import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Principal } from '../auth/principal.js';
import type { Meta } from '../meta/meta.js';
import { listFieldAccess } from './list-field-access.js';
import { ADMIN, COMPANY, NOTE, NOTE_LINE, userWith } from './permission-fixtures.js';

describe('listFieldAccess', () => {
  const cases: Array<[string, Principal, Meta, string, boolean]> = [
    ['a level-0 field is readable', userWith('u', 'Sales'), NOTE, 'title', true],
    ['a standard column is readable', userWith('u', 'Sales'), NOTE, 'owner', true],
    ['a level-1 field is not, without a row at level 1', userWith('u', 'Sales'), NOTE, 'salary', false],
    ['a level-1 field is, with read at level 1', userWith('a', 'Auditor'), NOTE, 'salary', true],
    ['a child field follows the parent levels', userWith('u', 'Sales'), NOTE_LINE, 'cost', false],
    ['a child field at level 0 is readable', userWith('u', 'Sales'), NOTE_LINE, 'company', true],
    ['a linked field needs select on the linked DocType', userWith('a', 'Auditor'), COMPANY, 'title', false],
    ['a linked field is readable with read there', userWith('u', 'Sales'), COMPANY, 'title', true],
    ['select alone shows search fields', userWith('v', 'Viewer'), NOTE, 'title', true],
    ['select alone shows standard columns', userWith('v', 'Viewer'), NOTE, 'modified', true],
    ['select alone hides other fields', userWith('v', 'Viewer'), NOTE, 'company', false],
    ['the Administrator reads everything', ADMIN, NOTE, 'salary', true],
  ];
  for (const [title, who, meta, field, expected] of cases) {
    test(title, () => assert.equal(listFieldAccess(who, NOTE, NOTE)(meta, field), expected));
  }

  test('a child DocType listed on its own follows the parent it is listed under', () => {
    const access = listFieldAccess(userWith('a', 'Auditor'), NOTE, NOTE_LINE);
    assert.equal(access(NOTE_LINE, 'cost'), true);
    assert.equal(listFieldAccess(userWith('u', 'Sales'), NOTE, NOTE_LINE)(NOTE_LINE, 'cost'), false);
  });
});
