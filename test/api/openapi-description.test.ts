import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { validate } from '@readme/openapi-parser';
import { testDialects } from '../helpers/dialects.js';
import { dataOf, resourceUrl, v2Url, type Json } from '../helpers/document-api.js';
import { assertMatchesDescription, fetchDescription, type OpenApi } from '../helpers/openapi-check.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';

const CHILD = 'Every Row';
const PARENT = 'Every Type';

/** One field of every field type the site knows, with the options each needs. */
function everyField(types: readonly string[]): Json[] {
  const options: Record<string, string> = {
    Link: 'User',
    'Dynamic Link': 'link_doctype',
    Select: 'Low\nHigh',
    Table: CHILD,
    'Table MultiSelect': CHILD,
  };
  const fields: Json[] = [
    { fieldname: 'title', fieldtype: 'Data', reqd: 1 },
    { fieldname: 'link_doctype', fieldtype: 'Link', options: 'DocType' },
  ];
  for (const type of types) {
    const fieldname = `f_${type.toLowerCase().replace(/[^a-z]+/g, '_')}`;
    fields.push({ fieldname, fieldtype: type, ...(options[type] ? { options: options[type] } : {}) });
  }
  fields.push({ fieldname: 'email', fieldtype: 'Data', options: 'Email' }, { fieldname: 'site_url', fieldtype: 'Data', options: 'URL' });
  return fields;
}

for (const dialect of testDialects()) {
  describe(`OpenAPI description (${dialect.name})`, () => {
    let t: TestSite;
    let spec: OpenApi;
    before(async () => {
      t = await startTestSite(dialect);
      dataOf(
        await t.request({
          method: 'POST',
          url: '/api/resource/DocType',
          body: {
            name: CHILD,
            istable: 1,
            fields: [
              { fieldname: 'note', fieldtype: 'Data', reqd: 1 },
              { fieldname: 'qty', fieldtype: 'Int' },
            ],
          },
        }),
      );
      dataOf(
        await t.request({
          method: 'POST',
          url: '/api/resource/DocType',
          body: {
            name: PARENT,
            is_submittable: 1,
            fields: everyField(t.site.metas.types.names()),
            permissions: [{ role: 'System Manager', submit: 1, cancel: 1, amend: 1 }],
          },
        }),
      );
      spec = await fetchDescription(t);
    });
    after(() => t.close());

    test('the description of a site with every field type is valid OpenAPI 3.1', async () => {
      assert.equal(spec.openapi, '3.1.0');
      const result = await validate(structuredClone(spec) as never);
      assert.ok(result.valid, JSON.stringify(result, null, 1).slice(0, 4000));
    });

    test('the YAML form holds the same description', async () => {
      const { parse } = await import('yaml');
      const res = await t.request({ method: 'GET', url: '/api/openapi.yaml' });
      assert.equal(res.statusCode, 200);
      assert.match(String(res.headers['content-type']), /^application\/yaml/);
      assert.deepEqual(parse(res.body), spec);
    });

    test('field types map to the JSON Schema of the values fw sends', () => {
      const key = 'EveryType';
      const read = spec.components.schemas[key];
      const p = read.properties;
      assert.deepEqual(p.f_select.enum, ['Low', 'High', null]);
      assert.equal(p.f_link['x-fw-link'], 'User');
      assert.equal(p.f_dynamic_link['x-fw-dynamic-link'], 'link_doctype');
      assert.deepEqual(p.f_check.enum, [0, 1, null]);
      assert.deepEqual(p.f_int.type, ['integer', 'null']);
      assert.deepEqual(p.f_float.type, ['number', 'null']);
      assert.equal(p.f_date.format, 'date');
      assert.ok(new RegExp(p.f_datetime.pattern).test('2031-02-03 04:05:06'));
      assert.ok(new RegExp(p.f_datetime.pattern).test('2031-02-03 04:05:06.123456'));
      assert.ok(!new RegExp(p.f_datetime.pattern).test('2031-02-03T04:05:06Z'), 'fw sends a space, not RFC 3339');
      assert.deepEqual(p.f_table, { type: 'array', items: { $ref: '#/components/schemas/EveryRow' }, 'x-fw-child-doctype': CHILD, 'x-fw-fieldtype': 'Table' });
      assert.equal(p.f_table_multiselect.items.$ref, '#/components/schemas/EveryRow');
      assert.equal(p.f_section_break, undefined, 'layout fields are left out');
      assert.equal(p.f_column_break, undefined);
      assert.equal(p.creation.readOnly, true);
      assert.equal(p.site_url.format, 'uri');
      assert.deepEqual(p.docstatus.enum, [0, 1, 2]);
      assert.deepEqual(read.required, ['name', 'owner', 'creation', 'modified', 'modified_by', 'docstatus', 'idx', 'doctype']);
      const create = spec.components.schemas[`${key}Create`];
      assert.deepEqual(create.required, ['title'], 'required on create only');
      assert.equal(spec.components.schemas[`${key}Update`].required, undefined);
      assert.equal(create.properties.f_table.items.$ref, '#/components/schemas/EveryRowCreate');
      assert.deepEqual(spec.components.schemas.EveryRow.required.slice(-3), ['parent', 'parentfield', 'parenttype']);
      assert.deepEqual(spec.components.schemas.EveryRowCreate.required, ['note']);
    });

    test('each DocType has concrete v1 and v2 paths; child DocTypes have none', () => {
      const encoded = encodeURIComponent(PARENT);
      for (const path of [`/api/resource/${encoded}`, `/api/v2/document/${encoded}`]) {
        assert.deepEqual(Object.keys(spec.paths[path]).sort(), ['get', 'post']);
        assert.deepEqual(Object.keys(spec.paths[`${path}/{name}`]).sort(), path.includes('v2') ? ['delete', 'get', 'patch', 'put'] : ['delete', 'get', 'put']);
      }
      assert.equal(spec.paths[`/api/resource/${encodeURIComponent(CHILD)}`], undefined);
      assert.ok(spec.paths['/api/resource/{doctype}/{name}']);
      const single = spec.paths['/api/resource/System%20Settings/System%20Settings'];
      assert.deepEqual(Object.keys(single).sort(), ['get', 'put']);
    });

    test('every status of the error catalogue has a response with its classes', () => {
      const responses = spec.components.responses;
      for (const status of [400, 401, 403, 404, 405, 409, 413, 416, 417, 429, 500, 503]) {
        assert.ok(responses[`Error${status}`], `Error${status}`);
        assert.ok(responses[`ErrorV2_${status}`], `ErrorV2_${status}`);
      }
      const e417 = responses.Error417.content['application/json'].schema.allOf[1].properties.exc_type.enum;
      assert.ok(e417.includes('MandatoryError') && e417.includes('FrappeTypeError') && !e417.includes('PermissionError'));
      assert.deepEqual(Object.keys(spec.components.securitySchemes).sort(), ['basicAuth', 'cookieAuth', 'metricsToken', 'tokenAuth']);
      assert.equal(spec.components.securitySchemes.cookieAuth.name, 'sid');
    });

    test('a document with a value in every field reads back as its schema says, on v1 and v2', async () => {
      const doc = dataOf(
        await t.request({
          method: 'POST',
          url: resourceUrl(PARENT),
          body: {
            title: 'All',
            link_doctype: 'User',
            f_data: 'x',
            f_link: 'Administrator',
            f_dynamic_link: 'Administrator',
            f_select: 'High',
            f_check: 1,
            f_int: 3,
            f_long_int: 9007199254740991,
            f_float: 1.5,
            f_currency: 2.25,
            f_percent: 50,
            f_duration: 60,
            f_rating: 0.8,
            f_date: '2031-02-03',
            f_datetime: '2031-02-03T04:05:06.5Z',
            f_time: '04:05:06',
            f_json: { a: [1, 2] },
            f_password: 'secret-Value-1',
            f_attach: '/files/a.pdf',
            f_text_editor: '<p>Hi</p>',
            f_geolocation: '{"type":"FeatureCollection","features":[]}',
            email: 'a@example.com',
            site_url: 'https://example.com/x',
            f_table: [{ note: 'one', qty: 1 }],
            f_table_multiselect: [{ note: 'two' }],
          },
        }),
      );
      const encoded = encodeURIComponent(PARENT);
      const v1 = await t.request({ method: 'GET', url: resourceUrl(PARENT, doc.name) });
      assertMatchesDescription(spec, v1, 'GET', `/api/resource/${encoded}/{name}`);
      const v2 = await t.request({ method: 'GET', url: v2Url(PARENT, doc.name) });
      assertMatchesDescription(spec, v2, 'GET', `/api/v2/document/${encoded}/{name}`);
      assert.ok(Object.values(v2.json().data).includes(null), 'v2 keeps null fields, which the schema admits');
      const list = await t.request({ method: 'GET', url: `${resourceUrl(PARENT)}?fields=${encodeURIComponent('["*"]')}` });
      assertMatchesDescription(spec, list, 'GET', `/api/resource/${encoded}`);
      // The check is not a formality: a value of the wrong type or an undescribed key fails it.
      for (const change of [{ f_check: 'yes' }, { f_datetime: '2031-02-03T04:05:06Z' }, { surprise: 1 }]) {
        const body = JSON.stringify({ data: { ...v1.json().data, ...change } });
        assert.throws(() => assertMatchesDescription(spec, { ...v1, body }, 'GET', `/api/resource/${encoded}/{name}`), /does not match/);
      }
    });
  });
}
