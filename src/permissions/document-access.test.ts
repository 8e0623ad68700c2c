import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Principal } from '../auth/principal.js';
import type { Doc, PermissionType } from '../meta/doctype.js';
import { mayUseDocType, mayUseDocument } from './document-access.js';
import { PermissionHooks } from './permission-hooks.js';
import { ADMIN, ANONYMOUS, fakeContext, NOTE, shareOf, userWith, type FakeData } from './permission-fixtures.js';

const own: Doc = { name: 'n1', owner: 'clerk@x.com', company: 'Acme' };
const others: Doc = { name: 'n2', owner: 'boss@x.com', company: 'Acme' };
const denyAll = new PermissionHooks().onHasPermission('Note', () => false);

describe('mayUseDocType', () => {
  const cases: Array<[string, Principal, PermissionType, FakeData, boolean]> = [
    ['a role granting the right allows', userWith('s', 'Sales'), 'read', {}, true],
    ['an if_owner grant allows at DocType level', userWith('clerk@x.com', 'Clerk'), 'write', {}, true],
    ['no role and no share refuses', userWith('o', 'Other'), 'read', {}, false],
    ['no role but a read share allows read', userWith('o', 'Other'), 'read', { shares: { Note: [shareOf('n2', 'read')] } }, true],
    ['a read share does not allow write', userWith('o', 'Other'), 'write', { shares: { Note: [shareOf('n2', 'read')] } }, false],
    ['a share never allows delete', userWith('o', 'Other'), 'delete', { shares: { Note: [shareOf('n2', 'read', 'write', 'share')] } }, false],
    ['Guest gets nothing from rows for other roles', ANONYMOUS, 'read', {}, false],
    ['the Administrator is always allowed', ADMIN, 'delete', {}, true],
  ];
  for (const [title, who, right, data, expected] of cases) {
    test(title, async () => assert.equal(await mayUseDocType(fakeContext(who, data), NOTE, right), expected));
  }

  test('shares are not looked up when a role already allows', async () => {
    const pc = fakeContext(userWith('s', 'Sales'));
    await mayUseDocType(pc, NOTE, 'read');
    assert.deepEqual(pc.loads, []);
  });
});

describe('mayUseDocument', () => {
  const cases: Array<[string, Principal, PermissionType, Doc, FakeData, boolean]> = [
    ['a plain role grant allows any document', userWith('s', 'Sales'), 'write', others, {}, true],
    ['an if_owner grant allows the own document', userWith('clerk@x.com', 'Clerk'), 'write', own, {}, true],
    ["an if_owner grant refuses another user's document", userWith('clerk@x.com', 'Clerk'), 'write', others, {}, false],
    ['a has_permission hook can deny what roles allow', userWith('s', 'Sales'), 'read', others, { hooks: denyAll }, false],
    ['User Permissions refuse a Link outside them', userWith('s', 'Sales'), 'read', others, { rules: [{ allow: 'Company', forValue: 'Beta' }] }, false],
    ['User Permissions pass a Link inside them', userWith('s', 'Sales'), 'read', others, { rules: [{ allow: 'Company', forValue: 'Acme' }] }, true],
    ['a share gives read without any role', userWith('o', 'Other'), 'read', others, { shares: { Note: [shareOf('n2', 'read')] } }, true],
    ['a share of another document gives nothing', userWith('o', 'Other'), 'read', others, { shares: { Note: [shareOf('n1', 'read')] } }, false],
    ['a write share gives write', userWith('o', 'Other'), 'write', others, { shares: { Note: [shareOf('n2', 'read', 'write')] } }, true],
    ['a share overrides a denying hook', userWith('s', 'Sales'), 'read', others, { hooks: denyAll, shares: { Note: [shareOf('n2', 'read')] } }, true],
    [
      'a share overrides User Permissions',
      userWith('s', 'Sales'),
      'read',
      others,
      { rules: [{ allow: 'Company', forValue: 'Beta' }], shares: { Note: [shareOf('n2', 'read')] } },
      true,
    ],
    ['a share does not give create', userWith('o', 'Other'), 'create', { company: 'Acme' }, { shares: { Note: [shareOf('n2', 'read', 'write')] } }, false],
    ['the Administrator passes even a denying hook', ADMIN, 'delete', others, { hooks: denyAll }, true],
  ];
  for (const [title, who, right, doc, data, expected] of cases) {
    test(title, async () => assert.equal(await mayUseDocument(fakeContext(who, data), NOTE, right, doc), expected));
  }

  test('hooks are asked with the document, the right and the principal', async () => {
    const seen: unknown[] = [];
    const hooks = new PermissionHooks().onHasPermission('Note', ({ doc, right, principal }) => void seen.push([doc.name, right, principal.user]));
    await mayUseDocument(fakeContext(userWith('s', 'Sales'), { hooks }), NOTE, 'write', others);
    assert.deepEqual(seen, [['n2', 'write', 's']]);
  });
});
