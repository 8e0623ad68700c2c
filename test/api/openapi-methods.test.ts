import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/dialects.js';
import { dataOf } from '../helpers/document-api.js';
import { assertMatchesDescription, fetchDescription } from '../helpers/openapi-check.js';
import { query } from '../helpers/permission-users.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';

const SUM = 'fw.test_openapi.sum';

for (const dialect of testDialects()) {
  describe(`method parameters as JSON Schema, and discovery (${dialect.name})`, () => {
    let t: TestSite;
    before(async () => {
      t = await startTestSite(dialect);
      t.site.methods.register(SUM, async ({ args }) => Number(args.a) + Number(args.b ?? 0) + ((args.extra as number[] | undefined)?.length ?? 0), {
        methods: ['GET', 'POST'],
        description: 'Adds two numbers.\nAnd counts the extras.',
        params: {
          type: 'object',
          properties: {
            a: { type: 'integer', description: 'The first.' },
            b: { type: 'integer', minimum: 0, default: 0 },
            extra: { type: 'array', items: { type: 'integer' } },
          },
          required: ['a'],
        },
      });
    });
    after(() => t.close());

    test('arguments are coerced from text, then checked against the schema', async () => {
      const ok = await t.request({ method: 'GET', url: `/api/method/${SUM}${query({ a: '2', b: '3', extra: [1, 2] })}` });
      assert.equal(ok.statusCode, 200, ok.body);
      assert.deepEqual(ok.json(), { message: 7 });
      const posted = await t.request({ method: 'POST', url: `/api/method/${SUM}`, body: { a: 1, b: 1, unknown: 'passes through' } });
      assert.deepEqual(posted.json(), { message: 2 });
    });

    test('a bad argument is 417 FrappeTypeError naming the parameter', async () => {
      const cases: Array<[Record<string, unknown>, RegExp]> = [
        [{ a: 'x' }, /Argument a must be an integer/],
        [{ a: 1, b: -1 }, /Argument b must be >= 0/],
        [{ a: 1, extra: [1, 'two'] }, /Argument extra \(at 1\) must be integer/],
        [{ b: 1 }, /Missing required argument: a/],
      ];
      for (const [body, message] of cases) {
        const res = await t.request({ method: 'POST', url: `/api/method/${SUM}`, body });
        assert.equal(res.statusCode, 417, res.body);
        assert.equal(res.json().exc_type, 'FrappeTypeError');
        assert.match(res.json().exception, message);
      }
    });

    test('the built-in methods are annotated: a bad fw.client or login argument names the parameter', async () => {
      const list = await t.request({ method: 'POST', url: '/api/method/frappe.client.get_list', body: { doctype: 'ToDo', fields: 5 } });
      assert.equal(list.statusCode, 417);
      assert.match(list.json().exception, /Argument fields must be array or string/);
      const login = await t.request({ method: 'POST', url: '/api/method/login', anonymous: true, body: { usr: { $ne: '' }, pwd: 'x' } });
      assert.equal(login.statusCode, 417);
      assert.match(login.json().exception, /Argument usr must be a string/);
      const v2 = await t.request({ method: 'POST', url: '/api/v2/method/fw.client.get_count', body: { doctype: ['ToDo'] } });
      assert.equal(v2.statusCode, 417);
      assert.equal(v2.json().errors[0].type, 'FrappeTypeError');
    });

    test('the description takes each method from its schema', async () => {
      const spec = await fetchDescription(t);
      const post = spec.paths[`/api/method/${SUM}`].post;
      assert.equal(post.summary, 'Adds two numbers.');
      assert.equal(post.description.split(' ')[0], 'And');
      const body = post.requestBody.content['application/json'].schema;
      assert.deepEqual(body.required, ['a']);
      assert.equal(body.properties.b.minimum, 0);
      const get = spec.paths[`/api/method/${SUM}`].get;
      assert.deepEqual(
        get.parameters.map((p: { name: string; required?: boolean }) => [p.name, p.required ?? false]),
        [
          ['a', true],
          ['b', false],
          ['extra', false],
        ],
      );
      assert.equal(spec.paths[`/api/method/${SUM}`].put, undefined, 'only the verbs the method takes');
      assert.equal(spec.paths['/api/method/fw.client.get_list'].post.summary, 'Rows of a DocType the caller may read.');
      const getList = spec.paths['/api/method/fw.client.get_list'].post.requestBody.content['application/json'].schema;
      assert.deepEqual(getList.required, ['doctype']);
      assert.ok(getList.properties.filters.description);
      const res = await t.request({ method: 'POST', url: `/api/method/${SUM}`, body: { a: 'x' } });
      assertMatchesDescription(spec, res, 'POST', `/api/method/${SUM}`);
    });

    test('/api/v2/discovery answers the reference shapes from the same schemas', async () => {
      const spec = await fetchDescription(t);
      const root = await t.request({ method: 'GET', url: '/api/v2/discovery' });
      assertMatchesDescription(spec, root, 'GET', '/api/v2/discovery');
      assert.equal(root.json().data.type, 'discovery');
      assert.equal(root.json().data.links.method, '/api/v2/discovery/method/{method}');

      const index = await t.request({ method: 'GET', url: '/api/v2/discovery/method' });
      assertMatchesDescription(spec, index, 'GET', '/api/v2/discovery/method');
      const paths = index.json().data.methods.map((m: { path: string }) => m.path);
      assert.ok(paths.includes('fw.client.get_list') && paths.includes(SUM));
      assert.equal(root.json().data.resources.methods, paths.length);

      const doc = await t.request({ method: 'GET', url: '/api/v2/discovery/method/frappe.client.get_list' });
      assertMatchesDescription(spec, doc, 'GET', '/api/v2/discovery/method/{method}');
      const data = doc.json().data;
      assert.equal(data.path, 'fw.client.get_list');
      assert.equal(data.endpoint, '/api/v2/method/fw.client.get_list');
      const doctype = data.params.find((p: { name: string }) => p.name === 'doctype');
      assert.deepEqual([doctype.required, doctype.type, doctype.schema.type], [true, 'string', 'string']);
      assert.equal(data.params.find((p: { name: string }) => p.name === 'fields').type, 'array | string');
      assert.equal(data.returns.type, 'array', 'what the method returns, when declared');

      const sum = (await t.request({ method: 'GET', url: `/api/v2/discovery/method/${SUM}` })).json().data;
      assert.equal(sum.docstring, 'Adds two numbers.\nAnd counts the extras.');
      assert.deepEqual(sum.http_methods, ['GET', 'POST']);
      assert.equal(sum.params.find((p: { name: string }) => p.name === 'b').default, 0);

      const search = await t.request({ method: 'GET', url: `/api/v2/discovery/search${query({ q: 'adds NUMBERS' })}` });
      assertMatchesDescription(spec, search, 'GET', '/api/v2/discovery/search');
      assert.deepEqual(
        search.json().data.results.map((r: { path: string }) => r.path),
        [SUM],
      );
    });

    test("/api/v2/discovery/doctype lists a DocType's document methods, those of every DocType that apply included", async () => {
      const spec = await fetchDescription(t);
      const todo = await t.request({ method: 'GET', url: '/api/v2/discovery/doctype/ToDo' });
      assertMatchesDescription(spec, todo, 'GET', '/api/v2/discovery/doctype/{doctype}');
      const names = (todo.json().data.methods as Array<{ method: string }>).map((m) => m.method);
      assert.ok(names.includes('add_comment'));
      assert.ok(!names.includes('submit'), 'ToDo is not submittable');
      dataOf(
        await t.request({
          method: 'POST',
          url: '/api/resource/DocType',
          body: {
            name: 'Discovered Voucher',
            is_submittable: 1,
            fields: [{ fieldname: 'amount', fieldtype: 'Currency' }],
            permissions: [{ role: 'System Manager', submit: 1, cancel: 1 }],
          },
        }),
      );
      const voucher = (await t.request({ method: 'GET', url: '/api/v2/discovery/doctype/Discovered%20Voucher' })).json().data;
      assert.deepEqual(
        voucher.methods.map((m: { method: string }) => m.method),
        ['add_comment', 'cancel', 'discard', 'submit'],
      );
      const submit = await t.request({ method: 'GET', url: '/api/v2/discovery/doctype/Discovered%20Voucher/method/submit' });
      assertMatchesDescription(spec, submit, 'GET', '/api/v2/discovery/doctype/{doctype}/method/{method}');
      assert.deepEqual(submit.json().data.http_methods, ['POST']);
      assert.equal(submit.json().data.endpoint, '/api/v2/document/Discovered%20Voucher/{name}/method/submit');
      const refusals: Array<[string, boolean, number]> = [
        ['/api/v2/discovery/doctype/ToDo', true, 403],
        ['/api/v2/discovery/doctype/No%20Such%20Thing', false, 404],
        ['/api/v2/discovery/doctype/Has%20Role', false, 404],
        ['/api/v2/discovery/doctype/ToDo/method/submit', false, 404],
      ];
      for (const [url, anonymous, status] of refusals) {
        const res = await t.request({ method: 'GET', url, anonymous });
        assert.equal(res.statusCode, status, `${url}: ${res.body}`);
        assertMatchesDescription(
          spec,
          res,
          'GET',
          url.includes('/method/') ? '/api/v2/discovery/doctype/{doctype}/method/{method}' : '/api/v2/discovery/doctype/{doctype}',
        );
      }
    });

    test('Guest discovers only the methods Guest may call', async () => {
      const index = await t.request({ method: 'GET', url: '/api/v2/discovery/method', anonymous: true });
      const methods = index.json().data.methods as Array<{ path: string; allow_guest: boolean }>;
      assert.ok(methods.length > 0 && methods.every((m) => m.allow_guest));
      assert.ok(methods.some((m) => m.path === 'login'));
      const hidden = await t.request({ method: 'GET', url: '/api/v2/discovery/method/fw.client.get_list', anonymous: true });
      assert.equal(hidden.statusCode, 404);
      assert.equal(hidden.json().errors[0].type, 'DoesNotExistError');
      const login = (await t.request({ method: 'GET', url: '/api/v2/discovery/method/login', anonymous: true })).json().data;
      assert.deepEqual(
        login.params.map((p: { name: string }) => p.name),
        ['usr', 'pwd', 'otp', 'tmp_id'],
      );
    });
  });
}
