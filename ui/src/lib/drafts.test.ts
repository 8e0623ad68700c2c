import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { amendedCopy, newDoc, putDraft, takeDraft } from './drafts';
import type { DocField } from './session';

describe('drafts', () => {
  test('hands a draft to the next new form once', () => {
    putDraft('Invoice', { doctype: 'Invoice', amount: 5 });
    assert.deepEqual(takeDraft('Invoice'), { doctype: 'Invoice', amount: 5 });
    assert.equal(takeDraft('Invoice'), undefined);
  });

  test('starts a new document with the literal defaults, empty tables and unchecked Checks', () => {
    const fields: DocField[] = [
      { fieldname: 'sb', fieldtype: 'Section Break' },
      { fieldname: 'items', fieldtype: 'Table' },
      { fieldname: 'done', fieldtype: 'Check' },
      { fieldname: 'qty', fieldtype: 'Int', default: '3' },
      { fieldname: 'status', fieldtype: 'Select', default: 'Open' },
      { fieldname: 'owner_name', fieldtype: 'Data', default: '__user' },
      { fieldname: 'stamp', fieldtype: 'Datetime', default: 'now' },
      { fieldname: 'title', fieldtype: 'Data' },
    ];
    assert.deepEqual(newDoc('Task', fields), { doctype: 'Task', docstatus: 0, items: [], done: 0, qty: 3, status: 'Open' });
  });

  test('starts a Select without a blank option at its first option, and one with a blank empty', () => {
    const doc = newDoc('Task', [
      { fieldname: 'priority', fieldtype: 'Select', options: 'Low\nMedium\nHigh' },
      { fieldname: 'kind', fieldtype: 'Select', options: '\nBug\nIdea' },
    ]);
    assert.deepEqual(doc, { doctype: 'Task', docstatus: 0, priority: 'Low' });
  });

  test("fills a Date defaulting to Today with the browser's date", () => {
    const doc = newDoc('Task', [{ fieldname: 'due', fieldtype: 'Date', default: 'Today' }]);
    assert.match(String(doc.due), /^\d{4}-\d{2}-\d{2}$/);
  });

  test('amends a cancelled document: its values and rows without identity, amended_from set', () => {
    const fields: DocField[] = [
      { fieldname: 'amount', fieldtype: 'Currency' },
      { fieldname: 'items', fieldtype: 'Table' },
      { fieldname: 'amended_from', fieldtype: 'Link' },
      { fieldname: 'cb', fieldtype: 'Column Break' },
    ];
    const cancelled = {
      doctype: 'Invoice',
      name: 'INV-1',
      docstatus: 2,
      owner: 'a@example.com',
      amount: 10,
      amended_from: 'INV-0',
      items: [{ name: 'row1', parent: 'INV-1', parentfield: 'items', parenttype: 'Invoice', idx: 1, item: 'Pen' }],
    };
    assert.deepEqual(amendedCopy(cancelled, fields), { doctype: 'Invoice', docstatus: 0, amended_from: 'INV-1', amount: 10, items: [{ item: 'Pen' }] });
  });
});
