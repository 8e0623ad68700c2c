/*
 * Shared by the query tests (no tests of its own): three DocTypes (ToDo with a Link to User and
 * two tables of ToDo Item), their tables, and rows holding NULLs, empty strings, quotes and LIKE
 * wildcards, so every operator's NULL semantics can be checked on a real database.
 */
import { DoesNotExistError } from '../errors/index.js';
import type { DocTypeDef } from '../meta/doctype.js';
import { createFieldTypeRegistry } from '../meta/field-types/index.js';
import { Meta } from '../meta/meta.js';
import { syncTable } from '../meta/schema-sync.js';
import type { Database, Row } from '../storage/database.js';
import type { Dialect } from '../storage/dialect.js';
import { compileCountQuery, compileListQuery, type CompileContext } from './compile-list-query.js';
import { parseListParams, type PagingNames } from './parse-list-params.js';
import { shapeRows, type ShapedRow } from './shape-rows.js';

const USER: DocTypeDef = {
  name: 'User',
  fields: [
    { fieldname: 'full_name', fieldtype: 'Data' },
    { fieldname: 'enabled', fieldtype: 'Check' },
  ],
};

const TODO_ITEM: DocTypeDef = {
  name: 'ToDo Item',
  istable: 1,
  fields: [
    { fieldname: 'item', fieldtype: 'Data' },
    { fieldname: 'qty', fieldtype: 'Int' },
  ],
};

const TODO: DocTypeDef = {
  name: 'ToDo',
  fields: [
    { fieldname: 'status', fieldtype: 'Select', options: 'Open\nClosed\nCancelled' },
    { fieldname: 'priority', fieldtype: 'Data' },
    { fieldname: 'description', fieldtype: 'Small Text' },
    { fieldname: 'allocated_to', fieldtype: 'Link', options: 'User' },
    { fieldname: 'details_section', fieldtype: 'Section Break' },
    { fieldname: 'date', fieldtype: 'Date' },
    { fieldname: 'due', fieldtype: 'Datetime' },
    { fieldname: 'at', fieldtype: 'Time' },
    { fieldname: 'amount', fieldtype: 'Float' },
    { fieldname: 'count', fieldtype: 'Int' },
    { fieldname: 'done', fieldtype: 'Check' },
    { fieldname: 'pin', fieldtype: 'Password' },
    { fieldname: 'items', fieldtype: 'Table', options: 'ToDo Item' },
    { fieldname: 'extras', fieldtype: 'Table', options: 'ToDo Item' },
  ],
};

/** The compiled fixture DocTypes by name. */
export function fixtureMetas(): Map<string, Meta> {
  const types = createFieldTypeRegistry();
  return new Map([USER, TODO_ITEM, TODO].map((def) => [def.name, new Meta(def, types)]));
}

/** The day the fixture's date filters are evaluated on: Wednesday 2025-05-14. */
export const FIXTURE_TODAY = '2025-05-14';

/** A compile context for ToDo on `dialect`, with today fixed. */
export function fixtureContext(dialect: Dialect, overrides: Partial<CompileContext> = {}): CompileContext {
  const metas = fixtureMetas();
  const metaOf = (doctype: string): Meta => {
    const meta = metas.get(doctype);
    if (!meta) throw new DoesNotExistError(`DocType ${doctype} not found`);
    return meta;
  };
  return { meta: metaOf('ToDo'), metaOf, dialect, timeZone: 'UTC', today: FIXTURE_TODAY, ...overrides };
}

const stamp = (n: number) => `2025-01-01 00:00:0${n}.000000`;

function standard(name: string, n: number, owner: string): Row {
  return { name, owner, creation: stamp(n), modified: stamp(n), modified_by: owner, docstatus: 0, idx: 0 };
}

/** The text of a4's description: an injection attempt that must come back as data. */
export const HOSTILE_TEXT = `Robert'); DROP TABLE "tabToDo";-- \`x\``;

const TODOS: Row[] = [
  {
    ...standard('a1', 1, 'alice@example.com'),
    status: 'Open',
    priority: 'High',
    description: "O'Brien's task",
    allocated_to: 'alice',
    date: '2025-05-14',
    due: '2025-05-14 10:00:00.000000',
    at: '09:30:00.000000',
    amount: 10.5,
    count: 3,
    done: 1,
  },
  {
    ...standard('a2', 2, 'bob@example.com'),
    status: 'Closed',
    priority: '',
    description: 'plain',
    allocated_to: 'bob',
    date: '2025-05-10',
    due: '2025-05-10 23:59:59.500000',
    at: '18:00:00.000000',
    amount: 0,
    count: 0,
    done: 0,
  },
  {
    ...standard('a3', 3, 'alice@example.com'),
    status: 'Open',
    priority: null,
    description: null,
    allocated_to: null,
    date: null,
    due: null,
    at: null,
    amount: null,
    count: null,
    done: null,
  },
  {
    ...standard('a4', 4, 'bob@example.com'),
    status: 'Cancelled',
    priority: 'Low',
    description: HOSTILE_TEXT,
    allocated_to: 'alice',
    date: '2025-04-30',
    due: '2025-06-01 00:00:00.000000',
    at: '00:00:00.000000',
    amount: -5,
    count: 7,
    done: 0,
  },
  {
    ...standard('a5', 5, 'carol@example.com'),
    status: null,
    priority: 'high',
    description: '100% sure_thing',
    allocated_to: 'carol',
    date: '2024-12-31',
    due: '2025-05-15 00:00:00.000000',
    at: '12:00:00.000000',
    amount: 2.25,
    count: 1,
    done: 1,
  },
];

const USERS: Row[] = [
  { ...standard('alice', 1, 'Administrator'), full_name: 'Alice A', enabled: 1 },
  { ...standard('bob', 2, 'Administrator'), full_name: 'Bob B', enabled: 0 },
  { ...standard('carol', 3, 'Administrator'), full_name: null, enabled: 1 },
];

function child(name: string, parent: string, parentfield: string, idx: number, item: string, qty: number): Row {
  return { ...standard(name, 1, 'Administrator'), idx, parent, parentfield, parenttype: 'ToDo', item, qty };
}

const ITEMS: Row[] = [
  child('i1', 'a1', 'items', 1, 'x', 1),
  child('i2', 'a1', 'items', 2, 'y', 2),
  child('i3', 'a1', 'extras', 1, 'z', 9),
  child('i4', 'a2', 'items', 1, 'x', 5),
];

/** Creates the fixture tables in `db` and fills them. */
export async function seedFixtures(db: Database): Promise<void> {
  const metas = fixtureMetas();
  await db.transaction(async (q) => {
    for (const meta of metas.values()) await syncTable(q, db.dialect, meta);
    const insert = async (table: string, rows: Row[]) => {
      for (const row of rows) await q.run(db.dialect.builder.insertInto(table).values(row).compile());
    };
    await insert('tabToDo', TODOS);
    await insert('tabUser', USERS);
    await insert('tabToDo Item', ITEMS);
  });
}

/** Runs list and count requests for ToDo against a seeded database, as the services would. */
export interface FixtureRunner {
  /** The shaped rows of a v1 list request (no limit unless given). */
  run(raw: Record<string, unknown>, overrides?: Partial<CompileContext>, paging?: PagingNames): Promise<ShapedRow[]>;
  /** `run`, for requests whose rows are dicts. */
  dicts(raw: Record<string, unknown>, overrides?: Partial<CompileContext>): Promise<Record<string, unknown>[]>;
  /** The names matching `filters`, in name order. */
  names(filters: unknown, extra?: Record<string, unknown>): Promise<unknown[]>;
  /** The count request's answer. */
  count(raw: Record<string, unknown>, overrides?: Partial<CompileContext>): Promise<number>;
}

/** A runner over `db`, which seedFixtures has filled. */
export function fixtureRunner(db: Database): FixtureRunner {
  const run: FixtureRunner['run'] = async (raw, overrides = {}, paging) => {
    const query = parseListParams({ limit_page_length: 0, ...raw }, { ...(paging ? { paging } : {}), doctype: 'ToDo' });
    const { statement, columns } = compileListQuery(query, fixtureContext(db.dialect, overrides));
    const rows = await db.read((q) => q.all(statement));
    return shapeRows(rows, columns, query.asDict);
  };
  const dicts: FixtureRunner['dicts'] = async (raw, overrides) => (await run(raw, overrides)) as Record<string, unknown>[];
  return {
    run,
    dicts,
    names: async (filters, extra = {}) => (await dicts({ filters, order_by: 'name asc', ...extra })).map((r) => r.name),
    async count(raw, overrides = {}) {
      const query = parseListParams(raw, { doctype: 'ToDo' });
      const rows = await db.read((q) => q.all(compileCountQuery(query, fixtureContext(db.dialect, overrides))));
      return Number(rows[0].count);
    },
  };
}
