import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/dialects.js';
import { assertError, dataOf, insertDoc, readDoc, resourceUrl, type Json } from '../helpers/document-api.js';
import { actAs, createRole, createUser, query, type ActingUser } from '../helpers/permission-users.js';
import { startTestSite, type TestRequest, type TestSite } from '../helpers/test-site.js';

/*
 * ToDo's rule (reference §16) over HTTP: role All grants every user read, write, create and delete,
 * but a `has_permission` hook lets an ordinary user reach only the ToDos allocated to them or
 * assigned by them (creating included), and a `permission_query_conditions` hook limits their lists
 * the same way. A System Manager (a role that is not automatic) reads and writes every ToDo, but
 * only All grants delete, so they delete only their own.
 */

type Who = 'manager' | 'clerk' | 'visitor' | 'guest';

for (const dialect of testDialects()) {
  describe(`ToDo permissions over HTTP (${dialect.name})`, () => {
    let t: TestSite;
    const users = new Map<Who, ActingUser | undefined>([['guest', undefined]]);
    const names: Record<string, string> = {};
    const as = (who: Who, request: TestRequest) => actAs(t, users.get(who), request);
    const user = (who: Who) => (users.get(who) as ActingUser).name;
    const listOf = async (who: Who): Promise<Json[]> =>
      dataOf(
        await as(who, { method: 'GET', url: resourceUrl('ToDo') + query({ fields: ['name', 'allocated_to', 'assigned_by'], limit_page_length: 0 }) }),
      ) as Json[];
    const countOf = async (who: Who): Promise<number> => {
      const res = await as(who, { method: 'GET', url: '/api/method/fw.client.get_count' + query({ doctype: 'ToDo' }) });
      assert.equal(res.statusCode, 200, res.body);
      return res.json().message as number;
    };

    before(async () => {
      t = await startTestSite(dialect);
      await createRole(t, 'Clerk');
      users.set('manager', await createUser(t, 'todo-manager@example.com', { roles: ['System Manager'] }));
      users.set('clerk', await createUser(t, 'todo-clerk@example.com', { roles: ['Clerk'] }));
      users.set('visitor', await createUser(t, 'todo-visitor@example.com', { userType: 'Website User' }));
      names.forClerk = (await insertDoc(t, 'ToDo', { description: 'for the clerk', allocated_to: user('clerk') })).name;
      names.byClerk = (await insertDoc(t, 'ToDo', { description: 'assigned by the clerk', assigned_by: user('clerk'), allocated_to: user('visitor') })).name;
      names.forManager = (await insertDoc(t, 'ToDo', { description: 'for the manager', allocated_to: user('manager') })).name;
      names.nobody = (await insertDoc(t, 'ToDo', { description: 'for nobody' })).name;
    });
    after(() => t.close());

    const allowed: Array<[string, Who, () => TestRequest, number]> = [
      [
        'a user creates a ToDo allocated to themselves',
        'clerk',
        () => ({ method: 'POST', url: resourceUrl('ToDo'), body: { description: 'mine', allocated_to: user('clerk') } }),
        200,
      ],
      [
        'a user creates a ToDo they assign to someone else',
        'clerk',
        () => ({ method: 'POST', url: resourceUrl('ToDo'), body: { description: 'yours', assigned_by: user('clerk'), allocated_to: user('manager') } }),
        200,
      ],
      [
        'a System Manager creates a ToDo for nobody in particular',
        'manager',
        () => ({ method: 'POST', url: resourceUrl('ToDo'), body: { description: 'general' } }),
        200,
      ],
      ['a user reads a ToDo allocated to them', 'clerk', () => ({ method: 'GET', url: resourceUrl('ToDo', names.forClerk) }), 200],
      ['a user reads a ToDo they assigned', 'clerk', () => ({ method: 'GET', url: resourceUrl('ToDo', names.byClerk) }), 200],
      ['a Website User reads the ToDo allocated to them', 'visitor', () => ({ method: 'GET', url: resourceUrl('ToDo', names.byClerk) }), 200],
      ['a System Manager reads any ToDo', 'manager', () => ({ method: 'GET', url: resourceUrl('ToDo', names.forClerk) }), 200],
      ['a user updates a ToDo they assigned', 'clerk', () => ({ method: 'PUT', url: resourceUrl('ToDo', names.byClerk), body: { priority: 'High' } }), 200],
      ['a System Manager updates any ToDo', 'manager', () => ({ method: 'PUT', url: resourceUrl('ToDo', names.nobody), body: { priority: 'Low' } }), 200],
    ];
    const refused: Array<[string, Who, () => TestRequest]> = [
      [
        'a user may not create a ToDo that is neither theirs nor assigned by them',
        'clerk',
        () => ({ method: 'POST', url: resourceUrl('ToDo'), body: { description: 'orphan' } }),
      ],
      [
        'owning a ToDo is not enough to create it for someone else',
        'clerk',
        () => ({ method: 'POST', url: resourceUrl('ToDo'), body: { description: 'x', allocated_to: user('manager') } }),
      ],
      ["a user may not read someone else's ToDo", 'clerk', () => ({ method: 'GET', url: resourceUrl('ToDo', names.forManager) })],
      ["a user may not update someone else's ToDo", 'clerk', () => ({ method: 'PUT', url: resourceUrl('ToDo', names.nobody), body: { priority: 'High' } })],
      [
        'a user may not take over a ToDo by assigning it to themselves',
        'clerk',
        () => ({ method: 'PUT', url: resourceUrl('ToDo', names.forManager), body: { assigned_by: user('clerk') } }),
      ],
      [
        'a user may not hand their ToDo over to others',
        'clerk',
        () => ({ method: 'PUT', url: resourceUrl('ToDo', names.byClerk), body: { assigned_by: user('manager'), allocated_to: user('manager') } }),
      ],
      ["a user may not delete someone else's ToDo", 'clerk', () => ({ method: 'DELETE', url: resourceUrl('ToDo', names.forManager) })],
      [
        "a System Manager may not delete another user's ToDo: only All grants delete",
        'manager',
        () => ({ method: 'DELETE', url: resourceUrl('ToDo', names.forClerk) }),
      ],
      ['Guest may not list ToDos', 'guest', () => ({ method: 'GET', url: resourceUrl('ToDo') })],
    ];

    for (const [title, who, request, status] of allowed) {
      test(`${title} (${status})`, async () => {
        const res = await as(who, request());
        assert.equal(res.statusCode, status, res.body);
      });
    }
    for (const [title, who, request] of refused) {
      test(`${title} (403)`, async () => {
        assertError(await as(who, request()), 403, 'PermissionError');
      });
    }

    test('a refused hand-over leaves the ToDo unchanged', async () => {
      const before = await readDoc(t, 'ToDo', names.byClerk);
      await as('clerk', { method: 'PUT', url: resourceUrl('ToDo', names.byClerk), body: { assigned_by: user('manager'), allocated_to: user('manager') } });
      assert.deepEqual(await readDoc(t, 'ToDo', names.byClerk), before);
    });

    test("a user's list and count hold only ToDos allocated to or assigned by them", async () => {
      const rows = await listOf('clerk');
      const me = user('clerk');
      assert.ok(rows.length >= 2, JSON.stringify(rows));
      assert.ok(
        rows.every((r) => r.allocated_to === me || r.assigned_by === me),
        JSON.stringify(rows),
      );
      assert.ok(rows.some((r) => r.name === names.forClerk) && rows.some((r) => r.name === names.byClerk));
      assert.equal(await countOf('clerk'), rows.length);
    });

    test("a Website User's list holds only the ToDo allocated to them", async () => {
      const rows = await listOf('visitor');
      assert.ok(rows.length >= 1 && rows.every((r) => r.allocated_to === user('visitor')), JSON.stringify(rows));
    });

    test("a System Manager's list and count hold every ToDo", async () => {
      const rows = await listOf('manager');
      for (const key of ['forClerk', 'byClerk', 'forManager', 'nobody'])
        assert.ok(
          rows.some((r) => r.name === names[key]),
          key,
        );
      assert.equal(await countOf('manager'), rows.length);
    });

    test('a user deletes their own ToDo; a System Manager deletes one allocated to them', async () => {
      const own = dataOf(await as('clerk', { method: 'POST', url: resourceUrl('ToDo'), body: { description: 'done soon', allocated_to: user('clerk') } }));
      assert.equal((await as('clerk', { method: 'DELETE', url: resourceUrl('ToDo', own.name) })).statusCode, 202);
      assert.equal((await as('manager', { method: 'DELETE', url: resourceUrl('ToDo', names.forManager) })).statusCode, 202);
    });
  });
}
