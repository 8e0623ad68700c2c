import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { docUrl, doctypeFromSlug, fieldLabel, session, slug } from './session';

describe('session helpers', () => {
  test('writes DocType slugs and URLs as the desk does', () => {
    assert.equal(slug('Sales Order'), 'sales-order');
    assert.equal(docUrl('Sales Order'), '/app/sales-order');
    assert.equal(docUrl('Sales Order', 'SO/1 #2'), '/app/sales-order/SO%2F1%20%232');
  });

  test('reads a slug back: a known DocType by its slug or name, an unknown slug as title case', () => {
    session.boot = { doctypes: [{ name: 'ToDo' }, { name: 'Sales Order' }] } as unknown as typeof session.boot;
    try {
      assert.equal(doctypeFromSlug('todo'), 'ToDo');
      assert.equal(doctypeFromSlug('Sales%20Order'), 'Sales Order');
      assert.equal(doctypeFromSlug('purchase-order'), 'Purchase Order');
      assert.equal(doctypeFromSlug('My%20DocType'), 'My DocType');
    } finally {
      session.boot = null;
    }
  });

  test('labels a field by its label, else by its fieldname in words', () => {
    assert.equal(fieldLabel({ fieldname: 'due_date', label: 'Deadline' }), 'Deadline');
    assert.equal(fieldLabel({ fieldname: 'due_date' }), 'Due date');
  });
});
