import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FrappeApp } from 'frappe-js-sdk';
import { testDialects } from '../helpers/dialects.js';
import { decodeServerMessages } from '../helpers/error-envelope.js';
import { keepCookies } from '../helpers/sdk-cookie-jar.js';
import { ADMIN_PASSWORD, startTestSite, type TestSite } from '../helpers/test-site.js';

/*
 * The real client, over real HTTP: frappe-js-sdk (axios) against a listening server. Documents go
 * through token auth (axios in Node keeps no cookies); password login is tested on its own and,
 * with a small cookie jar standing in for the browser, as a whole session.
 */

interface ToDo {
  name: string;
  description: string;
  status: string;
  priority: string;
  modified: string;
  doctype?: string;
}

/** What the SDK throws: the error body spread, plus the HTTP status. */
interface SdkError {
  httpStatus: number;
  message: string;
  exception: string;
  exc_type?: string;
  _server_messages?: string;
}

/** Awaits a call that must fail and returns the SDK's error object. */
async function sdkError(call: Promise<unknown>): Promise<SdkError> {
  try {
    await call;
  } catch (err) {
    return err as SdkError;
  }
  assert.fail('the call was expected to fail');
}

for (const dialect of testDialects()) {
  describe(`frappe-js-sdk against a listening server (${dialect.name})`, () => {
    let t: TestSite;
    let url: string;
    let tokenApp: FrappeApp;
    before(async () => {
      t = await startTestSite(dialect);
      await t.app.listen({ host: '127.0.0.1', port: 0 });
      url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
      const token = t.adminAuth.slice('token '.length);
      tokenApp = new FrappeApp(url, { useToken: true, token: () => token, type: 'token' });
    });
    after(() => t.close());

    describe('auth', () => {
      test('loginWithUsernamePassword returns the login body', async () => {
        const body = await new FrappeApp(url).auth().loginWithUsernamePassword({ username: 'Administrator', password: ADMIN_PASSWORD });
        assert.deepEqual(body, { message: 'Logged In', home_page: '/app', full_name: 'Administrator' });
      });

      test('loginWithUsernamePassword by email works too', async () => {
        const body = await new FrappeApp(url).auth().loginWithUsernamePassword({ username: 'admin@example.com', password: ADMIN_PASSWORD });
        assert.equal(body.message, 'Logged In');
      });

      test('a wrong password rejects with status 401 and the server message', async () => {
        const err = await sdkError(new FrappeApp(url).auth().loginWithUsernamePassword({ username: 'Administrator', password: 'not-the-password' }));
        assert.equal(err.httpStatus, 401);
        assert.equal(err.message, 'Invalid login credentials');
        assert.equal(err.exc_type, 'AuthenticationError');
        assert.match(err.exception, /AuthenticationError/);
      });

      test('getLoggedInUser with an API token is the Administrator', async () => {
        assert.equal(await tokenApp.auth().getLoggedInUser(), 'Administrator');
      });

      test('a session kept in cookies: login, getLoggedInUser, a document, logout, then Guest', async () => {
        const app = new FrappeApp(url);
        const jar = keepCookies(app);
        await app.auth().loginWithUsernamePassword({ username: 'Administrator', password: ADMIN_PASSWORD });
        assert.ok(jar.get('sid'), 'the server set a sid');
        assert.equal(jar.get('user_id'), 'Administrator');
        assert.equal(await app.auth().getLoggedInUser(), 'Administrator');

        const doc = await app.db().createDoc<ToDo>('ToDo', { description: 'made in a cookie session' } as ToDo);
        assert.equal((await app.db().getDoc<ToDo>('ToDo', doc.name)).description, 'made in a cookie session');

        await app.auth().logout();
        assert.equal(jar.get('sid'), undefined, 'logout expired the sid');
        const err = await sdkError(app.auth().getLoggedInUser());
        assert.equal(err.httpStatus, 403);
        assert.equal(err.exc_type, 'PermissionError');
      });
    });

    describe('documents', () => {
      test('createDoc, getDoc, updateDoc and deleteDoc round-trip a ToDo', async () => {
        const db = tokenApp.db();
        const created = await db.createDoc<ToDo>('ToDo', { description: 'SDK round trip', priority: 'High' } as ToDo);
        assert.equal(typeof created.name, 'string');
        assert.equal(created.doctype, 'ToDo');
        assert.equal(created.description, 'SDK round trip');
        assert.equal(created.status, 'Open', 'defaults are applied');
        assert.equal(created.priority, 'High');
        assert.equal(created.owner, 'Administrator');

        const read = await db.getDoc<ToDo>('ToDo', created.name);
        assert.equal(read.name, created.name);
        assert.equal(read.modified, created.modified);

        const updated = await db.updateDoc<ToDo>('ToDo', created.name, { status: 'Closed' } as ToDo);
        assert.equal(updated.status, 'Closed');
        assert.equal(updated.description, 'SDK round trip', 'fields not sent are kept');
        assert.ok(updated.modified > created.modified, `modified moves on: ${created.modified} -> ${updated.modified}`);
        assert.equal((await db.getDoc<ToDo>('ToDo', created.name)).status, 'Closed');

        const deleted = await db.deleteDoc('ToDo', created.name);
        assert.deepEqual(deleted, { message: 'ok' });
        const err = await sdkError(db.getDoc('ToDo', created.name));
        assert.equal(err.httpStatus, 404);
        assert.equal(err.exc_type, 'DoesNotExistError');
        assert.ok(decodeServerMessages(err._server_messages).length >= 1, 'the SDK error carries decodable server messages');
      });

      test('updateDoc of a missing document rejects with 404', async () => {
        const err = await sdkError(tokenApp.db().updateDoc('ToDo', 'no-such-todo', { status: 'Closed' }));
        assert.equal(err.httpStatus, 404);
        assert.equal(err.exc_type, 'DoesNotExistError');
      });

      test('createDoc without the required description rejects with 417 MandatoryError', async () => {
        const err = await sdkError(tokenApp.db().createDoc('ToDo', { status: 'Open' }));
        assert.equal(err.httpStatus, 417);
        assert.equal(err.exc_type, 'MandatoryError');
      });
    });

    describe('lists and counts', () => {
      const marker = `sdk-list-${dialect.name}`;
      const rows = [
        { description: `${marker} c`, priority: 'High' },
        { description: `${marker} a`, priority: 'High' },
        { description: `${marker} e`, priority: 'Low' },
        { description: `${marker} b`, priority: 'High' },
        { description: `${marker} d`, priority: 'Medium' },
      ];
      const mine = [['description', 'like', `${marker}%`]] as [string, 'like', string][];
      before(async () => {
        for (const r of rows) await tokenApp.db().createDoc('ToDo', r);
      });

      test('getDocList honours fields, filters, orderBy and limit', async () => {
        const list = await tokenApp.db().getDocList<ToDo>('ToDo', {
          fields: ['name', 'description', 'priority'],
          filters: [...mine, ['priority', '=', 'High']],
          orderBy: { field: 'description', order: 'asc' },
          limit: 2,
        });
        assert.deepEqual(
          list.map((r) => [r.description, r.priority]),
          [
            [`${marker} a`, 'High'],
            [`${marker} b`, 'High'],
          ],
        );
        assert.deepEqual(Object.keys(list[0]).sort(), ['description', 'name', 'priority']);
      });

      test('getDocList pages with limit_start and sorts descending', async () => {
        const page = await tokenApp.db().getDocList<ToDo>('ToDo', {
          fields: ['description'],
          filters: mine,
          orderBy: { field: 'description', order: 'desc' },
          limit_start: 1,
          limit: 2,
        });
        assert.deepEqual(
          page.map((r) => r.description),
          [`${marker} d`, `${marker} c`],
        );
      });

      test('getDocList without orderBy sends an empty order_by, which takes the default order', async () => {
        const list = await tokenApp.db().getDocList<ToDo>('ToDo', { fields: ['description'], filters: mine });
        assert.equal(list.length, rows.length);
        // ToDo sorts by creation descending: the last one created comes first.
        assert.equal(list[0].description, rows[rows.length - 1].description);
      });

      test('getDocList with in and asDict false returns arrays of values', async () => {
        const list = (await tokenApp.db().getDocList('ToDo', {
          fields: ['description', 'priority'],
          filters: [...mine, ['priority', 'in', ['Low', 'Medium']]],
          orderBy: { field: 'description' },
          asDict: false,
        })) as unknown as unknown[][];
        assert.deepEqual(list, [
          [`${marker} d`, 'Medium'],
          [`${marker} e`, 'Low'],
        ]);
      });

      test('getDocList with no arguments returns names', async () => {
        const list = await tokenApp.db().getDocList<ToDo>('ToDo');
        assert.ok(list.length >= rows.length);
        for (const r of list) assert.equal(typeof r.name, 'string');
      });

      test('getCount counts with and without filters', async () => {
        const db = tokenApp.db();
        assert.equal(await db.getCount('ToDo', mine), rows.length);
        assert.equal(await db.getCount('ToDo', [...mine, ['priority', '=', 'High']]), 3);
        const all = await db.getCount('ToDo');
        assert.equal(typeof all, 'number');
        assert.ok(all >= rows.length);
      });

      test('call().get reaches get_count and ping with JSON-encoded arguments', async () => {
        const call = tokenApp.call();
        assert.deepEqual(await call.get('frappe.client.get_count', { doctype: 'ToDo', filters: mine }), { message: rows.length });
        assert.deepEqual(await call.get('ping'), { message: 'pong' });
      });

      test('an unknown field in a filter rejects with 417 DataError', async () => {
        const err = await sdkError(tokenApp.db().getDocList('ToDo', { filters: [['no_such_field', '=', 1]] }));
        assert.equal(err.httpStatus, 417);
        assert.equal(err.exc_type, 'DataError');
      });
    });
  });
}
