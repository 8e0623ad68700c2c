import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { missingMandatory, placeMessages } from './form-errors';
import type { DocField } from './session';

const FIELDS: DocField[] = [
  { fieldname: 'title', label: 'Title', fieldtype: 'Data', reqd: 1 },
  { fieldname: 'sub_title', label: 'Sub Title', fieldtype: 'Data' },
  { fieldname: 'qty', fieldtype: 'Int', reqd: 1 },
  { fieldname: 'notes', label: 'Notes', fieldtype: 'Text Editor', reqd: 1 },
  { fieldname: 'items', label: 'Items', fieldtype: 'Table', reqd: 1 },
  { fieldname: 'agree', label: 'Agree', fieldtype: 'Check', reqd: 1 },
  { fieldname: 'secret', label: 'Secret', fieldtype: 'Data', reqd: 1, hidden: 1 },
];

describe('form errors', () => {
  test('places a message beside the field whose label it names, the longest label first', () => {
    const placed = placeMessages(
      [{ message: 'Value missing for Book: Sub Title' }, { message: 'Row #2: Value missing for: Qty' }, { message: 'Something else went wrong' }],
      FIELDS,
    );
    assert.deepEqual(placed, {
      byField: { sub_title: 'Value missing for Book: Sub Title', qty: 'Row #2: Value missing for: Qty' },
      general: ['Something else went wrong'],
    });
  });

  test('keeps a second message about the same field, and one naming a label only inside a word, general', () => {
    const placed = placeMessages([{ message: 'Title is too long' }, { message: 'Title is taken' }, { message: 'Entitled to nothing' }], FIELDS);
    assert.deepEqual(placed, { byField: { title: 'Title is too long' }, general: ['Title is taken', 'Entitled to nothing'] });
  });

  test('reads a label with regular-expression characters literally', () => {
    const fields: DocField[] = [{ fieldname: 'price', label: 'Price (€)+', fieldtype: 'Currency' }];
    assert.deepEqual(placeMessages([{ message: 'Price (€)+ must be positive' }], fields).byField, { price: 'Price (€)+ must be positive' });
  });

  test('finds mandatory fields left empty, but not a Check or a hidden field', () => {
    const missing = missingMandatory(FIELDS, { title: '  ', qty: 0, notes: '<p>&nbsp;</p>', items: [] });
    assert.deepEqual(
      missing.map((f) => f.fieldname),
      ['title', 'notes', 'items'],
    );
    assert.deepEqual(missingMandatory(FIELDS, { title: 'x', qty: 1, notes: '<p>hi</p>', items: [{}] }), []);
  });
});
