import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FwError } from '../errors/index.js';
import { PostgresDialect } from '../storage/postgres/postgres-dialect.js';
import { SqliteDialect } from '../storage/sqlite/sqlite-dialect.js';
import { compileCountQuery, compileListQuery, type CompileContext } from './compile-list-query.js';
import { fixtureContext } from './list-query-fixtures.js';
import type { Condition } from './list-query.js';
import { parseListParams } from './parse-list-params.js';

const sqlite = new SqliteDialect();

function compile(raw: Record<string, unknown>, overrides: Partial<CompileContext> = {}) {
  const query = parseListParams(raw, { doctype: 'ToDo' });
  return compileListQuery(query, fixtureContext(overrides.dialect ?? sqlite, overrides));
}

function refused(raw: Record<string, unknown>, excType: string, mentions: string, overrides: Partial<CompileContext> = {}) {
  assert.throws(
    () => compile(raw, overrides),
    (err: unknown) => {
      assert.ok(err instanceof FwError, `expected an FwError, got ${String(err)}`);
      assert.equal(err.excType, excType);
      assert.ok(err.message.includes(mentions), `message "${err.message}" should mention ${mentions}`);
      return true;
    },
  );
}

describe('compileListQuery SQL', () => {
  test('the default list selects names in the default order with a tie-breaker and a bound limit', () => {
    const { statement, columns } = compile({});
    assert.equal(statement.sql, 'select "t"."name" as "name" from "tabToDo" as "t" order by "t"."creation" desc, "t"."name" desc limit +?');
    assert.deepEqual(statement.parameters, [20]);
    assert.deepEqual(
      columns.map((c) => c.key),
      ['name'],
    );
  });

  test('filters become bound comparisons with the NULL semantics of the reference', () => {
    const { statement } = compile({
      filters: [
        ['status', '=', ''],
        ['priority', '!=', 'x'],
        ['count', '<', '3'],
        ['date', '>', '2025-05-01'],
      ],
      limit_page_length: 0,
      order_by: 'name asc',
    });
    assert.equal(
      statement.sql,
      'select "t"."name" as "name" from "tabToDo" as "t" where (("t"."status" is null or "t"."status" = ?) ' +
        'and coalesce("t"."priority", ?) != ? and coalesce("t"."count", ?) < ? and "t"."date" > ?) order by "t"."name" asc',
    );
    assert.deepEqual(statement.parameters, ['', '', 'x', 0, 3, '2025-05-01']);
  });

  test('or_filters form one ORed group and the restriction is ANDed after them', () => {
    const restrict: Condition = { field: { field: 'owner' }, op: '=', value: 'u@x' };
    const { statement } = compile({ filters: { status: 'Open' }, or_filters: { priority: 'High', done: 1 }, order_by: 'name' }, { restrict });
    assert.match(statement.sql, / where "t"\."status" = \? and \("t"\."priority" = \? or "t"\."done" = \?\) and "t"\."owner" = \? order by/);
    assert.deepEqual(statement.parameters, ['Open', 'High', 1, 'u@x', 20]);
  });

  test('link and child references join their tables, binding the parent type and table field', () => {
    const { statement, columns } = compile({
      fields: ['name', 'allocated_to.full_name as who', 'items.qty'],
      limit_page_length: 0,
      order_by: 'who desc',
    });
    assert.equal(
      statement.sql,
      'select "t"."name" as "name", "link_1"."full_name" as "who", "child_1"."qty" as "qty" from "tabToDo" as "t" ' +
        'left join "tabUser" as "link_1" on "link_1"."name" = "t"."allocated_to" ' +
        'left join "tabToDo Item" as "child_1" on "child_1"."parent" = "t"."name" and "child_1"."parenttype" = ? ' +
        'and "child_1"."parentfield" = ? order by "link_1"."full_name" desc nulls last, "t"."name" desc',
    );
    assert.deepEqual(statement.parameters, ['ToDo', 'items']);
    assert.deepEqual(
      columns.map((c) => [c.key, c.column]),
      [
        ['name', 'name'],
        ['who', 'who'],
        ['qty', 'qty'],
      ],
    );
  });

  test('a child DocType named by two table fields joins without a parentfield condition', () => {
    const { statement } = compile({ filters: [['ToDo Item', 'item', '=', 'z']] });
    assert.match(statement.sql, /on "child_1"\."parent" = "t"\."name" and "child_1"\."parenttype" = \? where/);
  });

  test('the same link used twice is joined once', () => {
    const { statement } = compile({ fields: ['allocated_to.full_name'], filters: { 'allocated_to.enabled': 1 } });
    assert.equal(statement.sql.match(/left join/g)?.length, 1);
  });

  test('NULLS FIRST and LAST apply to nullable columns only', () => {
    const { statement } = compile({ order_by: 'count asc, modified desc' });
    assert.match(statement.sql, /order by "t"\."count" asc nulls first, "t"\."modified" desc, "t"\."name" desc limit/);
  });

  test('name already in order_by gets no second tie-breaker', () => {
    const { statement } = compile({ order_by: 'name desc, status' });
    assert.match(statement.sql, /order by "t"\."name" desc, "t"\."status" asc nulls first limit/);
  });

  test('v2 orders a term without direction descending', () => {
    const query = parseListParams({ order_by: 'status' }, { paging: { start: 'start', pageLength: ['limit'] }, doctype: 'ToDo' });
    const { statement } = compileListQuery(query, fixtureContext(sqlite, { defaultDirection: 'desc' }));
    assert.match(statement.sql, /order by "t"\."status" desc nulls last, "t"\."name" desc/);
  });

  test('a grouped query without order_by is ordered by its groups', () => {
    const { statement } = compile({ fields: ['status', 'count(*) as n'], group_by: 'status' });
    assert.match(statement.sql, /group by "t"\."status" order by "t"\."status" desc nulls last limit \+\?$/);
  });

  test('no limit means no LIMIT, and an offset alone gets the largest safe limit', () => {
    assert.doesNotMatch(compile({ limit_page_length: 0 }).statement.sql, /limit/);
    const { statement } = compile({ limit_page_length: 0, limit_start: 5 });
    assert.match(statement.sql, /limit \+\? offset \?$/);
    assert.deepEqual(statement.parameters, [Number.MAX_SAFE_INTEGER, 5]);
  });

  test('PostgreSQL gets ilike and numbered placeholders', () => {
    const { statement } = compile({ filters: [['description', 'like', '%a%']] }, { dialect: new PostgresDialect() });
    assert.match(statement.sql, /"t"\."description" ilike \$1 escape '\\' order by/);
  });

  test('a repeated key gets a distinct SQL alias', () => {
    const { columns } = compile({ fields: ['name', 'allocated_to.name', 'items.name'] });
    assert.deepEqual(
      columns.map((c) => [c.key, c.column]),
      [
        ['name', 'name'],
        ['name', '_c1'],
        ['name', '_c2'],
      ],
    );
    const counted = compile({ fields: ['count(*)'] }).columns;
    assert.deepEqual(
      counted.map((c) => [c.key, c.column]),
      [['count(*)', '_c0']],
    );
  });

  test('timespan becomes a between over whole days of today in the site zone', () => {
    const { statement } = compile({ filters: [['due', 'timespan', 'today']] }, { today: '2025-05-14' });
    assert.match(statement.sql, /"t"\."due" between \? and \?/);
    assert.deepEqual(statement.parameters.slice(0, 2), ['2025-05-14 00:00:00.000000', '2025-05-14 23:59:59.999999']);
  });
});

describe('compileListQuery refusals', () => {
  test('an unknown field anywhere is a DataError naming it', () => {
    refused({ fields: ['nope'] }, 'DataError', 'Field not permitted in query: nope');
    refused({ filters: { nope: 1 } }, 'DataError', 'Field not permitted in query: nope');
    refused({ order_by: 'nope desc' }, 'DataError', 'Field not permitted in query: nope');
    refused({ group_by: 'nope' }, 'DataError', 'Field not permitted in query: nope');
    refused({ fields: ['allocated_to.nope'] }, 'DataError', 'allocated_to.nope');
    refused({ fields: ['items.nope'] }, 'DataError', 'items.nope');
  });

  test('fields without a column, secrets and non-link references are not permitted', () => {
    refused({ fields: ['items'] }, 'DataError', 'items');
    refused({ fields: ['details_section'] }, 'DataError', 'details_section');
    refused({ fields: ['pin'] }, 'DataError', 'pin');
    refused({ filters: { pin: '1234' } }, 'DataError', 'pin');
    refused({ fields: ['status.name'] }, 'DataError', 'status.name');
    refused({ fields: ['nope.name'] }, 'DataError', 'nope.name');
  });

  test('a 4-item filter may only name this DocType or one of its child DocTypes', () => {
    refused({ filters: [['User', 'name', '=', 'x']] }, 'DataError', 'User.name');
    refused({ filters: [['ToDo"; drop table x; --', 'name', '=', 'x']] }, 'DataError', 'drop table');
    refused({ fields: ['`tabUser`.name'] }, 'DataError', 'User.name');
  });

  test('bad values for is, between, timespan and previous are DataErrors', () => {
    refused({ filters: [['status', 'is', 'maybe']] }, 'DataError', 'maybe');
    refused({ filters: [['date', 'between', '2025-01-01']] }, 'DataError', 'between');
    refused({ filters: [['count', 'between', [1]]] }, 'DataError', 'between');
    refused({ filters: [['date', 'timespan', 'someday']] }, 'DataError', 'someday');
    refused({ filters: [['status', 'timespan', 'today']] }, 'DataError', 'status');
    refused({ filters: [['date', 'previous', '2 weeks']] }, 'DataError', '2 weeks');
    refused({ filters: [['status', 'in', { a: 1 }]] }, 'DataError', 'status');
    refused({ filters: [['status', 'like', ['a']]] }, 'DataError', 'status');
    refused({ filters: [['status', '=', { a: 1 }]] }, 'DataError', 'status');
  });

  test('grouped queries must select and order only grouped fields and aggregates', () => {
    refused({ fields: ['name', 'status'], group_by: 'status' }, 'DataError', 'name');
    refused({ fields: '*', group_by: 'status' }, 'DataError', 'group_by');
    refused({ fields: ['status', 'count(*)'] }, 'DataError', 'status');
    refused({ fields: ['status'], group_by: 'status', order_by: 'count desc' }, 'DataError', 'count');
    refused({ fields: ['sum(status)'] }, 'DataError', 'sum');
  });

  test('fields the caller may not read are dropped from the select list but refused in filters and order_by', () => {
    const canRead = (_meta: unknown, fieldname: string) => fieldname !== 'priority';
    const { columns } = compile({ fields: ['name', 'priority'] }, { canRead });
    assert.deepEqual(
      columns.map((c) => c.key),
      ['name'],
    );
    assert.ok(!compile({ fields: '*' }, { canRead }).columns.some((c) => c.key === 'priority'));
    refused({ filters: { priority: 'High' } }, 'PermissionError', 'priority', { canRead });
    refused({ order_by: 'priority' }, 'PermissionError', 'priority', { canRead });
    refused({ fields: ['priority'] }, 'PermissionError', 'No readable fields', { canRead });
  });

  test("shares ORed into the restriction are the share table's, for the user and (but for Guest) everyone, with read", () => {
    const shared = (everyone: boolean): Condition => ({
      or: [{ field: { field: 'owner' }, op: '=', value: 'u@x' }, { sharedWith: { doctype: 'ToDo', user: 'u@x', everyone } }],
    });
    const user = compile({}, { restrict: shared(true) }).statement;
    assert.match(
      user.sql,
      /\("t"\."owner" = \? or "t"\."name" in \(select "share_name" from "tabDocShare" where "share_doctype" = \? and "read" = 1 and \("user" = \? or "everyone" = 1\)\)\)/,
    );
    assert.deepEqual(user.parameters.slice(0, 3), ['u@x', 'ToDo', 'u@x']);
    const guest = compile({}, { restrict: shared(false) }).statement.sql;
    assert.match(guest, /and "read" = 1 and "user" = \?\)/);
    assert.doesNotMatch(guest, /everyone/);
  });

  test('the restriction is not subject to read checks', () => {
    const canRead = (_meta: unknown, fieldname: string) => fieldname !== 'owner';
    const restrict: Condition = { field: { field: 'owner' }, op: '=', value: 'u@x' };
    assert.match(compile({}, { canRead, restrict }).statement.sql, /"t"\."owner" = \?/);
  });

  test('metadata for another DocType is a programming error', () => {
    const query = parseListParams({}, { doctype: 'User' });
    assert.throws(
      () => compileListQuery(query, fixtureContext(sqlite)),
      (err: unknown) => !(err instanceof FwError),
    );
  });
});

describe('compileCountQuery', () => {
  test('counts rows matching the filters without paging or order', () => {
    const query = parseListParams({ filters: { status: 'Open' }, limit: 5, order_by: 'name' }, { doctype: 'ToDo' });
    assert.deepEqual(compileCountQuery(query, fixtureContext(sqlite)), {
      sql: 'select count(*) as "count" from "tabToDo" as "t" where "t"."status" = ?',
      parameters: ['Open'],
    });
  });

  test('counts distinct documents when a child table is joined', () => {
    const query = parseListParams({ filters: { 'items.qty': 1 } }, { doctype: 'ToDo' });
    assert.match(compileCountQuery(query, fixtureContext(sqlite)).sql, /^select count\(distinct "t"\."name"\) as "count"/);
  });
});
