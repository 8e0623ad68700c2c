import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/dialects.js';
import { assertError, createDocType, dataOf, insertDoc, resourceUrl, type Json } from '../helpers/document-api.js';
import { actAs, createRole, createUser, query, type ActingUser } from '../helpers/permission-users.js';
import { startTestSite, type TestRequest, type TestSite } from '../helpers/test-site.js';

/*
 * Document sharing (DocShare) and User Permissions over HTTP. A share gives one user rights on one
 * document even without any role permission, and lists OR shared documents back in; a User
 * Permission on Branch limits a user to documents whose Branch link is empty or allowed, and to the
 * allowed Branches themselves.
 */

const BRANCH = 'Branch';
const CASE_FILE = 'Case File';
const EXPENSE = 'Expense Claim';
const COUNT_URL = '/api/method/fw.client.get_count';

type Who = 'manager' | 'clerk' | 'visitor' | 'restricted' | 'guest';

for (const dialect of testDialects()) {
  describe(`sharing and User Permissions over HTTP (${dialect.name})`, () => {
    let t: TestSite;
    const users = new Map<Who, ActingUser | undefined>([['guest', undefined]]);
    const names: Record<string, string> = {};
    const as = (who: Who, request: TestRequest) => actAs(t, users.get(who), request);
    const user = (who: Who) => (users.get(who) as ActingUser).name;
    const namesListed = async (who: Who, doctype: string): Promise<string[]> =>
      dataOf(await as(who, { method: 'GET', url: resourceUrl(doctype) + query({ limit_page_length: 0 }) }))
        .map((r: Json) => r.name)
        .sort();
    const countOf = async (who: Who, doctype: string): Promise<number> => {
      const res = await as(who, { method: 'GET', url: COUNT_URL + query({ doctype }) });
      assert.equal(res.statusCode, 200, res.body);
      return res.json().message as number;
    };
    const share = (who: Who, body: Json) => as(who, { method: 'POST', url: resourceUrl('DocShare'), body });

    before(async () => {
      t = await startTestSite(dialect);
      await createRole(t, 'Clerk');
      users.set('manager', await createUser(t, 'share-manager@example.com', { roles: ['System Manager'] }));
      users.set('clerk', await createUser(t, 'share-clerk@example.com', { roles: ['Clerk'] }));
      users.set('visitor', await createUser(t, 'share-visitor@example.com', { userType: 'Website User' }));
      users.set('restricted', await createUser(t, 'share-restricted@example.com', { roles: ['Clerk'] }));

      await createDocType(t, {
        name: BRANCH,
        autoname: 'field:code',
        fields: [{ fieldname: 'code', label: 'Code', fieldtype: 'Data' }],
        permissions: [{ role: 'System Manager' }, { role: 'Clerk', write: 0, create: 0, delete: 0 }],
      });
      await createDocType(t, {
        name: CASE_FILE,
        fields: [
          { fieldname: 'title', label: 'Title', fieldtype: 'Data' },
          { fieldname: 'branch', label: 'Branch', fieldtype: 'Link', options: BRANCH },
          { fieldname: 'reviewer', label: 'Reviewer', fieldtype: 'Link', options: 'User', ignore_user_permissions: 1 },
        ],
        permissions: [{ role: 'System Manager' }, { role: 'Clerk', delete: 0 }],
      });
      await createDocType(t, {
        name: EXPENSE,
        fields: [{ fieldname: 'title', label: 'Title', fieldtype: 'Data' }],
        permissions: [{ role: 'System Manager' }, { role: 'Clerk', if_owner: 1 }],
      });
      for (const code of ['North', 'South']) await insertDoc(t, BRANCH, { code });
      names.north = (await insertDoc(t, CASE_FILE, { title: 'North file', branch: 'North' })).name;
      names.south = (await insertDoc(t, CASE_FILE, { title: 'South file', branch: 'South' })).name;
      names.nowhere = (await insertDoc(t, CASE_FILE, { title: 'No branch' })).name;
      names.managerClaim = dataOf(await as('manager', { method: 'POST', url: resourceUrl(EXPENSE), body: { title: 'Hotel' } })).name;
      names.clerkClaim = dataOf(await as('clerk', { method: 'POST', url: resourceUrl(EXPENSE), body: { title: 'Taxi' } })).name;
      dataOf(await t.request({ method: 'POST', url: resourceUrl('User Permission'), body: { user: user('restricted'), allow: BRANCH, for_value: 'North' } }));
    });
    after(() => t.close());

    describe('shares', () => {
      test('without a role or a share, a Website User may not list, count or read, even a missing name', async () => {
        assertError(await as('visitor', { method: 'GET', url: resourceUrl(CASE_FILE) }), 403, 'PermissionError');
        assertError(await as('visitor', { method: 'GET', url: COUNT_URL + query({ doctype: CASE_FILE }) }), 403, 'PermissionError');
        assertError(await as('visitor', { method: 'GET', url: resourceUrl(CASE_FILE, names.north) }), 403, 'PermissionError');
        assertError(await as('visitor', { method: 'GET', url: resourceUrl(CASE_FILE, 'missing') }), 403, 'PermissionError');
      });

      test('a user without share permission may not share, and nothing is stored', async () => {
        assertError(await share('visitor', { user: user('visitor'), share_doctype: CASE_FILE, share_name: names.north, read: 1 }), 403, 'PermissionError');
        const shares = dataOf(await t.request({ method: 'GET', url: resourceUrl('DocShare') + query({ filters: { share_name: names.north } }) }));
        assert.deepEqual(shares, []);
      });

      test('a System Manager shares a document for reading; the share carries read', async () => {
        const created = dataOf(await share('manager', { user: user('visitor'), share_doctype: CASE_FILE, share_name: names.north, read: 1 }));
        assert.equal(created.read, 1);
        assert.equal(created.share_name, names.north);
      });

      test('the shared document becomes readable, the others stay refused, and a missing name is now 404', async () => {
        assert.equal(dataOf(await as('visitor', { method: 'GET', url: resourceUrl(CASE_FILE, names.north) })).title, 'North file');
        assertError(await as('visitor', { method: 'GET', url: resourceUrl(CASE_FILE, names.south) }), 403, 'PermissionError');
        assertError(await as('visitor', { method: 'GET', url: resourceUrl(CASE_FILE, 'missing') }), 404, 'DoesNotExistError');
      });

      test('a user with shares but no role lists and counts only the shared documents', async () => {
        assert.deepEqual(await namesListed('visitor', CASE_FILE), [names.north]);
        assert.equal(await countOf('visitor', CASE_FILE), 1);
      });

      test('a read share does not allow writing; a write share does', async () => {
        assertError(await as('visitor', { method: 'PUT', url: resourceUrl(CASE_FILE, names.north), body: { title: 'Edited' } }), 403, 'PermissionError');
        dataOf(await share('manager', { user: user('visitor'), share_doctype: CASE_FILE, share_name: names.south, write: 1 }));
        const updated = dataOf(await as('visitor', { method: 'PUT', url: resourceUrl(CASE_FILE, names.south), body: { title: 'South, edited' } }));
        assert.equal(updated.title, 'South, edited');
        assert.deepEqual(await namesListed('visitor', CASE_FILE), [names.north, names.south].sort(), 'write implies read');
      });

      test('a share never allows delete or create', async () => {
        assertError(await as('visitor', { method: 'DELETE', url: resourceUrl(CASE_FILE, names.south) }), 403, 'PermissionError');
        assertError(await as('visitor', { method: 'POST', url: resourceUrl(CASE_FILE), body: { title: 'New' } }), 403, 'PermissionError');
      });

      test('a user holding share through their role shares onward; a read-only share cannot be passed on', async () => {
        const made = await share('clerk', { user: user('visitor'), share_doctype: CASE_FILE, share_name: names.nowhere, read: 1 });
        assert.equal(made.statusCode, 200, made.body);
        assertError(await share('visitor', { user: user('clerk'), share_doctype: CASE_FILE, share_name: names.north, read: 1 }), 403, 'PermissionError');
      });

      test('shared documents are ORed back into a list restricted by if_owner', async () => {
        assert.deepEqual(await namesListed('clerk', EXPENSE), [names.clerkClaim]);
        assertError(await as('clerk', { method: 'GET', url: resourceUrl(EXPENSE, names.managerClaim) }), 403, 'PermissionError');
        dataOf(await share('manager', { user: user('clerk'), share_doctype: EXPENSE, share_name: names.managerClaim, read: 1 }));
        assert.deepEqual(await namesListed('clerk', EXPENSE), [names.clerkClaim, names.managerClaim].sort());
        assert.equal(await countOf('clerk', EXPENSE), 2);
        assert.equal(dataOf(await as('clerk', { method: 'GET', url: resourceUrl(EXPENSE, names.managerClaim) })).title, 'Hotel');
      });

      test('a list restricted by if_owner ORs in shares with everyone, not those of other users or without read', async () => {
        const claim = async (title: string) => dataOf(await as('manager', { method: 'POST', url: resourceUrl(EXPENSE), body: { title } })).name as string;
        const [forAll, forOther, noRights] = [await claim('Train'), await claim('Lunch'), await claim('Parking')];
        dataOf(await share('manager', { everyone: 1, share_doctype: EXPENSE, share_name: forAll, read: 1 }));
        dataOf(await share('manager', { user: user('restricted'), share_doctype: EXPENSE, share_name: forOther, read: 1 }));
        // Write, share and submit carry read with them; a share of nothing at all is stored but gives no read.
        dataOf(await share('manager', { user: user('clerk'), share_doctype: EXPENSE, share_name: noRights, read: 0 }));
        const listed = await namesListed('clerk', EXPENSE);
        assert.ok(listed.includes(forAll), 'shared with everyone');
        assert.ok(!listed.includes(forOther), "another user's share stays theirs");
        assert.ok(!listed.includes(noRights), 'a share without read does not list');
        assert.equal(await countOf('clerk', EXPENSE), listed.length);
        assert.ok((await namesListed('restricted', EXPENSE)).includes(forOther));
      });

      test('a share with everyone reaches every logged-in user but not Guest', async () => {
        const doc = await insertDoc(t, CASE_FILE, { title: 'For all' });
        dataOf(
          await t.request({ method: 'POST', url: resourceUrl('DocShare'), body: { everyone: 1, share_doctype: CASE_FILE, share_name: doc.name, read: 1 } }),
        );
        assert.equal((await as('visitor', { method: 'GET', url: resourceUrl(CASE_FILE, doc.name) })).statusCode, 200);
        assertError(await as('guest', { method: 'GET', url: resourceUrl(CASE_FILE, doc.name) }), 403, 'PermissionError');
      });

      test('a share without a user and not for everyone is refused', async () => {
        assertError(
          await t.request({ method: 'POST', url: resourceUrl('DocShare'), body: { share_doctype: CASE_FILE, share_name: names.north, read: 1 } }),
          417,
          'MandatoryError',
        );
      });

      test('deleting a document removes its shares', async () => {
        const doc = await insertDoc(t, CASE_FILE, { title: 'Short-lived' });
        dataOf(await share('manager', { user: user('visitor'), share_doctype: CASE_FILE, share_name: doc.name, read: 1 }));
        assert.equal((await t.request({ method: 'DELETE', url: resourceUrl(CASE_FILE, doc.name) })).statusCode, 202);
        const left = dataOf(await t.request({ method: 'GET', url: resourceUrl('DocShare') + query({ filters: { share_name: doc.name } }) }));
        assert.deepEqual(left, []);
      });

      test('a user who is not a System Manager cannot read the shares themselves', async () => {
        assertError(await as('clerk', { method: 'GET', url: resourceUrl('DocShare') }), 403, 'PermissionError');
      });
    });

    describe('User Permissions', () => {
      test('a restricted user lists and counts only documents whose Branch is allowed or empty', async () => {
        const all = dataOf(await t.request({ method: 'GET', url: resourceUrl(CASE_FILE) + query({ fields: ['name', 'branch'], limit_page_length: 0 }) }));
        const expected = all
          .filter((r: Json) => r.branch === 'North' || r.branch === null)
          .map((r: Json) => r.name)
          .sort();
        assert.ok(expected.includes(names.north) && expected.includes(names.nowhere) && !expected.includes(names.south));
        assert.deepEqual(await namesListed('restricted', CASE_FILE), expected);
        assert.equal(await countOf('restricted', CASE_FILE), expected.length);
        assert.equal((await namesListed('clerk', CASE_FILE)).length, all.length, 'an unrestricted Clerk sees them all');
      });

      test('a restricted user lists only the allowed Branches', async () => {
        assert.deepEqual(await namesListed('restricted', BRANCH), ['North']);
      });

      test('reads follow the same rule', async () => {
        assert.equal((await as('restricted', { method: 'GET', url: resourceUrl(CASE_FILE, names.north) })).statusCode, 200);
        assert.equal((await as('restricted', { method: 'GET', url: resourceUrl(CASE_FILE, names.nowhere) })).statusCode, 200);
        assertError(await as('restricted', { method: 'GET', url: resourceUrl(CASE_FILE, names.south) }), 403, 'PermissionError');
        assertError(await as('restricted', { method: 'GET', url: resourceUrl(BRANCH, 'South') }), 403, 'PermissionError');
      });

      test('writes may not set a Link outside the allowed values', async () => {
        assertError(await as('restricted', { method: 'POST', url: resourceUrl(CASE_FILE), body: { title: 'x', branch: 'South' } }), 403, 'PermissionError');
        assert.equal(dataOf(await as('restricted', { method: 'POST', url: resourceUrl(CASE_FILE), body: { title: 'y', branch: 'North' } })).branch, 'North');
        assertError(await as('restricted', { method: 'PUT', url: resourceUrl(CASE_FILE, names.north), body: { branch: 'South' } }), 403, 'PermissionError');
      });

      test('a Link marked ignore_user_permissions is not restricted', async () => {
        const res = await as('restricted', { method: 'POST', url: resourceUrl(CASE_FILE), body: { title: 'z', branch: 'North', reviewer: user('manager') } });
        assert.equal(res.statusCode, 200, res.body);
      });

      test('the same User Permission cannot be stored twice, and only a System Manager makes them', async () => {
        const body = { user: user('restricted'), allow: BRANCH, for_value: 'North' };
        assertError(await t.request({ method: 'POST', url: resourceUrl('User Permission'), body }), 409, 'DuplicateEntryError');
        assertError(await as('clerk', { method: 'POST', url: resourceUrl('User Permission'), body: { ...body, user: user('clerk') } }), 403, 'PermissionError');
      });

      test('a rule for another DocType only does not restrict this one', async () => {
        dataOf(
          await t.request({
            method: 'POST',
            url: resourceUrl('User Permission'),
            body: { user: user('clerk'), allow: BRANCH, for_value: 'South', apply_to_all_doctypes: 0, applicable_for: EXPENSE },
          }),
        );
        assert.ok((await namesListed('clerk', CASE_FILE)).includes(names.north));
        assert.deepEqual(await namesListed('clerk', BRANCH), ['North', 'South']);
      });
    });
  });
}
