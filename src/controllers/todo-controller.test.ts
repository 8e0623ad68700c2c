import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { makePrincipal, type Principal } from '../auth/principal.js';
import type { DocContext } from '../documents/doc-context.js';
import { HookRegistry } from '../documents/hooks.js';
import type { Doc, PermissionType } from '../meta/doctype.js';
import { createFieldTypeRegistry } from '../meta/field-types/index.js';
import { Meta } from '../meta/meta.js';
import { CORE_DOCTYPES } from '../meta/core-doctypes/index.js';
import { registerToDoController } from './todo-controller.js';

const todo = new Meta(CORE_DOCTYPES.find((d) => d.name === 'ToDo')!, createFieldTypeRegistry());
const hooks = new HookRegistry();
registerToDoController(hooks);
const ctx = {} as DocContext;

const plain = makePrincipal({ user: 'u@x.com', roles: [] });
const manager = makePrincipal({ user: 'm@x.com', roles: ['System Manager'] });

describe('ToDo permission rule', () => {
  const cases: Array<[string, Principal, PermissionType, Doc, boolean]> = [
    ['a plain user may read a ToDo allocated to them', plain, 'read', { allocated_to: 'u@x.com' }, true],
    ['a plain user may write a ToDo they assigned', plain, 'write', { assigned_by: 'u@x.com', allocated_to: 'x@x.com' }, true],
    ['owning a ToDo is not enough', plain, 'read', { owner: 'u@x.com' }, false],
    ['creating one for nobody in particular is refused', plain, 'create', { owner: 'u@x.com' }, false],
    ['a System Manager may read any ToDo', manager, 'read', { allocated_to: 'x@x.com' }, true],
    ["a System Manager may not delete another user's ToDo: only All grants delete", manager, 'delete', { allocated_to: 'x@x.com' }, false],
    ['a System Manager may delete a ToDo allocated to them', manager, 'delete', { allocated_to: 'm@x.com' }, true],
  ];
  for (const [title, principal, right, doc, expected] of cases) {
    test(title, async () => assert.equal(await hooks.permissions.allows({ doc, meta: todo, right, principal, ctx }), expected));
  }

  test('lists are limited to ToDos allocated to or assigned by a plain user, not for a System Manager', async () => {
    assert.deepEqual(await hooks.permissions.conditions({ meta: todo, principal: plain, ctx }), {
      or: [
        { field: { field: 'allocated_to' }, op: '=', value: 'u@x.com' },
        { field: { field: 'assigned_by' }, op: '=', value: 'u@x.com' },
      ],
    });
    assert.equal(await hooks.permissions.conditions({ meta: todo, principal: manager, ctx }), undefined);
  });
});
