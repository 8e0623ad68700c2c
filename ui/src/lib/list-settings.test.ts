import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { listSettingsBody, parseListSettings, plainOrder, restoreQuery } from './list-settings';

describe('list settings', () => {
  test('reads the List part of the stored settings, in fw form and in the reference form', () => {
    assert.deepEqual(parseListSettings('{"List":{"fields":["title","pages"],"filters":[["title","like","%a%"]],"order_by":"pages asc","page_length":100}}'), {
      fields: ['title', 'pages'],
      filters: [['title', 'like', '%a%']],
      order_by: 'pages asc',
      page_length: 100,
    });
    assert.deepEqual(parseListSettings('{"List":{"filters":[["Book","pages",">",5,false]],"order_by":"`tabBook`.`modified` DESC"}}'), {
      filters: [['pages', '>', 5]],
      order_by: 'modified desc',
    });
  });

  test('leaves out what does not parse: bad JSON, other views, odd field names, page lengths the list does not offer', () => {
    assert.deepEqual(parseListSettings('not json'), {});
    assert.deepEqual(parseListSettings('{}'), {});
    assert.deepEqual(parseListSettings('{"Report":{"page_length":100}}'), {});
    assert.deepEqual(parseListSettings('{"List":{"fields":["a b",1],"filters":[["x;drop","=",1],"junk"],"order_by":"pages; drop","page_length":7}}'), {});
    assert.equal(plainOrder('title sideways'), undefined);
  });

  test('restores only when the URL names no filters, sort or page length, and only what differs from the defaults', () => {
    const saved = { filters: [['pages', '>', 5]] as [string, string, unknown][], order_by: 'pages asc', page_length: 100 };
    assert.deepEqual(restoreQuery(saved, {}), { filters: '[["pages",">",5]]', order: 'pages asc', limit: '100' });
    assert.deepEqual(restoreQuery(saved, { q: 'dune' }), { filters: '[["pages",">",5]]', order: 'pages asc', limit: '100' });
    assert.equal(restoreQuery(saved, { order: 'name asc' }), undefined);
    assert.equal(restoreQuery({ order_by: 'modified desc', page_length: 20 }, {}), undefined);
  });

  test("states the list's current state as the settings to save, columns only when chosen", () => {
    assert.deepEqual(listSettingsBody({ columns: null, filters: [], order: 'modified desc', pageLength: 20 }), {
      List: { filters: [], order_by: 'modified desc', page_length: 20 },
    });
    assert.deepEqual(listSettingsBody({ columns: ['title'], filters: [['title', '=', 'x']], order: 'title asc', pageLength: 500 }).List.fields, ['title']);
  });
});
