import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fetchedBy } from './fetch-from';

describe('fetch-from', () => {
  test('finds the fields a Link fills, with the remote field each reads', () => {
    const fields = [
      { fieldname: 'customer', fieldtype: 'Link', options: 'Customer' },
      { fieldname: 'customer_name', fieldtype: 'Data', fetch_from: 'customer.customer_name' },
      { fieldname: 'city', fieldtype: 'Data', fetch_from: 'customer.city' },
      { fieldname: 'other', fieldtype: 'Data', fetch_from: 'supplier.name' },
      { fieldname: 'broken', fieldtype: 'Data', fetch_from: 'customer.' },
    ];
    assert.deepEqual(fetchedBy(fields, 'customer'), [
      { fieldname: 'customer_name', remote: 'customer_name' },
      { fieldname: 'city', remote: 'city' },
    ]);
    assert.deepEqual(fetchedBy(fields, 'nothing'), []);
  });
});
