import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FwError } from '../errors/index.js';
import { parseListParams } from './parse-list-params.js';

const v1 = (raw: Record<string, unknown>) => parseListParams(raw, { doctype: 'ToDo' });
const v2 = (raw: Record<string, unknown>) => parseListParams(raw, { paging: { start: 'start', pageLength: ['limit'] }, doctype: 'ToDo' });

function dataError(fn: () => unknown, mentions?: string): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof FwError, `expected an FwError, got ${String(err)}`);
    assert.equal(err.excType, 'DataError');
    assert.equal(err.status, 417);
    if (mentions) assert.ok(err.message.includes(mentions), `message "${err.message}" should mention ${mentions}`);
    return true;
  });
}

const name = { field: 'name' };

describe('parseListParams defaults', () => {
  test('lists names, 20 at a time from the start, as dicts, in the default order', () => {
    assert.deepEqual(v1({}), {
      doctype: 'ToDo',
      fields: [{ kind: 'field', ref: name }],
      filters: [],
      orFilters: [],
      orderBy: undefined,
      groupBy: [],
      start: 0,
      pageLength: 20,
      asDict: true,
    });
  });

  test('takes the doctype from the arguments when the route gives none', () => {
    assert.equal(parseListParams({ doctype: 'Note' }, {}).doctype, 'Note');
    dataError(() => parseListParams({}, {}), 'doctype');
  });
});

describe('fields', () => {
  test('accepts a JSON string or a native list', () => {
    const expected = [
      { kind: 'field', ref: { field: 'name' } },
      { kind: 'field', ref: { field: 'status' } },
    ];
    assert.deepEqual(v1({ fields: '["name","status"]' }).fields, expected);
    assert.deepEqual(v1({ fields: ['name', 'status'] }).fields, expected);
  });

  test('reads a bare * and ["*"] as every column', () => {
    assert.deepEqual(v1({ fields: '*' }).fields, [{ kind: 'all' }]);
    assert.deepEqual(v1({ fields: '["*"]' }).fields, [{ kind: 'all' }]);
  });

  test('accepts a comma-separated string as the reference does', () => {
    assert.deepEqual(v1({ fields: 'name, status' }).fields.length, 2);
  });

  test('parses aliases, link and child references and the tab form', () => {
    assert.deepEqual(v1({ fields: ['status as s', 'allocated_to.full_name', '`tabToDo Item`.`qty`', '`priority`'] }).fields, [
      { kind: 'field', ref: { field: 'status' }, alias: 's' },
      { kind: 'field', ref: { via: 'allocated_to', field: 'full_name' } },
      { kind: 'field', ref: { doctype: 'ToDo Item', field: 'qty' } },
      { kind: 'field', ref: { field: 'priority' } },
    ]);
  });

  test('parses aggregates in text and dict form', () => {
    assert.deepEqual(v1({ fields: ['count(*) as n', 'SUM(amount)', { MAX: 'count', as: 'top' }] }).fields, [
      { kind: 'aggregate', fn: 'count', alias: 'n' },
      { kind: 'aggregate', fn: 'sum', arg: { field: 'amount' } },
      { kind: 'aggregate', fn: 'max', arg: { field: 'count' }, alias: 'top' },
    ]);
  });

  test('refuses a non-list, malformed JSON, and anything but a reference', () => {
    dataError(() => v1({ fields: '{"a": 1}' }), 'fields');
    dataError(() => v1({ fields: 5 }), 'fields');
    dataError(() => v1({ fields: '["name"' }), 'fields');
    dataError(() => v1({ fields: ['name; drop table x'] }), 'name; drop table x');
    dataError(() => v1({ fields: ['1=1 --'] }), '1=1 --');
    dataError(() => v1({ fields: ['"name"'] }));
    dataError(() => v1({ fields: ["name'"] }));
    dataError(() => v1({ fields: ['name`'] }));
    dataError(() => v1({ fields: ['concat(name, status)'] }), 'concat');
    dataError(() => v1({ fields: ['sleep(5)'] }), 'sleep');
    dataError(() => v1({ fields: ['sum(*)'] }));
    dataError(() => v1({ fields: ['name as "x"'] }));
    dataError(() => v1({ fields: [{ COUNT: '*', SUM: 'x' }] }));
    dataError(() => v1({ fields: [['name']] }));
  });
});

describe('filters', () => {
  const open = { field: { field: 'status' }, op: '=', value: 'Open' };

  test('reads a dict of values and [operator, value] pairs', () => {
    assert.deepEqual(v1({ filters: { status: 'Open', date: ['>', '2025-01-01'], x: null } }).filters, [
      open,
      { field: { field: 'date' }, op: '>', value: '2025-01-01' },
      { field: { field: 'x' }, op: '=', value: null },
    ]);
  });

  test('reads the same filters from a JSON string', () => {
    assert.deepEqual(v1({ filters: '{"status":"Open"}' }).filters, [open]);
    assert.deepEqual(v1({ filters: '[["status","=","Open"]]' }).filters, [open]);
  });

  test('reads a list of 3-item and 4-item conditions, ignoring a fifth item', () => {
    assert.deepEqual(
      v1({
        filters: [
          ['status', '=', 'Open'],
          ['ToDo Item', 'qty', '>', 1],
          ['ToDo', 'name', '!=', 'x', true],
        ],
      }).filters,
      [open, { field: { doctype: 'ToDo Item', field: 'qty' }, op: '>', value: 1 }, { field: { doctype: 'ToDo', field: 'name' }, op: '!=', value: 'x' }],
    );
  });

  test('reads a single condition', () => {
    assert.deepEqual(v1({ filters: ['status', '=', 'Open'] }).filters, [open]);
    assert.deepEqual(v1({ filters: ['status', 'in', ['Open', 'Closed']] }).filters, [{ field: { field: 'status' }, op: 'in', value: ['Open', 'Closed'] }]);
  });

  test('reads a list of bare values as names; a value that is no list or dict is refused', () => {
    assert.deepEqual(v1({ filters: ['a', 'b'] }).filters, [{ field: name, op: 'in', value: ['a', 'b'] }]);
    assert.deepEqual(v1({ filters: ['a', 'b', 'c'] }).filters, [{ field: name, op: 'in', value: ['a', 'b', 'c'] }]);
    for (const filters of ['abc', '2024-0001', 42, '5', '"a"', 'true']) {
      assert.throws(() => v1({ filters }), /filters must be a list or a dict/);
      assert.throws(() => v1({ or_filters: filters }), /or_filters must be a list or a dict/);
    }
  });

  test('reads nested and/or logic', () => {
    const filters = [['status', '=', 'Open'], 'or', [['count', '>', 1], 'and', ['done', '=', 1]]];
    assert.deepEqual(v2({ filters }).filters, [
      {
        or: [
          open,
          {
            and: [
              { field: { field: 'count' }, op: '>', value: 1 },
              { field: { field: 'done' }, op: '=', value: 1 },
            ],
          },
        ],
      },
    ]);
    dataError(() => v2({ filters: [['a', '=', 1], 'or', ['b', '=', 2], 'and', ['c', '=', 3]] }), 'ambiguous');
  });

  test('treats empty filters as none', () => {
    for (const filters of [undefined, null, '', '[]', '{}', [], {}]) assert.deepEqual(v1({ filters }).filters, []);
  });

  test('normalises operators regardless of case and spacing, reading =< and => as <= and >=', () => {
    const ops = v1({
      filters: [
        ['a', 'NOT  IN', []],
        ['b', 'Like', 'x'],
        ['c', '=<', 1],
        ['d', '=>', 1],
        ['e', ' between ', [1, 2]],
      ],
    }).filters.map((f) => ('op' in f ? f.op : undefined));
    assert.deepEqual(ops, ['not in', 'like', '<=', '>=', 'between']);
  });

  test('refuses operators outside the list, <> included, naming them', () => {
    dataError(() => v1({ filters: [['status', '<>', 'Open']] }), '<>');
    dataError(() => v1({ filters: ['status', '<>', 'Open'] }), '<>');
    dataError(() => v1({ filters: [['status', '==', 'Open']] }), '==');
    dataError(() => v1({ filters: { status: ['regexp', '.*'] } }), 'regexp');
    dataError(() => v1({ filters: [['status', 'descendants of', 'x']] }), 'descendants of');
  });

  test('refuses filters of the wrong shape', () => {
    dataError(() => v1({ filters: true }), 'filters');
    dataError(() => v1({ filters: '[["status","=",' }), 'not valid JSON');
    dataError(() => v1({ filters: [['status', 'Open']] }), 'status');
    dataError(() => v1({ filters: [['status', '=', 'Open'], 'raw sql'] }), 'raw sql');
    dataError(() => v1({ filters: { status: ['=', 'a', 'b'] } }), 'status');
    dataError(() => v1({ filters: { status: { $ne: 1 } } }), 'status');
    dataError(() => v1({ filters: [[' ', 'status', '=', 'x']] }));
  });

  test('refuses field names that are not plain references', () => {
    dataError(() => v1({ filters: [['name; drop table "tabToDo"', '=', 'x']] }), 'name; drop table');
    dataError(() => v1({ filters: { '1=1 --': 'x' } }), '1=1 --');
    dataError(() => v1({ filters: [['`name', '=', 'x']] }));
    dataError(() => v1({ filters: [['ToDo', 'a.b', '=', 'x']] }));
  });

  test('refuses filters nested too deeply', () => {
    let deep: unknown = ['status', '=', 'x'];
    for (let i = 0; i < 40; i++) deep = [deep];
    dataError(() => v1({ filters: deep }), 'nested');
  });

  test('reads or_filters like filters', () => {
    assert.deepEqual(v1({ or_filters: '{"status":"Open"}' }).orFilters, [open]);
    dataError(() => v1({ or_filters: '"' }), 'or_filters');
  });
});

describe('order_by and group_by', () => {
  test('reads comma-separated terms with optional directions', () => {
    assert.deepEqual(v1({ order_by: 'status DESC, `tabToDo`.`modified` asc,allocated_to.full_name' }).orderBy, [
      { field: { field: 'status' }, direction: 'desc' },
      { field: { doctype: 'ToDo', field: 'modified' }, direction: 'asc' },
      { field: { via: 'allocated_to', field: 'full_name' } },
    ]);
    assert.deepEqual(v1({ group_by: 'status, allocated_to' }).groupBy, [{ field: 'status' }, { field: 'allocated_to' }]);
  });

  test('reads an empty order_by as the default order', () => {
    assert.equal(v1({ order_by: '' }).orderBy, undefined);
    assert.equal(v1({ order_by: 'KEEP_DEFAULT_ORDERING' }).orderBy, undefined);
  });

  test('refuses functions, sub-queries, comments, quotes and stray punctuation', () => {
    for (const order_by of [
      'name; drop table x',
      'name desc, (select 1)',
      'rand()',
      'name -- x',
      'name /* x */',
      "name'",
      'name`',
      '"name"',
      'name desc desc',
      'name,',
      'name nulls first',
      'sleep(1)',
    ]) {
      dataError(() => v1({ order_by }));
    }
    dataError(() => v1({ order_by: ['name'] }), 'order_by');
    dataError(() => v1({ group_by: 'status; drop table x' }), 'status; drop table x');
    dataError(() => v1({ group_by: 5 }), 'group_by');
  });
});

describe('paging and as_dict', () => {
  test('reads v1 limit_start and limit_page_length, with limit as an alias', () => {
    assert.deepEqual(pick(v1({ limit_start: '5', limit_page_length: '10' })), [5, 10]);
    assert.deepEqual(pick(v1({ limit_start: 5, limit: 7 })), [5, 7]);
    assert.deepEqual(pick(v1({ limit_page_length: 3, limit: 7 })), [0, 3]);
    assert.deepEqual(pick(v1({ limit_page_length: '0' })), [0, 0]);
    assert.deepEqual(pick(v1({ start: 5, page_length: 5 })), [0, 20]);
  });

  test('reads v2 start and limit', () => {
    assert.deepEqual(pick(v2({ start: '4', limit: '2' })), [4, 2]);
    assert.deepEqual(pick(v2({ limit_start: 4 })), [0, 20]);
    assert.deepEqual(pick(v2({ limit: 0 })), [0, 0]);
  });

  test('refuses negative, fractional and non-numeric paging values', () => {
    for (const bad of [-1, '-1', 1.5, '1.5', 'ten', '1e3', true, [], Number.MAX_VALUE]) {
      dataError(() => v1({ limit_page_length: bad }), 'limit_page_length');
      dataError(() => v2({ start: bad }), 'start');
    }
  });

  test('reads as_dict like sbool and refuses other values', () => {
    for (const yes of ['1', 'true', 'True', true, 1, undefined]) assert.equal(v1({ as_dict: yes }).asDict, true);
    for (const no of ['0', 'false', false, 0]) assert.equal(v2({ as_dict: no }).asDict, false);
    dataError(() => v1({ as_dict: 'maybe' }), 'as_dict');
  });
});

function pick(q: { start: number; pageLength: number }): [number, number] {
  return [q.start, q.pageLength];
}
