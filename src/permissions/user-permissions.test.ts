import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Doc } from '../meta/doctype.js';
import { allowedValues, satisfiesUserPermissions, userPermissionCondition, type UserPermissionRule } from './user-permissions.js';
import { ADMIN, COMPANY, fakeContext, NOTE } from './permission-fixtures.js';

const { metaOf } = fakeContext(ADMIN);
const acme: UserPermissionRule = { allow: 'Company', forValue: 'Acme' };
const beta: UserPermissionRule = { allow: 'Company', forValue: 'Beta' };
const gammaForNotes: UserPermissionRule = { allow: 'Company', forValue: 'Gamma', applicableFor: 'Note' };
const deltaForOthers: UserPermissionRule = { allow: 'Company', forValue: 'Delta', applicableFor: 'Invoice' };
const someone: UserPermissionRule = { allow: 'User', forValue: 'x@x.com' };

describe('allowedValues', () => {
  test('collects the rules for a DocType that apply everywhere or to the DocType worked on', () => {
    const rules = [acme, beta, gammaForNotes, deltaForOthers, someone];
    assert.deepEqual(allowedValues(rules, 'Company', 'Note'), ['Acme', 'Beta', 'Gamma']);
    assert.deepEqual(allowedValues(rules, 'Company', 'Invoice'), ['Acme', 'Beta', 'Delta']);
    assert.deepEqual(allowedValues([deltaForOthers], 'Company', 'Note'), []);
  });
});

describe('userPermissionCondition', () => {
  test('no rules, or rules on DocTypes no Link reaches, restrict nothing', () => {
    assert.equal(userPermissionCondition(NOTE, []), undefined);
    assert.equal(userPermissionCondition(NOTE, [deltaForOthers]), undefined);
  });

  test('a restricted Link must be empty or allowed', () => {
    assert.deepEqual(userPermissionCondition(NOTE, [acme, beta]), {
      or: [
        { field: { field: 'company' }, op: 'is', value: 'not set' },
        { field: { field: 'company' }, op: 'in', value: ['Acme', 'Beta'] },
      ],
    });
  });

  test('a Link marked ignore_user_permissions is left alone', () => {
    assert.equal(userPermissionCondition(NOTE, [someone]), undefined);
  });

  test('the restricted DocType itself is limited to the allowed names', () => {
    assert.deepEqual(userPermissionCondition(COMPANY, [acme, deltaForOthers]), { field: { field: 'name' }, op: 'in', value: ['Acme'] });
  });
});

describe('satisfiesUserPermissions', () => {
  const cases: Array<[string, Doc, UserPermissionRule[], boolean]> = [
    ['no rules allow anything', { name: 'n', company: 'Zed' }, [], true],
    ['an allowed Link value passes', { name: 'n', company: 'Acme' }, [acme], true],
    ['an empty Link passes', { name: 'n', company: null }, [acme], true],
    ['another Link value fails', { name: 'n', company: 'Zed' }, [acme], false],
    ['a rule for another DocType does not apply', { name: 'n', company: 'Zed' }, [deltaForOthers], true],
    ['an ignored Link is not checked', { name: 'n', reviewer: 'y@x.com' }, [someone], true],
    ['a child row with a Link value outside the rules fails', { name: 'n', lines: [{ company: 'Zed' }] }, [acme], false],
    ['a child row with an allowed value passes', { name: 'n', lines: [{ company: 'Acme' }] }, [acme], true],
  ];
  for (const [title, doc, rules, expected] of cases) {
    test(title, () => assert.equal(satisfiesUserPermissions(NOTE, doc, rules, metaOf), expected));
  }

  test('a document of the restricted DocType passes only under an allowed name (a new one has none)', () => {
    assert.equal(satisfiesUserPermissions(COMPANY, { name: 'Acme' }, [acme], metaOf), true);
    assert.equal(satisfiesUserPermissions(COMPANY, { name: 'Zed' }, [acme], metaOf), false);
    assert.equal(satisfiesUserPermissions(COMPANY, {}, [acme], metaOf), false);
  });
});
