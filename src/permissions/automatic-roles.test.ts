import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { makePrincipal } from '../auth/principal.js';
import type { DocPerm, PermissionType } from '../meta/doctype.js';
import { holdsExplicitRoleFor } from './automatic-roles.js';
import { fullRow, metaOf, userWith } from './permission-fixtures.js';

const todoLike = metaOf({
  name: 'Task',
  fields: [{ fieldname: 'title', fieldtype: 'Data' }],
  permissions: [fullRow('All'), { ...fullRow('System Manager'), delete: 0 }, { role: 'Lead', read: 1, permlevel: 1 }] as DocPerm[],
});

describe('holdsExplicitRoleFor', () => {
  const cases: Array<[string, ReturnType<typeof userWith>, PermissionType, boolean]> = [
    ['a user with only automatic roles holds none', userWith('u@x.com'), 'read', false],
    ['a System Manager holds one for read', userWith('m@x.com', 'System Manager'), 'read', true],
    ['a System Manager holds none for a right their row lacks', userWith('m@x.com', 'System Manager'), 'delete', false],
    ['a role granting only at permlevel 1 does not count', userWith('l@x.com', 'Lead'), 'read', false],
    ['a Website User holds none', makePrincipal({ user: 'w@x.com', roles: [], userType: 'Website User' }), 'read', false],
  ];
  for (const [title, who, right, expected] of cases) {
    test(title, () => assert.equal(holdsExplicitRoleFor(who, todoLike, right), expected));
  }
});
