import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FwError } from '../../errors/index.js';
import type { DocField } from '../doctype.js';
import type { FieldContext } from './field-type.js';
import { createFieldTypeRegistry } from './index.js';

const registry = createFieldTypeRegistry();
const ctx: FieldContext = { doctype: 'Test', timeZone: 'UTC', user: 'jane@example.com' };
const field = (fieldtype: string): DocField => ({ fieldname: 'f', label: 'F', fieldtype });

const VALUE_TYPES = [
  'Data',
  'Phone',
  'Link',
  'Dynamic Link',
  'Autocomplete',
  'Icon',
  'Read Only',
  'Color',
  'Barcode',
  'Select',
  'Small Text',
  'Text',
  'Long Text',
  'Code',
  'Markdown Editor',
  'HTML Editor',
  'Text Editor',
  'Attach',
  'Attach Image',
  'Signature',
  'Geolocation',
  'Password',
  'Int',
  'Long Int',
  'Float',
  'Currency',
  'Percent',
  'Duration',
  'Rating',
  'Check',
  'Date',
  'Datetime',
  'Time',
  'JSON',
];
const LAYOUT_TYPES = ['Section Break', 'Column Break', 'Tab Break', 'HTML', 'Heading', 'Button', 'Image', 'Fold'];
const TABLE_TYPES = ['Table', 'Table MultiSelect'];

describe('createFieldTypeRegistry', () => {
  test('registers exactly the built-in field types', () => {
    assert.deepEqual(registry.names().sort(), [...VALUE_TYPES, ...LAYOUT_TYPES, ...TABLE_TYPES].sort());
  });

  test('gives every value type a column and each registered type its own name', () => {
    for (const name of VALUE_TYPES) {
      assert.ok(registry.get(name).column(field(name)), name);
      assert.equal(registry.get(name).name, name);
    }
  });

  test('makes fresh registries, so one site cannot change another', () => {
    assert.notEqual(createFieldTypeRegistry(), registry);
  });

  test('refuses an unknown field type with 417 DataError', () => {
    assert.throws(
      () => registry.get('Blob'),
      (err: unknown) => err instanceof FwError && err.excType === 'DataError' && err.status === 417,
    );
  });

  test('marks exactly the reference numeric types (and Duration, Rating) as numeric', () => {
    const numeric = registry
      .names()
      .filter((n) => registry.get(n).numeric)
      .sort();
    assert.deepEqual(numeric, ['Check', 'Currency', 'Duration', 'Float', 'Int', 'Long Int', 'Percent', 'Rating']);
  });
});

describe('layout types', () => {
  for (const name of LAYOUT_TYPES) {
    test(`${name} has no column and drops any value`, () => {
      const type = registry.get(name);
      assert.equal(type.column(field(name)), undefined);
      assert.equal(type.coerce('<b>x</b>', field(name), ctx), undefined);
      assert.equal(type.isTable, undefined);
    });
  }
});

describe('table types', () => {
  for (const name of TABLE_TYPES) {
    test(`${name} has no column and passes child rows through untouched`, () => {
      const type = registry.get(name);
      const rows = [{ item: 'a' }];
      assert.equal(type.isTable, true);
      assert.equal(type.column(field(name)), undefined);
      assert.equal(type.coerce(rows, field(name), ctx), rows);
    });

    test(`${name} counts a table without rows as missing`, () => {
      const type = registry.get(name);
      assert.equal(type.isEmpty?.([]), true);
      assert.equal(type.isEmpty?.([{ item: 'a' }]), false);
    });
  }
});
