import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createFieldTypeRegistry } from '../meta/field-types/index.js';
import type { DocField } from '../meta/doctype.js';
import type { ResolvedField } from '../meta/meta.js';
import { dateOrderEvidence, fieldValue } from './cell-values.js';

const types = createFieldTypeRegistry();
const field = (fieldtype: string): ResolvedField => {
  const def: DocField = { fieldname: 'f', label: 'F', fieldtype };
  const type = types.get(fieldtype);
  return { def, type, column: type.column(def) } as ResolvedField;
};

describe('fieldValue', () => {
  const cases: [string, unknown, 'dmy' | 'mdy', unknown][] = [
    ['Date', '2024-01-31', 'dmy', '2024-01-31'],
    ['Date', '31-01-2024', 'dmy', '2024-01-31'],
    ['Date', '01/31/2024', 'mdy', '2024-01-31'],
    ['Date', '31.01.2024', 'dmy', '2024-01-31'],
    ['Date', new Date(Date.UTC(2024, 1, 29)), 'dmy', '2024-02-29'],
    ['Datetime', '31-01-2024 09:30', 'dmy', '2024-01-31 09:30:00'],
    ['Datetime', '2024-01-31T09:30:15', 'dmy', '2024-01-31 09:30:15'],
    ['Datetime', new Date(Date.UTC(2024, 0, 31, 8, 5, 0)), 'dmy', '2024-01-31 08:05:00'],
    ['Check', 'Yes', 'dmy', 1],
    ['Check', 'n', 'dmy', 0],
    ['Check', true, 'dmy', 1],
    ['Int', 5, 'dmy', 5],
    ['Int', ' 7 ', 'dmy', '7'],
    ['Data', 12.5, 'dmy', '12.5'],
    ['Data', '', 'dmy', undefined],
    ['Data', null, 'dmy', undefined],
  ];
  for (const [type, cell, order, expected] of cases) {
    test(`${type} ${JSON.stringify(cell)} (${order}) -> ${JSON.stringify(expected)}`, () =>
      assert.deepEqual(fieldValue(cell as never, field(type), order), expected));
  }
  test('a date that does not exist, or text that is no date, is refused with the format in the message', () => {
    assert.throws(() => fieldValue('31-02-2024', field('Date'), 'dmy'), /dd-mm-yyyy/);
    assert.throws(() => fieldValue('soon', field('Date'), 'mdy'), /mm-dd-yyyy or yyyy-mm-dd/);
    assert.throws(() => fieldValue('maybe', field('Check'), 'dmy'), /yes, no/);
  });
});

describe('dateOrderEvidence', () => {
  test('only a value that reads one way is evidence', () => {
    assert.equal(dateOrderEvidence('31-01-2024'), 'dmy');
    assert.equal(dateOrderEvidence('01/31/2024'), 'mdy');
    assert.equal(dateOrderEvidence('01-02-2024'), undefined);
    assert.equal(dateOrderEvidence('2024-01-31'), undefined);
    assert.equal(dateOrderEvidence(new Date()), undefined);
  });
});
