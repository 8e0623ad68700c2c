import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Meta } from '../meta/meta.js';
import { createFieldTypeRegistry } from '../meta/field-types/index.js';
import type { DocPerm } from '../meta/doctype.js';
import { GUEST, makePrincipal } from '../auth/principal.js';
import { hasPermission, permittedLevels, roleGrant, type Actor } from './role-permissions.js';

const registry = createFieldTypeRegistry();
function meta(permissions: DocPerm[], submittable = false): Meta {
  return new Meta({ name: 'Note', is_submittable: submittable ? 1 : 0, fields: [{ fieldname: 'title', fieldtype: 'Data' }], permissions }, registry);
}
function actor(user: string, ...roles: string[]): Actor {
  return { user, roles: new Set(['All', 'Guest', ...roles]), isAdministrator: false };
}
const admin: Actor = { user: 'Administrator', roles: new Set(['Administrator']), isAdministrator: true };

describe('role permissions', () => {
  const cases: Array<[string, DocPerm[], Actor, Parameters<typeof roleGrant>[2], string]> = [
    ['a role without rows gets nothing', [{ role: 'Sales', read: 1 }], actor('u@x.com', 'Other'), 'read', 'none'],
    ['a plain row grants everything', [{ role: 'Sales', read: 1 }], actor('u@x.com', 'Sales'), 'read', 'all'],
    ['read implies select', [{ role: 'Sales', read: 1 }], actor('u@x.com', 'Sales'), 'select', 'all'],
    ['an if_owner row grants own documents', [{ role: 'Sales', read: 1, if_owner: 1 }], actor('u@x.com', 'Sales'), 'read', 'own'],
    [
      'a plain row wins over an if_owner row',
      [
        { role: 'Sales', read: 1, if_owner: 1 },
        { role: 'Boss', read: 1 },
      ],
      actor('u@x.com', 'Sales', 'Boss'),
      'read',
      'all',
    ],
    ['create is never restricted by if_owner', [{ role: 'Sales', create: 1, if_owner: 1 }], actor('u@x.com', 'Sales'), 'create', 'all'],
    ['rows above permlevel 0 grant no document rights', [{ role: 'Sales', read: 1, permlevel: 1 }], actor('u@x.com', 'Sales'), 'read', 'none'],
    ['submit needs a submittable DocType', [{ role: 'Sales', submit: 1 }], actor('u@x.com', 'Sales'), 'submit', 'none'],
    ['the Administrator holds every right', [], admin, 'delete', 'all'],
    ['Guest gets what rows for Guest grant', [{ role: 'Guest', read: 1 }], GUEST, 'read', 'all'],
    ['Guest gets nothing from rows for All', [{ role: 'All', read: 1 }], GUEST, 'read', 'none'],
    ['every logged-in user gets what rows for All grant', [{ role: 'All', read: 1 }], makePrincipal({ user: 'u@x.com', roles: [] }), 'read', 'all'],
    ['a Website User holds All too', [{ role: 'All', create: 1 }], makePrincipal({ user: 'w@x.com', roles: [], userType: 'Website User' }), 'create', 'all'],
    [
      'a Website User does not hold Desk User',
      [{ role: 'Desk User', read: 1 }],
      makePrincipal({ user: 'w@x.com', roles: [], userType: 'Website User' }),
      'read',
      'none',
    ],
    ['logged-in users hold Guest as well', [{ role: 'Guest', read: 1 }], makePrincipal({ user: 'u@x.com', roles: [] }), 'read', 'all'],
  ];
  for (const [title, perms, who, right, expected] of cases) {
    test(title, () => assert.equal(roleGrant(who, meta(perms), right), expected));
  }

  test('an if_owner grant allows only documents the user owns, compared exactly (another case is another user)', () => {
    const m = meta([{ role: 'Sales', write: 1, if_owner: 1 }]);
    const who = actor('U@x.com', 'Sales');
    assert.equal(hasPermission(who, m, 'write', { owner: 'U@x.com' }), true);
    assert.equal(hasPermission(who, m, 'write', { owner: 'u@X.com' }), false);
    assert.equal(hasPermission(who, m, 'write', { owner: 'someone@x.com' }), false);
  });

  test('field levels follow the rows that grant read or write at that level', () => {
    const m = meta([
      { role: 'Sales', read: 1 },
      { role: 'Sales', read: 1, permlevel: 1 },
      { role: 'Boss', write: 1, permlevel: 2 },
    ]);
    assert.deepEqual([...permittedLevels(actor('u', 'Sales'), m, 'read')].sort(), [0, 1]);
    assert.deepEqual([...permittedLevels(actor('u', 'Sales'), m, 'write')], []);
    assert.deepEqual([...permittedLevels(actor('u', 'Boss'), m, 'write')], [2]);
  });
});
