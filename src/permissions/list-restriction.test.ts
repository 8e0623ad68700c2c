import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PermissionError } from '../errors/index.js';
import type { Condition } from '../query/list-query.js';
import { listRestriction } from './list-restriction.js';
import { PermissionHooks } from './permission-hooks.js';
import { ADMIN, ANONYMOUS, fakeContext, NOTE, shareOf, userWith } from './permission-fixtures.js';

const ownerIs = (user: string): Condition => ({ field: { field: 'owner' }, op: '=', value: user });
const nameIn = (...names: string[]): Condition => ({ field: { field: 'name' }, op: 'in', value: names });
/** What a restricted list ORs back in: the documents shared with the user, read by the list's statement. */
const orShared = (restriction: Condition, user: string): Condition => ({ or: [restriction, { sharedWith: { doctype: 'Note', user, everyone: true } }] });
const byHook: Condition = { field: { field: 'title' }, op: '=', value: 'mine' };
const companyRule = {
  or: [
    { field: { field: 'company' }, op: 'is', value: 'not set' },
    { field: { field: 'company' }, op: 'in', value: ['Acme'] },
  ],
} as Condition;
const hooked = () => new PermissionHooks().onQueryConditions('Note', () => byHook);

describe('listRestriction', () => {
  test('the Administrator and a plain role grant see every row, with nothing looked up for the Administrator', async () => {
    const admin = fakeContext(ADMIN);
    assert.equal(await listRestriction(admin, NOTE), undefined);
    assert.deepEqual(admin.loads, []);
    assert.equal(await listRestriction(fakeContext(userWith('s', 'Sales')), NOTE), undefined);
  });

  test('select alone is enough to list', async () => {
    assert.equal(await listRestriction(fakeContext(userWith('v', 'Viewer')), NOTE), undefined);
  });

  test('an if_owner grant limits to the own rows and leaves User Permissions out', async () => {
    const pc = fakeContext(userWith('clerk@x.com', 'Clerk'), { rules: [{ allow: 'Company', forValue: 'Acme' }] });
    assert.deepEqual(await listRestriction(pc, NOTE), orShared(ownerIs('clerk@x.com'), 'clerk@x.com'));
    assert.ok(!pc.loads.includes('userPermissions'));
  });

  test('User Permissions limit the Link values', async () => {
    const pc = fakeContext(userWith('s', 'Sales'), { rules: [{ allow: 'Company', forValue: 'Acme' }] });
    assert.deepEqual(await listRestriction(pc, NOTE), orShared(companyRule, 's'));
  });

  test('query condition hooks are ANDed with the other restrictions', async () => {
    const pc = fakeContext(userWith('s', 'Sales'), { rules: [{ allow: 'Company', forValue: 'Acme' }], hooks: hooked() });
    assert.deepEqual(await listRestriction(pc, NOTE), orShared({ and: [companyRule, byHook] }, 's'));
  });

  test('shared documents are ORed back in when anything restricted the rows, by the list statement itself', async () => {
    const pc = fakeContext(userWith('clerk@x.com', 'Clerk'), { shares: { Note: [shareOf('n9', 'read'), shareOf('n8')] } });
    assert.deepEqual(await listRestriction(pc, NOTE), orShared(ownerIs('clerk@x.com'), 'clerk@x.com'));
    assert.ok(!pc.loads.some((l) => l.startsWith('shares')), 'no statement of its own reads the shares');
  });

  test('shares are not looked up when nothing restricted the rows', async () => {
    const pc = fakeContext(userWith('s', 'Sales'), { shares: { Note: [shareOf('n9', 'read')] } });
    assert.equal(await listRestriction(pc, NOTE), undefined);
    assert.ok(!pc.loads.some((l) => l.startsWith('shares')));
  });

  test('without a role, only the shared documents are listed', async () => {
    const pc = fakeContext(userWith('o', 'Other'), { shares: { Note: [shareOf('n9', 'read'), shareOf('n7', 'read', 'write')] }, hooks: hooked() });
    assert.deepEqual(await listRestriction(pc, NOTE), nameIn('n9', 'n7'));
  });

  test('without a role or a share the list is a 403', async () => {
    for (const who of [userWith('o', 'Other'), ANONYMOUS]) {
      await assert.rejects(
        async () => listRestriction(fakeContext(who), NOTE),
        (err: unknown) => err instanceof PermissionError && err.doctype === 'Note',
      );
    }
  });
});
