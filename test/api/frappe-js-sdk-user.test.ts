import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FrappeApp } from 'frappe-js-sdk';
import { testDialects } from '../helpers/dialects.js';
import { createDocType, insertDoc } from '../helpers/document-api.js';
import { createRole, createUser, USER_PASSWORD } from '../helpers/permission-users.js';
import { keepCookies } from '../helpers/sdk-cookie-jar.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';

/*
 * The real client as an ordinary user: frappe-js-sdk logs in with a password (a small cookie jar
 * stands in for the browser) as a user holding one custom role, then lists, counts and creates what
 * that role permits, and gets the reference's 403 for what it does not.
 */

interface Memo {
  name: string;
  title: string;
  owner: string;
}

/** What the SDK throws: the error body spread, plus the HTTP status. */
interface SdkError {
  httpStatus: number;
  exc_type?: string;
}

async function sdkError(call: Promise<unknown>): Promise<SdkError> {
  try {
    await call;
  } catch (err) {
    return err as SdkError;
  }
  assert.fail('the call was expected to fail');
}

const MEMO = 'Memo';
const SECRET = 'Secret Memo';

for (const dialect of testDialects()) {
  describe(`frappe-js-sdk as a non-admin user (${dialect.name})`, () => {
    let t: TestSite;
    let app: FrappeApp;
    before(async () => {
      t = await startTestSite(dialect);
      await createRole(t, 'Writer');
      await createUser(t, 'sdk-writer@example.com', { roles: ['Writer'] });
      // Writers reach only their own memos; secret memos are for System Managers.
      await createDocType(t, {
        name: MEMO,
        fields: [{ fieldname: 'title', label: 'Title', fieldtype: 'Data' }],
        permissions: [{ role: 'System Manager' }, { role: 'Writer', if_owner: 1 }],
      });
      await createDocType(t, { name: SECRET, fields: [{ fieldname: 'title', label: 'Title', fieldtype: 'Data' }] });
      await insertDoc(t, MEMO, { title: "the Administrator's memo" });

      await t.app.listen({ host: '127.0.0.1', port: 0 });
      app = new FrappeApp(`http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`);
      keepCookies(app);
      await app.auth().loginWithUsernamePassword({ username: 'sdk-writer@example.com', password: USER_PASSWORD });
    });
    after(() => t.close());

    test('the session belongs to the user', async () => {
      assert.equal(await app.auth().getLoggedInUser(), 'sdk-writer@example.com');
    });

    test('createDoc makes a document the role permits, owned by the user', async () => {
      const created = await app.db().createDoc<Memo>(MEMO, { title: 'mine' } as Memo);
      assert.equal(created.title, 'mine');
      assert.equal(created.owner, 'sdk-writer@example.com');
      assert.equal((await app.db().getDoc<Memo>(MEMO, created.name)).title, 'mine');
    });

    test('getDocList and getCount see only the own documents', async () => {
      const list = await app.db().getDocList<Memo>(MEMO, { fields: ['title', 'owner'] });
      assert.deepEqual(
        list.map((m) => [m.title, m.owner]),
        [['mine', 'sdk-writer@example.com']],
      );
      assert.equal(await app.db().getCount(MEMO), 1);
    });

    test('a DocType the role does not reach rejects with 403 PermissionError', async () => {
      // One at a time: a second call made up front could reject before anyone awaits it.
      for (const call of [() => app.db().getDocList(SECRET), () => app.db().createDoc(SECRET, { title: 'x' })]) {
        const err = await sdkError(call());
        assert.equal(err.httpStatus, 403);
        assert.equal(err.exc_type, 'PermissionError');
      }
    });
  });
}
