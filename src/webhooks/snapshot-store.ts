import type { Doc } from '../meta/doctype.js';
import type { Queryable } from '../storage/database.js';
import type { Dialect } from '../storage/dialect.js';
import { SNAPSHOT_TABLE } from './outbox-table.js';

/** Rows per INSERT: bounds a batch's parameters (PostgreSQL allows 65 535). */
const CHUNK = 200;

/** Stores the documents of new deliveries, keyed by their logs, on the caller's transaction. */
export async function writeSnapshots(q: Queryable, dialect: Dialect, snapshots: readonly { log: string; doc: Doc }[]): Promise<void> {
  for (let i = 0; i < snapshots.length; i += CHUNK) {
    const rows = snapshots.slice(i, i + CHUNK).map((s) => ({ name: s.log, doc: JSON.stringify(s.doc) }));
    await q.run(dialect.builder.insertInto(SNAPSHOT_TABLE).values(rows).compile());
  }
}

/** The document a delivery renders from, when it was not rendered yet. */
export async function readSnapshot(q: Queryable, dialect: Dialect, log: string): Promise<Doc | undefined> {
  const [row] = await q.all<{ doc: string }>(dialect.builder.selectFrom(SNAPSHOT_TABLE).select('doc').where('name', '=', log).compile());
  return row ? (JSON.parse(String(row.doc)) as Doc) : undefined;
}

/** Forgets a delivery's document: it was rendered, refused, or its log was deleted. */
export async function dropSnapshot(q: Queryable, dialect: Dialect, log: string): Promise<void> {
  await q.run(dialect.builder.deleteFrom(SNAPSHOT_TABLE).where('name', '=', log).compile());
}
