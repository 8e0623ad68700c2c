import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Doc, DocTypeDef } from '../meta/doctype.js';
import { createFieldTypeRegistry } from '../meta/field-types/index.js';
import { Meta } from '../meta/meta.js';
import { documentDiff, type DiffEnv } from './version-diff.js';

const types = createFieldTypeRegistry();
const lineDef: DocTypeDef = {
  name: 'Line',
  istable: 1,
  fields: [
    { fieldname: 'item', fieldtype: 'Data' },
    { fieldname: 'qty', fieldtype: 'Int' },
  ],
};
const orderDef: DocTypeDef = {
  name: 'Order',
  track_changes: 1,
  fields: [
    { fieldname: 'title', fieldtype: 'Data' },
    { fieldname: 'due', fieldtype: 'Datetime' },
    { fieldname: 'extra', fieldtype: 'JSON' },
    { fieldname: 'secret', fieldtype: 'Password' },
    { fieldname: 'section', fieldtype: 'Section Break' },
    { fieldname: 'lines', fieldtype: 'Table', options: 'Line' },
  ],
};
const line = new Meta(lineDef, types);
const order = new Meta(orderDef, types);
const env: DiffEnv = {
  metaOf: (d) => (d === 'Line' ? line : order),
  fieldContext: { doctype: 'Order', timeZone: 'UTC', user: 'u@x.com' },
};

function row(name: string, item: string, qty: number): Doc {
  return { name, item, qty, parent: 'o1', parenttype: 'Order', parentfield: 'lines', idx: 1, doctype: 'Line' };
}

/** The stored document as read (JSON forms) and the same one as the save pipeline holds it (stored forms). */
const stored: Doc = {
  name: 'o1',
  doctype: 'Order',
  docstatus: 0,
  modified: '2024-01-01 10:00:00.000000',
  title: 'First',
  due: '2024-02-01 09:30:00',
  extra: { a: 1 },
  secret: '****',
  lines: [row('r1', 'apple', 1), row('r2', 'pear', 2)],
};
const resaved: Doc = {
  ...structuredClone(stored),
  modified: '2024-01-01 11:00:00.000000',
  modified_by: 'someone@x.com',
  due: '2024-02-01 09:30:00.000000',
  extra: '{"a":1}',
};

describe('documentDiff', () => {
  test('a save that only moves modified, or stores the same values in their stored form, records nothing', () => {
    assert.equal(documentDiff(order, stored, resaved, env), undefined);
  });

  test('changed fields come as [field, old, new] in the form a client reads', () => {
    const after = { ...structuredClone(resaved), title: 'Second', due: '2024-03-01 08:00:00.000000', extra: '{"a":2}' };
    assert.deepEqual(documentDiff(order, stored, after, env), {
      added: [],
      changed: [
        ['title', 'First', 'Second'],
        ['due', '2024-02-01 09:30:00', '2024-03-01 08:00:00'],
        ['extra', { a: 1 }, { a: 2 }],
      ],
      removed: [],
      row_changed: [],
    });
  });

  test('password values are never written into a diff', () => {
    assert.equal(documentDiff(order, stored, { ...structuredClone(resaved), secret: '*******' }, env), undefined);
  });

  test('empty text and null are the same value', () => {
    assert.equal(documentDiff(order, { ...stored, title: null }, { ...structuredClone(resaved), title: '' }, env), undefined);
  });

  test('child rows are matched by name: added, removed, and changed at their position in the saved table', () => {
    const after = { ...structuredClone(resaved), lines: [row('r3', 'plum', 7), row('r1', 'apple', 5)] };
    const diff = documentDiff(order, stored, after, env);
    assert.deepEqual(diff?.changed, []);
    assert.deepEqual(diff?.row_changed, [['lines', 1, 'r1', [['qty', 1, 5]]]]);
    assert.deepEqual(
      diff?.added.map(([table, r]) => [table, r.name, r.item, r.qty, r.doctype]),
      [['lines', 'r3', 'plum', 7, 'Line']],
    );
    assert.deepEqual(
      diff?.removed.map(([table, r]) => [table, r.name, r.item, r.qty]),
      [['lines', 'r2', 'pear', 2]],
    );
  });

  test('reordering rows without changing them records nothing', () => {
    const after = { ...structuredClone(resaved), lines: [row('r2', 'pear', 2), row('r1', 'apple', 1)] };
    assert.equal(documentDiff(order, stored, after, env), undefined);
  });

  test('a docstatus change is recorded as the reference does', () => {
    assert.deepEqual(documentDiff(order, stored, { ...structuredClone(resaved), docstatus: 1 }, env)?.changed, [['docstatus', 0, 1]]);
  });
});
