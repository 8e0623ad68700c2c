import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/dialects.js';
import { dataOf } from '../helpers/document-api.js';
import { assertMatchesDescription, fetchDescription, type OpenApi } from '../helpers/openapi-check.js';
import { query } from '../helpers/permission-users.js';
import { ADMIN_PASSWORD, startTestSite, type TestSite } from '../helpers/test-site.js';

/*
 * Real answers, success and error, checked against the description's schema for their operation
 * and status (the anti-drift promise of docs/openapi.md): any mismatch fails.
 */
for (const dialect of testDialects()) {
  describe(`answers match the description (${dialect.name})`, () => {
    let t: TestSite;
    let spec: OpenApi;
    before(async () => {
      t = await startTestSite(dialect);
      spec = await fetchDescription(t);
    });
    after(() => t.close());

    test('v1 insert, read, list, update and delete', async () => {
      const inserted = await t.request({ method: 'POST', url: '/api/resource/ToDo', body: { description: 'Check the spec', priority: 'High' } });
      assertMatchesDescription(spec, inserted, 'POST', '/api/resource/ToDo');
      const name = dataOf(inserted).name as string;
      assertMatchesDescription(spec, await t.request({ method: 'GET', url: `/api/resource/ToDo/${name}` }), 'GET', '/api/resource/ToDo/{name}');
      const list = await t.request({ method: 'GET', url: `/api/resource/ToDo${query({ fields: ['*'] })}` });
      assertMatchesDescription(spec, list, 'GET', '/api/resource/ToDo');
      const rows = await t.request({ method: 'GET', url: `/api/resource/ToDo${query({ fields: ['name', 'count(*) as n'], group_by: 'name', as_dict: '0' })}` });
      assertMatchesDescription(spec, rows, 'GET', '/api/resource/ToDo');
      const updated = await t.request({ method: 'PUT', url: `/api/resource/ToDo/${name}`, body: { status: 'Closed' } });
      assertMatchesDescription(spec, updated, 'PUT', '/api/resource/ToDo/{name}');
      const deleted = await t.request({ method: 'DELETE', url: `/api/resource/ToDo/${name}` });
      assert.equal(deleted.statusCode, 202);
      assertMatchesDescription(spec, deleted, 'DELETE', '/api/resource/ToDo/{name}');
    });

    test('v2 documents, count, copy, a document method and bulk deletes', async () => {
      const inserted = await t.request({ method: 'POST', url: '/api/v2/document/ToDo', body: { description: 'v2' } });
      assertMatchesDescription(spec, inserted, 'POST', '/api/v2/document/ToDo');
      const name = dataOf(inserted).name as string;
      assertMatchesDescription(spec, await t.request({ method: 'GET', url: `/api/v2/document/ToDo/${name}` }), 'GET', '/api/v2/document/ToDo/{name}');
      assertMatchesDescription(spec, await t.request({ method: 'GET', url: '/api/v2/document/ToDo?limit=1' }), 'GET', '/api/v2/document/ToDo');
      const patched = await t.request({ method: 'PATCH', url: `/api/v2/document/ToDo/${name}`, body: { description: 'v2 patched' } });
      assertMatchesDescription(spec, patched, 'PATCH', '/api/v2/document/ToDo/{name}');
      assertMatchesDescription(spec, await t.request({ method: 'GET', url: '/api/v2/doctype/ToDo/count' }), 'GET', '/api/v2/doctype/ToDo/count');
      assertMatchesDescription(spec, await t.request({ method: 'GET', url: `/api/v2/document/ToDo/${name}/copy` }), 'GET', '/api/v2/document/ToDo/{name}/copy');
      const comment = await t.request({ method: 'POST', url: `/api/v2/document/ToDo/${name}/method/add_comment`, body: { text: 'noted' } });
      assertMatchesDescription(spec, comment, 'POST', '/api/v2/document/ToDo/{name}/method/{method}');
      assertMatchesDescription(spec, await t.request({ method: 'GET', url: '/api/v2/doctype/ToDo/meta' }), 'GET', '/api/v2/doctype/{doctype}/meta');
      const bulk = await t.request({ method: 'POST', url: '/api/v2/document/ToDo/bulk_delete', body: { names: [name, 'no-such-todo'] } });
      assertMatchesDescription(spec, bulk, 'POST', '/api/v2/document/ToDo/bulk_delete');
      assert.deepEqual([bulk.json().data.success_count, bulk.json().data.failure_count], [1, 1]);
    });

    test('a Single, a User with its child table, and method calls', async () => {
      const single = await t.request({ method: 'GET', url: '/api/resource/System%20Settings/System%20Settings' });
      assertMatchesDescription(spec, single, 'GET', '/api/resource/System%20Settings/System%20Settings');
      const doctype = await t.request({ method: 'GET', url: '/api/resource/DocType/ToDo' });
      assertMatchesDescription(spec, doctype, 'GET', '/api/resource/DocType/{name}');
      const user = await t.request({ method: 'GET', url: '/api/v2/document/User/Administrator' });
      assertMatchesDescription(spec, user, 'GET', '/api/v2/document/User/{name}');
      const list = await t.request({ method: 'POST', url: '/api/method/fw.client.get_list', body: { doctype: 'User', fields: ['name'] } });
      assertMatchesDescription(spec, list, 'POST', '/api/method/fw.client.get_list');
      const count = await t.request({ method: 'GET', url: `/api/v2/method/frappe.client.get_count${query({ doctype: 'User' })}` });
      assertMatchesDescription(spec, count, 'GET', '/api/v2/method/fw.client.get_count');
      const ping = await t.request({ method: 'GET', url: '/api/method/ping', anonymous: true });
      assertMatchesDescription(spec, ping, 'GET', '/api/method/ping');
      const got = await t.request({ method: 'GET', url: `/api/method/fw.client.get${query({ doctype: 'User', name: 'Administrator' })}` });
      assertMatchesDescription(spec, got, 'GET', '/api/method/fw.client.get');
      const login = await t.request({ method: 'POST', url: '/api/method/login', anonymous: true, body: { usr: 'Administrator', pwd: ADMIN_PASSWORD } });
      assertMatchesDescription(spec, login, 'POST', '/api/method/login');
      // Declared results are checked: a count that is not a number fails.
      assert.throws(() => assertMatchesDescription(spec, { ...count, body: '{"data":"7"}' }, 'GET', '/api/v2/method/fw.client.get_count'), /does not match/);
    });

    test('errors 403, 404, 409 and 417 in both bodies', async () => {
      const cases: Array<[Parameters<TestSite['request']>[0], number, string]> = [
        [{ method: 'GET', url: '/api/resource/ToDo', anonymous: true }, 403, '/api/resource/ToDo'],
        [{ method: 'GET', url: '/api/v2/document/ToDo', anonymous: true }, 403, '/api/v2/document/ToDo'],
        [{ method: 'GET', url: '/api/resource/ToDo/no-such-todo' }, 404, '/api/resource/ToDo/{name}'],
        [{ method: 'GET', url: '/api/v2/document/ToDo/no-such-todo' }, 404, '/api/v2/document/ToDo/{name}'],
        [{ method: 'POST', url: '/api/resource/Role', body: { role_name: 'System Manager' } }, 409, '/api/resource/Role'],
        [{ method: 'POST', url: '/api/resource/ToDo', body: { priority: 'High' } }, 417, '/api/resource/ToDo'],
        [{ method: 'POST', url: '/api/v2/document/ToDo', body: { description: 'x', priority: 'Urgent!' } }, 417, '/api/v2/document/ToDo'],
        [{ method: 'POST', url: '/api/method/fw.client.get_count', body: { doctype: 'ToDo', filters: 7 } }, 417, '/api/method/fw.client.get_count'],
      ];
      for (const [request, status, path] of cases) {
        const res = await t.request(request);
        assert.equal(res.statusCode, status, `${request.method} ${request.url}: ${res.body}`);
        assertMatchesDescription(spec, res, request.method, path);
      }
      // The error schemas name the classes of each status: a 417 body claiming PermissionError fails.
      const wrong = await t.request({ method: 'POST', url: '/api/resource/ToDo', body: {} });
      const body = JSON.stringify({ ...wrong.json(), exc_type: 'PermissionError' });
      assert.throws(() => assertMatchesDescription(spec, { ...wrong, body }, 'POST', '/api/resource/ToDo'), /does not match/);
    });
  });
}
