import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { UpdateAfterSubmitError } from '../errors/index.js';
import type { Doc } from '../meta/doctype.js';
import { createFieldTypeRegistry } from '../meta/field-types/index.js';
import { Meta } from '../meta/meta.js';
import { checkUpdateAfterSubmit } from './check-update-after-submit.js';

const registry = createFieldTypeRegistry();
const line = new Meta(
  {
    name: 'Line',
    istable: 1,
    fields: [
      { fieldname: 'qty', label: 'Qty', fieldtype: 'Int' },
      { fieldname: 'remark', label: 'Remark', fieldtype: 'Data', allow_on_submit: 1 },
    ],
  },
  registry,
);
const order = new Meta(
  {
    name: 'Order',
    is_submittable: 1,
    fields: [
      { fieldname: 'title', label: 'Title', fieldtype: 'Data' },
      { fieldname: 'note', label: 'Note', fieldtype: 'Data', allow_on_submit: 1 },
      { fieldname: 'lines', label: 'Lines', fieldtype: 'Table', options: 'Line' },
      { fieldname: 'extras', label: 'Extras', fieldtype: 'Table', options: 'Line', allow_on_submit: 1 },
    ],
  },
  registry,
);
const metaOf = (d: string) => (d === 'Line' ? line : order);
const stored: Doc = { title: 'T', note: null, lines: [{ name: 'r1', qty: 2, remark: 'a' }], extras: [] };
const check = (changes: Doc) => () => checkUpdateAfterSubmit(order, { ...structuredClone(stored), ...changes }, stored, metaOf);

describe('checkUpdateAfterSubmit', () => {
  test('lets allow_on_submit fields, rows of allow_on_submit tables and unchanged values through', () => {
    assert.doesNotThrow(check({}));
    assert.doesNotThrow(check({ note: 'n' }));
    assert.doesNotThrow(check({ lines: [{ name: 'r1', qty: 2, remark: 'b' }] }));
    assert.doesNotThrow(check({ extras: [{ name: 'new', qty: 1 }] }));
  });

  test('treats an empty string, null and 0 alike, as the reference does', () => {
    assert.doesNotThrow(check({ title: 'T', note: '' }));
  });

  test('refuses a changed field without allow_on_submit, naming label and values', () => {
    assert.throws(check({ title: 'U' }), (err: unknown) => {
      assert.ok(err instanceof UpdateAfterSubmitError);
      assert.equal(err.message, 'Not allowed to change Title after submission from T to U');
      return true;
    });
  });

  test('refuses a changed row field with its row number, and rows added to a table without allow_on_submit', () => {
    assert.throws(check({ lines: [{ name: 'r1', qty: 3, remark: 'a' }] }), /^Error: Row #1: Not allowed to change Qty after submission from 2 to 3$/);
    assert.throws(check({ lines: [...(stored.lines as Doc[]), { name: 'r2', qty: 1 }] }), /Not allowed to change Lines after submission from 1 to 2/);
    assert.throws(check({ lines: [{ name: 'other', qty: 2, remark: 'a' }] }), UpdateAfterSubmitError);
  });
});
