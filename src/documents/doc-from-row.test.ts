import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DocTypeDef } from '../meta/doctype.js';
import { createFieldTypeRegistry } from '../meta/field-types/index.js';
import { Meta } from '../meta/meta.js';
import { docFromRow } from './doc-from-row.js';

const types = createFieldTypeRegistry();
const def: DocTypeDef = {
  name: 'Odd "Name"',
  fields: [
    { fieldname: 'title', fieldtype: 'Data' },
    { fieldname: 'qty', fieldtype: 'Int' },
    { fieldname: 'due', fieldtype: 'Date' },
    { fieldname: 'extra', fieldtype: 'JSON' },
    { fieldname: 'section', fieldtype: 'Section Break' },
  ],
};
const meta = new Meta(def, types);

test('docFromRow: standard columns, then fields through their types, then doctype; missing values are null', () => {
  const doc = docFromRow(meta)({ name: 42, owner: 'a@example.com', docstatus: '1', idx: null, qty: '7', due: '2024-1-5', extra: '{"k":1}', stray: 'x' });
  assert.deepEqual(Object.keys(doc), ['name', 'owner', 'creation', 'modified', 'modified_by', 'docstatus', 'idx', 'title', 'qty', 'due', 'extra', 'doctype']);
  assert.deepEqual(doc, {
    name: '42',
    owner: 'a@example.com',
    creation: null,
    modified: null,
    modified_by: null,
    docstatus: 1,
    idx: 0,
    title: null,
    qty: 7,
    due: '2024-01-05',
    extra: { k: 1 },
    doctype: 'Odd "Name"',
  });
});

test('docFromRow: child rows keep their parent columns; the conversion is compiled once per Meta', () => {
  const child = new Meta({ name: 'Line', istable: 1, fields: [{ fieldname: 'item', fieldtype: 'Data' }] }, types);
  const convert = docFromRow(child);
  assert.equal(docFromRow(child), convert);
  const doc = convert({ name: 'r1', parent: 'P-1', parentfield: 'lines', parenttype: 'Order', item: 'nut', idx: 2 });
  assert.equal(doc.parent, 'P-1');
  assert.equal(doc.parentfield, 'lines');
  assert.equal(doc.parenttype, 'Order');
  assert.equal(doc.item, 'nut');
  assert.equal(doc.idx, 2);
  assert.equal(doc.doctype, 'Line');
});
