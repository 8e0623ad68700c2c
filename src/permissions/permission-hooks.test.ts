import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { DocContext } from '../documents/doc-context.js';
import type { Condition } from '../query/list-query.js';
import { PermissionHooks } from './permission-hooks.js';
import { COMPANY, NOTE, userWith } from './permission-fixtures.js';

const principal = userWith('u@x.com', 'Sales');
const ctx = {} as DocContext;
const ask = (hooks: PermissionHooks, meta = NOTE) => hooks.allows({ doc: { name: 'n1' }, meta, right: 'read', principal, ctx });
const conditionOf = (field: string): Condition => ({ field: { field }, op: '=', value: 'x' });

describe('PermissionHooks', () => {
  const verdicts: Array<[string, Array<boolean | undefined>, boolean]> = [
    ['no hook allows', [], true],
    ['a hook answering undefined allows', [undefined], true],
    ['a hook answering true allows', [true], true],
    ['one false among several denies', [true, false, undefined], false],
  ];
  for (const [title, answers, expected] of verdicts) {
    test(`has_permission: ${title}`, async () => {
      const hooks = new PermissionHooks();
      for (const answer of answers) hooks.onHasPermission('Note', async () => answer);
      assert.equal(await ask(hooks), expected);
    });
  }

  test('has_permission hooks of other DocTypes do not run; `*` hooks run for every DocType, first', async () => {
    const ran: string[] = [];
    const hooks = new PermissionHooks()
      .onHasPermission('Note', () => void ran.push('Note'))
      .onHasPermission('*', () => void ran.push('*'))
      .onHasPermission('Company', () => false);
    assert.equal(await ask(hooks), true);
    assert.deepEqual(ran, ['*', 'Note']);
    assert.equal(await ask(hooks, COMPANY), false);
  });

  test('query conditions: none, one as it is, several ANDed', async () => {
    const hooks = new PermissionHooks();
    const args = { meta: NOTE, principal, ctx };
    assert.equal(await hooks.conditions(args), undefined);
    hooks.onQueryConditions('Note', () => undefined);
    assert.equal(await hooks.conditions(args), undefined);
    hooks.onQueryConditions('Note', () => conditionOf('a'));
    assert.deepEqual(await hooks.conditions(args), conditionOf('a'));
    hooks.onQueryConditions('Note', async () => conditionOf('b'));
    assert.deepEqual(await hooks.conditions(args), { and: [conditionOf('a'), conditionOf('b')] });
    assert.equal(await hooks.conditions({ ...args, meta: COMPANY }), undefined);
  });
});

describe('PermissionHooks without waiting', () => {
  test('synchronous hooks are answered without a promise', () => {
    const hooks = new PermissionHooks().onHasPermission('Note', () => true).onHasPermission('*', () => undefined);
    assert.equal(ask(hooks), true);
    assert.equal(ask(new PermissionHooks().onHasPermission('Note', () => false)), false);
  });

  test('an async hook is waited for, and the hooks after it run once it allowed', async () => {
    const ran: string[] = [];
    const hooks = new PermissionHooks()
      .onHasPermission('Note', async () => (ran.push('async'), undefined))
      .onHasPermission('Note', () => (ran.push('after'), false));
    const answer = ask(hooks);
    assert.ok(answer instanceof Promise);
    assert.equal(await answer, false);
    assert.deepEqual(ran, ['async', 'after']);
  });

  test('a hook added later is asked from then on', () => {
    const hooks = new PermissionHooks();
    assert.equal(ask(hooks), true);
    hooks.onHasPermission('Note', () => false);
    assert.equal(ask(hooks), false);
  });
});
