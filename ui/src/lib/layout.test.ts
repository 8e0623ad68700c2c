import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { formLayout } from './layout';
import type { DocField } from './session';

const f = (fieldname: string, fieldtype = 'Data', extra: Partial<DocField> = {}): DocField => ({ fieldname, fieldtype, ...extra });
const names = (tabs: ReturnType<typeof formLayout>) =>
  tabs.map((t) => ({ tab: t.label, sections: t.sections.map((s) => ({ label: s.label, columns: s.columns.map((c) => c.fields.map((x) => x.fieldname)) })) }));

describe('formLayout', () => {
  test('puts fields without breaks in one Details tab of one section', () => {
    assert.deepEqual(names(formLayout([f('a'), f('b')])), [{ tab: 'Details', sections: [{ label: '', columns: [['a', 'b']] }] }]);
  });

  test('splits at tab, section and column breaks', () => {
    const layout = formLayout([
      f('a'),
      f('sb', 'Section Break', { label: 'More' }),
      f('b'),
      f('cb', 'Column Break'),
      f('c'),
      f('tb', 'Tab Break', { label: 'Other' }),
      f('d'),
    ]);
    assert.deepEqual(names(layout), [
      {
        tab: 'Details',
        sections: [
          { label: '', columns: [['a']] },
          { label: 'More', columns: [['b'], ['c']] },
        ],
      },
      { tab: 'Other', sections: [{ label: '', columns: [['d']] }] },
    ]);
  });

  test('leaves out hidden fields and decorations, and drops the sections and tabs they leave empty', () => {
    const layout = formLayout([
      f('a'),
      f('hidden', 'Data', { hidden: 1 }),
      f('empty', 'Section Break', { label: 'Empty' }),
      f('h', 'Heading'),
      f('cb', 'Column Break'),
      f('t', 'Tab Break', { label: 'Bare' }),
      f('html', 'HTML'),
    ]);
    assert.deepEqual(names(layout), [{ tab: 'Details', sections: [{ label: '', columns: [['a']] }] }]);
  });
});
