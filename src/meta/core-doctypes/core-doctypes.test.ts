import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { ValidationError } from '../../errors/index.js';
import { CHILD_FIELDS, PERMISSION_TYPES, STANDARD_FIELDS, type DocPerm, type DocTypeDef } from '../doctype.js';
import { BUILT_IN_DOCTYPES } from '../../site/built-in-doctypes.js';
import { asDocTypeDef } from './index.js';

const KNOWN_ROLES = new Set(['Administrator', 'System Manager', 'All', 'Guest', 'Desk User']);
const byName = new Map(BUILT_IN_DOCTYPES.map((d) => [d.name, d]));

function get(name: string): DocTypeDef {
  const def = byName.get(name);
  assert.ok(def, `${name} is shipped`);
  return def;
}

function field(doctype: string, fieldname: string) {
  const f = get(doctype).fields.find((x) => x.fieldname === fieldname);
  assert.ok(f, `${doctype}.${fieldname} exists`);
  return f;
}

/** The rights a DocPerm row grants, as a sorted list. */
function rights(perm: DocPerm): string[] {
  return PERMISSION_TYPES.filter((r) => perm[r] === 1).sort();
}

function kebab(name: string): string {
  return name
    .replace(/ /g, '')
    .replace(/([a-z])([A-Z])/g, '$1-$2')
    .toLowerCase();
}

describe('core DocType definitions', () => {
  test('ships every built-in DocType, child tables before their parents', () => {
    assert.deepEqual(
      BUILT_IN_DOCTYPES.map((d) => d.name),
      [
        'DocField',
        'DocPerm',
        'DocType',
        'Role',
        'Has Role',
        'User',
        'ToDo',
        'File',
        'User Permission',
        'DocShare',
        'Version',
        'Comment',
        'Deleted Document',
        'System Settings',
        'Scheduled Job Log',
        'Webhook Header',
        'Webhook Data',
        'Webhook',
        'Webhook Request Log',
        'Workflow State',
        'Workflow Action Master',
        'Workflow Document State',
        'Workflow Transition',
        'Workflow',
        'Workflow Action Permitted Role',
        'Workflow Action',
        'Report',
        'Data Import',
        'Data Import Log',
        'Global Search DocType',
        'Global Search Settings',
        'Email Account',
        'Email Queue Recipient',
        'Email Queue',
        'Email Template',
        'Email Unsubscribe',
        'Notification Recipient',
        'Notification',
        'Notification Log',
        'Social Login Key',
        'User Social Login',
        'Tag',
        'Tag Link',
        'Document Follow',
        'View Log',
        'List View Settings',
        'OAuth Client Role',
        'OAuth Client',
        'OAuth Authorization Code',
        'OAuth Bearer Token',
        'OAuth Signing Key',
        'OAuth Provider Settings',
      ],
    );
  });

  test('every JSON file in the folder (and those in src/webhooks/doctypes, src/jobs/doctypes, src/workflows/doctypes, src/reports/doctypes, src/data-import/doctypes, src/search/doctypes, src/mail/doctypes, src/social-login/doctypes, src/collaboration/doctypes, src/user-settings/doctypes and src/oauth/doctypes) is loaded, under the kebab-case of its DocType name', () => {
    const files = [
      ...readdirSync(new URL('.', import.meta.url)),
      ...readdirSync(new URL('../../webhooks/doctypes/', import.meta.url)),
      ...readdirSync(new URL('../../jobs/doctypes/', import.meta.url)),
      ...readdirSync(new URL('../../workflows/doctypes/', import.meta.url)),
      ...readdirSync(new URL('../../reports/doctypes/', import.meta.url)),
      ...readdirSync(new URL('../../data-import/doctypes/', import.meta.url)),
      ...readdirSync(new URL('../../search/doctypes/', import.meta.url)),
      ...readdirSync(new URL('../../mail/doctypes/', import.meta.url)),
      ...readdirSync(new URL('../../social-login/doctypes/', import.meta.url)),
      ...readdirSync(new URL('../../collaboration/doctypes/', import.meta.url)),
      ...readdirSync(new URL('../../user-settings/doctypes/', import.meta.url)),
      ...readdirSync(new URL('../../oauth/doctypes/', import.meta.url)),
    ].filter((f) => f.endsWith('.json'));
    assert.deepEqual(files.sort(), BUILT_IN_DOCTYPES.map((d) => `${kebab(d.name)}.json`).sort());
  });

  test('the loaded definitions are frozen so no importer can change shared metadata', () => {
    const todo = get('ToDo');
    assert.ok(Object.isFrozen(BUILT_IN_DOCTYPES));
    assert.ok(Object.isFrozen(todo.fields[0]));
    assert.throws(() => {
      (todo as { name: string }).name = 'X';
    }, TypeError);
  });

  for (const def of BUILT_IN_DOCTYPES) {
    describe(def.name, () => {
      test('fieldnames are unique, snake_case and never shadow a standard column', () => {
        const seen = new Set<string>();
        const reserved = new Set<string>([...STANDARD_FIELDS, ...CHILD_FIELDS, 'doctype']);
        for (const f of def.fields) {
          assert.match(f.fieldname, /^[a-z][a-z0-9_]*$/);
          assert.ok(!seen.has(f.fieldname), `duplicate fieldname ${f.fieldname}`);
          assert.ok(!reserved.has(f.fieldname), `${f.fieldname} is a standard column`);
          seen.add(f.fieldname);
        }
      });

      test('Table fields point at shipped child DocTypes', () => {
        for (const f of def.fields.filter((x) => x.fieldtype === 'Table' || x.fieldtype === 'Table MultiSelect')) {
          const child = byName.get(f.options ?? '');
          assert.ok(child, `${f.fieldname} options ${f.options} is shipped`);
          assert.equal(child.istable, 1, `${child.name} is a child table`);
        }
      });

      test('Link fields point at shipped DocTypes', () => {
        for (const f of def.fields.filter((x) => x.fieldtype === 'Link')) {
          assert.ok(f.options === 'DocType' || byName.has(f.options ?? ''), `${f.fieldname} links to ${f.options}`);
        }
      });

      test('Dynamic Link fields name a Link-to-DocType field of the same DocType', () => {
        for (const f of def.fields.filter((x) => x.fieldtype === 'Dynamic Link')) {
          const target = def.fields.find((x) => x.fieldname === f.options);
          assert.ok(target, `${f.fieldname} options ${f.options} is a field`);
          assert.equal(target.fieldtype, 'Link');
          assert.equal(target.options, 'DocType');
        }
      });

      test('every fieldtype is one the DocField Type select offers', () => {
        const offered = new Set(field('DocField', 'fieldtype').options?.split('\n'));
        for (const f of def.fields) assert.ok(offered.has(f.fieldtype), `${f.fieldname}: ${f.fieldtype}`);
      });

      test('Select defaults are among their options, and title, search and sort fields exist', () => {
        for (const f of def.fields.filter((x) => x.fieldtype === 'Select' && x.default !== undefined)) {
          assert.ok(f.options?.split('\n').includes(f.default ?? ''), `${f.fieldname} default ${f.default}`);
        }
        const names = new Set(['name', 'creation', 'modified', ...def.fields.map((f) => f.fieldname)]);
        const named = [def.title_field, def.sort_field, ...(def.search_fields ?? '').split(',')];
        for (const n of named.map((x) => x?.trim()).filter(Boolean)) assert.ok(names.has(n as string), `${n} exists`);
      });

      test('permission rows name known roles and spell out every right', () => {
        for (const p of def.permissions ?? []) {
          assert.ok(KNOWN_ROLES.has(p.role), `unknown role ${p.role}`);
          // Missing keys would take the DocPerm defaults (read, write... = 1) when installed.
          for (const key of ['permlevel', 'if_owner', ...PERMISSION_TYPES]) {
            assert.ok(key in p, `${p.role} row lacks ${key}`);
          }
        }
      });

      test('child tables carry no permissions of their own', () => {
        if (def.istable === 1) assert.deepEqual(def.permissions ?? [], []);
        else assert.ok((def.permissions ?? []).length > 0, 'a parent DocType grants someone access');
      });
    });
  }

  test('ToDo matches the reference DocType', () => {
    const todo = get('ToDo');
    assert.equal(todo.autoname, 'hash');
    assert.equal(todo.module, 'Desk');
    assert.equal(todo.title_field, 'description');
    assert.equal(todo.search_fields, 'description, reference_type, reference_name');
    assert.equal(todo.sort_field, 'creation');
    assert.equal(todo.sort_order, 'DESC');
    assert.equal(todo.track_changes, 1);
    assert.equal(todo.is_submittable, 0);
    assert.deepEqual(
      todo.fields.map((f) => f.fieldname),
      [
        'description_and_status',
        'status',
        'priority',
        'column_break_2',
        'color',
        'date',
        'allocated_to',
        'description_section',
        'description',
        'section_break_6',
        'reference_type',
        'reference_name',
        'column_break_10',
        'role',
        'assigned_by',
        'assigned_by_full_name',
        'sender',
        'assignment_rule',
      ],
    );
    assert.deepEqual(field('ToDo', 'status'), {
      fieldname: 'status',
      label: 'Status',
      fieldtype: 'Select',
      options: 'Open\nClosed\nCancelled',
      default: 'Open',
      in_list_view: 1,
      in_standard_filter: 1,
    });
    assert.equal(field('ToDo', 'priority').options, 'High\nMedium\nLow');
    assert.equal(field('ToDo', 'priority').default, 'Medium');
    assert.equal(field('ToDo', 'date').fieldtype, 'Date');
    assert.equal(field('ToDo', 'date').default, 'Today');
    assert.equal(field('ToDo', 'description').fieldtype, 'Text Editor');
    assert.equal(field('ToDo', 'description').reqd, 1);
    assert.equal(field('ToDo', 'reference_name').fieldtype, 'Dynamic Link');
    assert.equal(field('ToDo', 'assigned_by_full_name').fetch_from, 'assigned_by.full_name');
    assert.equal(field('ToDo', 'allocated_to').ignore_user_permissions, 1);
    assert.equal(field('ToDo', 'sender').options, 'Email');
    // fw ships no Assignment Rule DocType, so the field holds plain text.
    assert.equal(field('ToDo', 'assignment_rule').fieldtype, 'Data');
    assert.equal(field('ToDo', 'assignment_rule').read_only, 1);
  });

  test('ToDo grants All everything but export and System Manager everything but delete', () => {
    const perms = get('ToDo').permissions ?? [];
    assert.deepEqual(
      perms.map((p) => [p.role, p.permlevel, p.if_owner, rights(p)]),
      [
        ['All', 0, 0, ['create', 'delete', 'email', 'print', 'read', 'report', 'share', 'write']],
        ['System Manager', 0, 0, ['create', 'email', 'export', 'print', 'read', 'report', 'share', 'write']],
      ],
    );
  });

  test('DocPerm defaults a new row as the reference does', () => {
    const defaults = Object.fromEntries(['permlevel', 'if_owner', ...PERMISSION_TYPES].map((k) => [k, field('DocPerm', k).default]));
    assert.deepEqual(defaults, {
      permlevel: '0',
      if_owner: '0',
      select: '0',
      read: '1',
      write: '1',
      create: '1',
      delete: '1',
      submit: '0',
      cancel: '0',
      amend: '0',
      report: '1',
      export: '1',
      import: '0',
      share: '1',
      print: '1',
      email: '1',
    });
    assert.equal(field('DocPerm', 'role').reqd, 1);
  });

  test('DocField describes every key of a field definition', () => {
    const keys = get('DocField').fields.map((f) => f.fieldname);
    for (const key of ['fieldname', 'fieldtype', 'options', 'default', 'reqd', 'permlevel', 'fetch_from', 'precision']) {
      assert.ok(keys.includes(key), key);
    }
    assert.equal(field('DocField', 'fieldtype').default, 'Data');
  });

  test('a DocType is named by the client, defaults to module Custom and may be renamed', () => {
    const dt = get('DocType');
    assert.equal(dt.autoname, 'prompt');
    assert.equal(field('DocType', 'module').default, 'Custom');
    assert.equal(field('DocType', 'allow_rename').default, '1');
    assert.equal(field('DocType', 'sort_order').options, 'ASC\nDESC');
    assert.equal(field('DocType', 'fields').options, 'DocField');
    assert.equal(field('DocType', 'permissions').options, 'DocPerm');
  });

  test('a User is named by its email and keeps roles and user type out of reach of ordinary writes', () => {
    assert.equal(get('User').autoname, 'field:email');
    assert.equal(field('User', 'email').unique, 1);
    assert.equal(field('User', 'user_type').default, 'System User');
    assert.equal(field('User', 'roles').permlevel, 1);
    assert.equal(field('User', 'user_type').permlevel, 1);
    assert.ok(!get('User').fields.some((f) => f.fieldname === 'api_secret'), 'no api_secret column');
    const levelOne = (get('User').permissions ?? []).filter((p) => p.permlevel === 1);
    assert.deepEqual(
      levelOne.map((p) => [p.role, rights(p)]),
      [['System Manager', ['read', 'write']]],
    );
    assert.ok(!(get('User').permissions ?? []).some((p) => p.role === 'All'));
  });

  test('any logged-in user may create a File but reaches only their own through role permissions', () => {
    const all = (get('File').permissions ?? []).filter((p) => p.role === 'All');
    assert.deepEqual(
      all.map((p) => [p.if_owner, rights(p)]),
      [
        [0, ['create']],
        [1, ['delete', 'read', 'write']],
      ],
    );
  });

  test('a User Permission names a user, a DocType and one of its documents, for every DocType by default', () => {
    const up = get('User Permission');
    assert.deepEqual(
      up.fields.filter((f) => f.fieldtype !== 'Column Break' && f.fieldtype !== 'Section Break').map((f) => [f.fieldname, f.fieldtype, f.options]),
      [
        ['user', 'Link', 'User'],
        ['allow', 'Link', 'DocType'],
        ['for_value', 'Dynamic Link', 'allow'],
        ['is_default', 'Check', undefined],
        ['apply_to_all_doctypes', 'Check', undefined],
        ['applicable_for', 'Link', 'DocType'],
      ],
    );
    assert.equal(field('User Permission', 'apply_to_all_doctypes').default, '1');
    assert.equal(field('User Permission', 'user').ignore_user_permissions, 1);
    assert.deepEqual(
      (up.permissions ?? []).map((p) => p.role),
      ['System Manager'],
    );
  });

  test('a DocShare grants rights on one document; any user may ask to create one, only managers read them', () => {
    const share = get('DocShare');
    assert.deepEqual(
      share.fields.map((f) => [f.fieldname, f.fieldtype, f.options]),
      [
        ['user', 'Link', 'User'],
        ['share_doctype', 'Link', 'DocType'],
        ['share_name', 'Dynamic Link', 'share_doctype'],
        ['read', 'Check', undefined],
        ['write', 'Check', undefined],
        ['share', 'Check', undefined],
        ['submit', 'Check', undefined],
        ['everyone', 'Check', undefined],
      ],
    );
    assert.deepEqual(
      (share.permissions ?? []).map((p) => [p.role, rights(p)]),
      [
        ['System Manager', ['create', 'delete', 'email', 'export', 'print', 'read', 'report', 'share', 'write']],
        ['All', ['create']],
      ],
    );
  });

  test('the JSON files parse as plain JSON, without the module loader', () => {
    const raw: unknown = JSON.parse(readFileSync(new URL('./to-do.json', import.meta.url), 'utf8'));
    assert.deepEqual(asDocTypeDef(raw), get('ToDo'));
  });
});

describe('asDocTypeDef', () => {
  const valid = { name: 'Note', fields: [{ fieldname: 'title', fieldtype: 'Data' }] };

  test('accepts a minimal definition and returns it', () => {
    assert.equal(asDocTypeDef(valid), valid);
  });

  const broken: [string, unknown, RegExp][] = [
    ['a non-object', [], /definition must be a JSON object/],
    ['a missing name', { fields: [] }, /definition\.name must be a non-empty string/],
    ['fields that are not an array', { name: 'Note', fields: {} }, /Note: definition\.fields must be an array/],
    ['a field without fieldtype', { name: 'Note', fields: [{ fieldname: 'title' }] }, /fields\[0\]\.fieldtype/],
    ['a numeric fieldname', { name: 'Note', fields: [{ fieldname: 1, fieldtype: 'Data' }] }, /fields\[0\]\.fieldname/],
    ['a misspelt field key', { ...valid, fields: [{ fieldname: 'a', fieldtype: 'Data', reqed: 1 }] }, /fields\[0\]\.reqed is not a known key/],
    ['a Check holding true', { ...valid, fields: [{ fieldname: 'a', fieldtype: 'Data', reqd: true }] }, /reqd must be 0 or 1/],
    ['a fractional length', { ...valid, fields: [{ fieldname: 'a', fieldtype: 'Data', length: 1.5 }] }, /length must be/],
    ['a numeric default', { ...valid, fields: [{ fieldname: 'a', fieldtype: 'Int', default: 0 }] }, /default must be a string/],
    ['an unknown top-level key', { ...valid, is_tree: 1 }, /definition\.is_tree is not a known key/],
    ['a DocType-level Check holding 2', { ...valid, istable: 2 }, /istable must be 0 or 1/],
    ['permissions that are not an array', { ...valid, permissions: {} }, /permissions must be an array/],
    ['a permission without role', { ...valid, permissions: [{ read: 1 }] }, /permissions\[0\]\.role/],
    ['a permission right holding "1"', { ...valid, permissions: [{ role: 'All', read: '1' }] }, /read must be 0 or 1/],
  ];
  for (const [what, json, message] of broken) {
    test(`refuses ${what} with a ValidationError naming the path`, () => {
      assert.throws(
        () => asDocTypeDef(json),
        (err: unknown) => err instanceof ValidationError && message.test(err.message),
      );
    });
  }
});
