import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/dialects.js';
import { assertError, createDocType, dataOf, insertDoc, readDoc, resourceUrl, type Json } from '../helpers/document-api.js';
import { actAs, createRole, createUser, query, type ActingUser } from '../helpers/permission-users.js';
import { startTestSite, type TestRequest, type TestSite } from '../helpers/test-site.js';

/*
 * Role permissions end to end, for every action, as three users made through the API: a System
 * Manager, a Clerk (a custom role) and a Website User; plus Guest. Case File grants Clerk plain rows
 * (no delete) and holds two permlevel-1 fields only System Manager reads and writes; Expense Claim
 * grants Clerk everything through an if_owner row; Notice grants All read.
 */

const CASE_FILE = 'Case File';
const EXPENSE = 'Expense Claim';
const NOTICE = 'Notice';
const BRANCH = 'Branch';

type Who = 'manager' | 'clerk' | 'visitor' | 'guest';

/** One request and the status it must get; `url` and `body` are functions because names are made in `before`. */
interface Scenario {
  readonly title: string;
  readonly who: Who;
  readonly method: TestRequest['method'];
  readonly url: () => string;
  readonly body?: () => Json;
  readonly status: number;
  readonly excType?: string;
}

const COUNT_URL = '/api/method/fw.client.get_count';

for (const dialect of testDialects()) {
  describe(`role permissions over HTTP (${dialect.name})`, () => {
    let t: TestSite;
    const users = new Map<Who, ActingUser | undefined>([['guest', undefined]]);
    const names: Record<string, string> = {};
    const as = (who: Who, request: TestRequest) => actAs(t, users.get(who), request);

    before(async () => {
      t = await startTestSite(dialect);
      await createRole(t, 'Clerk');
      users.set('manager', await createUser(t, 'manager@example.com', { roles: ['System Manager'] }));
      users.set('clerk', await createUser(t, 'clerk@example.com', { roles: ['Clerk'] }));
      users.set('visitor', await createUser(t, 'visitor@example.com', { userType: 'Website User' }));

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
          { fieldname: 'salary', label: 'Salary', fieldtype: 'Currency', permlevel: 1 },
          { fieldname: 'grade', label: 'Grade', fieldtype: 'Data', permlevel: 1, default: 'B' },
        ],
        permissions: [{ role: 'System Manager' }, { role: 'System Manager', permlevel: 1 }, { role: 'Clerk', delete: 0 }],
      });
      await createDocType(t, {
        name: EXPENSE,
        fields: [
          { fieldname: 'title', label: 'Title', fieldtype: 'Data' },
          { fieldname: 'amount', label: 'Amount', fieldtype: 'Currency' },
        ],
        permissions: [{ role: 'System Manager' }, { role: 'Clerk', if_owner: 1 }],
      });
      await createDocType(t, {
        name: NOTICE,
        fields: [{ fieldname: 'title', label: 'Title', fieldtype: 'Data' }],
        permissions: [{ role: 'System Manager' }, { role: 'All', write: 0, create: 0, delete: 0 }],
      });

      await insertDoc(t, BRANCH, { code: 'North' });
      names.alpha = (await insertDoc(t, CASE_FILE, { title: 'Alpha', branch: 'North', salary: 1000, grade: 'A' })).name;
      names.beta = (await insertDoc(t, CASE_FILE, { title: 'Beta', salary: 2000 })).name;
      names.notice = (await insertDoc(t, NOTICE, { title: 'Closed on Friday' })).name;
      const managerClaim = await as('manager', { method: 'POST', url: resourceUrl(EXPENSE), body: { title: 'Hotel', amount: 300 } });
      names.managerClaim = dataOf(managerClaim).name;
      const clerkClaim = await as('clerk', { method: 'POST', url: resourceUrl(EXPENSE), body: { title: 'Taxi', amount: 20 } });
      names.clerkClaim = dataOf(clerkClaim).name;
    });
    after(() => t.close());

    const scenarios: Scenario[] = [
      // Case File: plain rows for Clerk, nothing for All.
      { title: 'a System Manager lists Case Files', who: 'manager', method: 'GET', url: () => resourceUrl(CASE_FILE), status: 200 },
      { title: 'a Clerk lists Case Files', who: 'clerk', method: 'GET', url: () => resourceUrl(CASE_FILE), status: 200 },
      {
        title: 'a Website User may not list Case Files',
        who: 'visitor',
        method: 'GET',
        url: () => resourceUrl(CASE_FILE),
        status: 403,
        excType: 'PermissionError',
      },
      { title: 'Guest may not list Case Files', who: 'guest', method: 'GET', url: () => resourceUrl(CASE_FILE), status: 403, excType: 'PermissionError' },
      { title: 'a Clerk counts Case Files', who: 'clerk', method: 'GET', url: () => COUNT_URL + query({ doctype: CASE_FILE }), status: 200 },
      {
        title: 'a Website User may not count Case Files',
        who: 'visitor',
        method: 'GET',
        url: () => COUNT_URL + query({ doctype: CASE_FILE }),
        status: 403,
        excType: 'PermissionError',
      },
      { title: 'a Clerk reads a Case File', who: 'clerk', method: 'GET', url: () => resourceUrl(CASE_FILE, names.alpha), status: 200 },
      {
        title: 'a Clerk reads a Case File through fw.client.get',
        who: 'clerk',
        method: 'GET',
        url: () => '/api/method/fw.client.get' + query({ doctype: CASE_FILE, name: names.alpha }),
        status: 200,
      },
      {
        title: 'a Website User may not read a Case File',
        who: 'visitor',
        method: 'GET',
        url: () => resourceUrl(CASE_FILE, names.alpha),
        status: 403,
        excType: 'PermissionError',
      },
      {
        title: 'a Website User may not read it through fw.client.get either',
        who: 'visitor',
        method: 'GET',
        url: () => '/api/method/fw.client.get' + query({ doctype: CASE_FILE, name: names.alpha }),
        status: 403,
        excType: 'PermissionError',
      },
      {
        title: 'a Clerk reading a missing Case File gets 404',
        who: 'clerk',
        method: 'GET',
        url: () => resourceUrl(CASE_FILE, 'no-such-file'),
        status: 404,
        excType: 'DoesNotExistError',
      },
      {
        title: 'a Website User reading a missing Case File gets 403, so existence never leaks',
        who: 'visitor',
        method: 'GET',
        url: () => resourceUrl(CASE_FILE, 'no-such-file'),
        status: 403,
        excType: 'PermissionError',
      },
      {
        title: 'Guest reading a missing Case File gets 403',
        who: 'guest',
        method: 'GET',
        url: () => resourceUrl(CASE_FILE, 'no-such-file'),
        status: 403,
        excType: 'PermissionError',
      },
      { title: 'a Clerk creates a Case File', who: 'clerk', method: 'POST', url: () => resourceUrl(CASE_FILE), body: () => ({ title: 'Gamma' }), status: 200 },
      {
        title: 'a Website User may not create a Case File',
        who: 'visitor',
        method: 'POST',
        url: () => resourceUrl(CASE_FILE),
        body: () => ({ title: 'Nope' }),
        status: 403,
        excType: 'PermissionError',
      },
      {
        title: 'a Clerk updates a Case File',
        who: 'clerk',
        method: 'PUT',
        url: () => resourceUrl(CASE_FILE, names.beta),
        body: () => ({ title: 'Beta 2' }),
        status: 200,
      },
      {
        title: 'a Website User may not update a Case File',
        who: 'visitor',
        method: 'PUT',
        url: () => resourceUrl(CASE_FILE, names.beta),
        body: () => ({ title: 'Nope' }),
        status: 403,
        excType: 'PermissionError',
      },
      {
        title: 'a Clerk may not delete a Case File: the row grants no delete',
        who: 'clerk',
        method: 'DELETE',
        url: () => resourceUrl(CASE_FILE, names.beta),
        status: 403,
        excType: 'PermissionError',
      },
      {
        title: 'a Website User may not delete a Case File',
        who: 'visitor',
        method: 'DELETE',
        url: () => resourceUrl(CASE_FILE, names.beta),
        status: 403,
        excType: 'PermissionError',
      },
      // Expense Claim: Clerk reaches only their own claims.
      { title: 'a Clerk reads their own claim', who: 'clerk', method: 'GET', url: () => resourceUrl(EXPENSE, names.clerkClaim), status: 200 },
      {
        title: "a Clerk may not read another user's claim",
        who: 'clerk',
        method: 'GET',
        url: () => resourceUrl(EXPENSE, names.managerClaim),
        status: 403,
        excType: 'PermissionError',
      },
      {
        title: 'a Clerk updates their own claim',
        who: 'clerk',
        method: 'PUT',
        url: () => resourceUrl(EXPENSE, names.clerkClaim),
        body: () => ({ amount: 25 }),
        status: 200,
      },
      {
        title: "a Clerk may not update another user's claim",
        who: 'clerk',
        method: 'PUT',
        url: () => resourceUrl(EXPENSE, names.managerClaim),
        body: () => ({ amount: 1 }),
        status: 403,
        excType: 'PermissionError',
      },
      {
        title: "a Clerk may not delete another user's claim",
        who: 'clerk',
        method: 'DELETE',
        url: () => resourceUrl(EXPENSE, names.managerClaim),
        status: 403,
        excType: 'PermissionError',
      },
      { title: 'a Website User may not list claims', who: 'visitor', method: 'GET', url: () => resourceUrl(EXPENSE), status: 403, excType: 'PermissionError' },
      // Notice: All may read, nobody but managers may write.
      { title: 'a Website User lists Notices through role All', who: 'visitor', method: 'GET', url: () => resourceUrl(NOTICE), status: 200 },
      { title: 'a Website User reads a Notice', who: 'visitor', method: 'GET', url: () => resourceUrl(NOTICE, names.notice), status: 200 },
      {
        title: 'a Website User may not create a Notice',
        who: 'visitor',
        method: 'POST',
        url: () => resourceUrl(NOTICE),
        body: () => ({ title: 'x' }),
        status: 403,
        excType: 'PermissionError',
      },
      { title: 'Guest does not hold All', who: 'guest', method: 'GET', url: () => resourceUrl(NOTICE), status: 403, excType: 'PermissionError' },
    ];

    describe('every action, allowed and refused', () => {
      for (const s of scenarios) {
        test(`${s.title} (${s.status})`, async () => {
          const res = await as(s.who, { method: s.method, url: s.url(), ...(s.body ? { body: s.body() } : {}) });
          if (s.excType) assertError(res, s.status, s.excType);
          else assert.equal(res.statusCode, s.status, res.body);
        });
      }

      test('a refused update or delete leaves the document as it was', async () => {
        const before = await readDoc(t, EXPENSE, names.managerClaim);
        await as('clerk', { method: 'PUT', url: resourceUrl(EXPENSE, names.managerClaim), body: { amount: 1 } });
        await as('clerk', { method: 'DELETE', url: resourceUrl(EXPENSE, names.managerClaim) });
        assert.deepEqual(await readDoc(t, EXPENSE, names.managerClaim), before);
      });

      test('a System Manager deletes a Case File, and a Clerk deletes their own claim', async () => {
        const doomed = await insertDoc(t, CASE_FILE, { title: 'Doomed' });
        assert.equal((await as('manager', { method: 'DELETE', url: resourceUrl(CASE_FILE, doomed.name) })).statusCode, 202);
        const own = dataOf(await as('clerk', { method: 'POST', url: resourceUrl(EXPENSE), body: { title: 'Bus' } }));
        assert.equal((await as('clerk', { method: 'DELETE', url: resourceUrl(EXPENSE, own.name) })).statusCode, 202);
      });
    });

    describe('row conditions in lists and counts', () => {
      test('an if_owner grant lists only the own claims; the manager lists all', async () => {
        const clerkRows = dataOf(await as('clerk', { method: 'GET', url: resourceUrl(EXPENSE) + query({ fields: ['name', 'owner'], limit_page_length: 0 }) }));
        assert.ok(clerkRows.length >= 1);
        assert.ok(
          clerkRows.every((r: Json) => r.owner === 'clerk@example.com'),
          JSON.stringify(clerkRows),
        );
        assert.ok(clerkRows.some((r: Json) => r.name === names.clerkClaim));
        const managerRows = dataOf(await as('manager', { method: 'GET', url: resourceUrl(EXPENSE) + query({ limit_page_length: 0 }) }));
        assert.ok(managerRows.some((r: Json) => r.name === names.managerClaim));
      });

      test('an if_owner grant counts only the own claims, filters included', async () => {
        const count = async (who: Who, filters: unknown) =>
          (await as(who, { method: 'GET', url: COUNT_URL + query({ doctype: EXPENSE, filters }) })).json().message as number;
        const own = dataOf(await as('clerk', { method: 'GET', url: resourceUrl(EXPENSE) + query({ limit_page_length: 0 }) })).length;
        assert.equal(await count('clerk', []), own);
        assert.equal(await count('clerk', [['title', '=', 'Hotel']]), 0);
        assert.equal(await count('manager', [['title', '=', 'Hotel']]), 1);
      });

      test('fw.client.get_list applies the same row conditions', async () => {
        const res = await as('clerk', {
          method: 'GET',
          url: '/api/method/fw.client.get_list' + query({ doctype: EXPENSE, fields: ['owner'], limit_page_length: 0 }),
        });
        assert.equal(res.statusCode, 200, res.body);
        const rows = res.json().message as Json[];
        assert.ok(rows.length >= 1 && rows.every((r) => r.owner === 'clerk@example.com'));
      });
    });

    describe('permlevel', () => {
      test('a read hides permlevel-1 fields from a Clerk and shows them to a System Manager', async () => {
        const clerkView = dataOf(await as('clerk', { method: 'GET', url: resourceUrl(CASE_FILE, names.alpha) }));
        assert.equal(clerkView.title, 'Alpha');
        assert.ok(!('salary' in clerkView) && !('grade' in clerkView), JSON.stringify(clerkView));
        const v2View = dataOf(await as('clerk', { method: 'GET', url: resourceUrl(CASE_FILE, names.alpha, '/api/v2/document') }));
        assert.ok(!('salary' in v2View), 'v2 bodies, which keep nulls, do not carry it either');
        const managerView = dataOf(await as('manager', { method: 'GET', url: resourceUrl(CASE_FILE, names.alpha) }));
        assert.equal(managerView.salary, 1000);
        assert.equal(managerView.grade, 'A');
      });

      test('list `*` leaves permlevel-1 columns out, and explicit ones are dropped silently', async () => {
        const star = dataOf(await as('clerk', { method: 'GET', url: resourceUrl(CASE_FILE) + query({ fields: ['*'] }) }));
        assert.ok(star.length > 0 && star.every((r: Json) => !('salary' in r) && 'title' in r), JSON.stringify(star[0]));
        const explicit = dataOf(await as('clerk', { method: 'GET', url: resourceUrl(CASE_FILE) + query({ fields: ['title', 'salary'] }) }));
        assert.ok(
          explicit.every((r: Json) => Object.keys(r).join() === 'title'),
          JSON.stringify(explicit),
        );
        const managerRows = dataOf(await as('manager', { method: 'GET', url: resourceUrl(CASE_FILE) + query({ fields: ['title', 'salary'] }) }));
        assert.ok(managerRows.some((r: Json) => r.salary === 1000));
      });

      const refused: Array<[string, () => string]> = [
        ['a filter', () => resourceUrl(CASE_FILE) + query({ filters: [['salary', '>', 0]] })],
        ['an order_by', () => resourceUrl(CASE_FILE) + query({ order_by: 'salary desc' })],
        ['a count filter', () => COUNT_URL + query({ doctype: CASE_FILE, filters: { salary: 1000 } })],
      ];
      for (const [what, url] of refused) {
        test(`${what} on a permlevel-1 field is a 403 for a Clerk`, async () => {
          assertError(await as('clerk', { method: 'GET', url: url() }), 403, 'PermissionError');
          assert.equal((await as('manager', { method: 'GET', url: url() })).statusCode, 200);
        });
      }

      test('a Clerk creating with permlevel-1 values gets the defaults instead', async () => {
        const res = await as('clerk', { method: 'POST', url: resourceUrl(CASE_FILE), body: { title: 'Delta', salary: 999, grade: 'Z' } });
        const created = dataOf(res);
        assert.ok(!('salary' in created) && !('grade' in created), 'the answer hides them too');
        const stored = await readDoc(t, CASE_FILE, created.name);
        assert.equal(stored.title, 'Delta');
        assert.equal(stored.salary ?? 0, 0, 'salary was not stored: it holds the empty value of a Currency');
        assert.equal(stored.grade, 'B', 'grade took its default');
      });

      test('a Clerk updating permlevel-1 values keeps the stored ones; a System Manager changes them', async () => {
        const res = await as('clerk', { method: 'PUT', url: resourceUrl(CASE_FILE, names.alpha), body: { title: 'Alpha 2', salary: 1, grade: 'Z' } });
        assert.equal(dataOf(res).title, 'Alpha 2');
        let stored = await readDoc(t, CASE_FILE, names.alpha);
        assert.deepEqual([stored.title, stored.salary, stored.grade], ['Alpha 2', 1000, 'A']);
        dataOf(await as('manager', { method: 'PUT', url: resourceUrl(CASE_FILE, names.alpha), body: { salary: 1500 } }));
        stored = await readDoc(t, CASE_FILE, names.alpha);
        assert.equal(stored.salary, 1500);
      });
    });
  });
}
