import assert from 'node:assert/strict';
import { test } from 'node:test';
import { deriveFieldname, moveRow, rowOfError, rowProblems, scrub } from './builder-fields';

test('labels scrub to fieldnames; a leading digit gets a prefix', () => {
  assert.equal(scrub('Due Date'), 'due_date');
  assert.equal(scrub('  E-mail (work) '), 'e_mail_work');
  assert.equal(scrub('2nd Address'), 'field_2nd_address');
  assert.equal(scrub('!!!'), '');
});

test('a reserved or taken name is numbered, and a reserved one says why', () => {
  assert.deepEqual(deriveFieldname('Due Date', 'Date', new Set()), { fieldname: 'due_date' });
  const named = deriveFieldname('Name', 'Data', new Set());
  assert.equal(named.fieldname, 'name_1');
  assert.match(named.note ?? '', /"name" is reserved/);
  assert.deepEqual(deriveFieldname('Title', 'Data', new Set(['title', 'title_1'])), { fieldname: 'title_2' });
  assert.deepEqual(deriveFieldname('', 'Section Break', new Set()), { fieldname: 'section_break' });
  assert.deepEqual(deriveFieldname('', 'Column Break', new Set(['column_break'])), { fieldname: 'column_break_1' });
  assert.deepEqual(deriveFieldname('', 'Data', new Set()), { fieldname: '' });
});

test('row problems: bad, reserved, repeated fieldnames and a Link without its DocType', () => {
  const problems = rowProblems([
    { fieldname: 'title', fieldtype: 'Data' },
    { fieldname: 'Bad Name', fieldtype: 'Data' },
    { fieldname: 'owner', fieldtype: 'Data' },
    { fieldname: 'title', fieldtype: 'Data' },
    { fieldname: 'customer', fieldtype: 'Link', options: '' },
    { fieldname: 'items', fieldtype: 'Table', options: 'Item Row' },
  ]);
  assert.deepEqual([...problems.keys()], [1, 2, 3, 4]);
  assert.match(problems.get(2)!, /"owner" is reserved/);
  assert.match(problems.get(3)!, /also used by field 1/);
  assert.match(problems.get(4)!, /Link field needs the DocType/);
});

test('a server refusal is placed on the row it names', () => {
  const fields = [{ fieldname: 'title' }, { fieldname: 'customer' }];
  assert.equal(rowOfError('Field customer: options must name the DocType the Link points to', fields), 1);
  assert.equal(rowOfError('Fieldname "title" appears more than once', fields), 0);
  assert.equal(rowOfError('DocType name "1x" must start with a letter', fields), undefined);
});

test('a dragged row lands where it is dropped', () => {
  assert.deepEqual(moveRow(['a', 'b', 'c', 'd'], 0, 2), ['b', 'c', 'a', 'd']);
  assert.deepEqual(moveRow(['a', 'b', 'c', 'd'], 3, 0), ['d', 'a', 'b', 'c']);
  assert.deepEqual(moveRow(['a', 'b'], 0, 5), ['a', 'b']);
});
