import { test } from 'node:test';
import assert from 'node:assert/strict';
import { definitionProblem } from './check-definition.js';
import type { DocField, DocTypeDef } from './doctype.js';
import { createFieldTypeRegistry } from './field-types/index.js';

const types = createFieldTypeRegistry();
const world = {
  types,
  doctype: (name: string) => ({ Customer: { istable: 0 as const }, 'Order Item': { istable: 1 as const } })[name],
};
const def = (fields: Partial<DocField>[], extra: Partial<DocTypeDef> = {}): DocTypeDef => ({
  name: 'Order',
  fields: fields.map((f) => ({ fieldname: 'f', label: 'F', fieldtype: 'Data', ...f })),
  ...extra,
});

const CASES: { case: string; def: DocTypeDef; problem: RegExp | undefined }[] = [
  { case: 'a plain definition', def: def([{ fieldname: 'title' }]), problem: undefined },
  { case: 'a name starting with a digit', def: def([], { name: '1Order' }), problem: /must start with a letter/ },
  { case: 'an upper-case fieldname', def: def([{ fieldname: 'Title' }]), problem: /"Title" must be lower case/ },
  { case: 'a standard fieldname', def: def([{ fieldname: 'owner' }]), problem: /"owner" is reserved/ },
  { case: 'a child column name', def: def([{ fieldname: 'parent' }]), problem: /"parent" is reserved/ },
  { case: 'a fieldname twice', def: def([{ fieldname: 'a' }, { fieldname: 'a' }]), problem: /"a" appears more than once/ },
  { case: 'an unknown type', def: def([{ fieldtype: 'Blob' }]), problem: /unknown field type "Blob"/ },
  { case: 'a Link to a known DocType', def: def([{ fieldtype: 'Link', options: 'Customer' }]), problem: undefined },
  { case: 'a Link to itself', def: def([{ fieldtype: 'Link', options: 'Order' }]), problem: undefined },
  { case: 'a Link to nothing', def: def([{ fieldtype: 'Link', options: 'Nope' }]), problem: /the DocType the Link points to/ },
  { case: 'a Link without options', def: def([{ fieldtype: 'Link' }]), problem: /the DocType the Link points to/ },
  { case: 'a Table of a child DocType', def: def([{ fieldtype: 'Table', options: 'Order Item' }]), problem: undefined },
  { case: 'a Table of a regular DocType', def: def([{ fieldtype: 'Table', options: 'Customer' }]), problem: /child table DocType/ },
  { case: 'a Table MultiSelect of nothing', def: def([{ fieldtype: 'Table MultiSelect', options: 'Nope' }]), problem: /child table DocType/ },
  {
    case: 'a Dynamic Link with its type field',
    def: def([
      { fieldname: 'kind', fieldtype: 'Link', options: 'Customer' },
      { fieldname: 'ref', fieldtype: 'Dynamic Link', options: 'kind' },
    ]),
    problem: undefined,
  },
  { case: 'a Dynamic Link without its type field', def: def([{ fieldtype: 'Dynamic Link', options: 'kind' }]), problem: /field that holds the DocType/ },
  { case: 'autoname from a missing field', def: def([{ fieldname: 'title' }], { autoname: 'field:code' }), problem: /no such field/ },
  { case: 'autoname from a field', def: def([{ fieldname: 'code' }], { autoname: 'field:code' }), problem: undefined },
];

for (const c of CASES) {
  test(`definitionProblem: ${c.case}`, () => {
    const problem = definitionProblem(c.def, world);
    if (c.problem === undefined) assert.equal(problem, undefined);
    else assert.match(problem ?? '', c.problem);
  });
}
