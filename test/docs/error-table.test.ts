import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as errors from '../../src/errors/index.js';
import { FwError } from '../../src/errors/index.js';

/*
 * The error catalogue (src/errors/) and the table in docs/api.md "Errors" tell one story: every
 * exc_type a client can meet is in the table at its class's status, and the table names nothing
 * the catalogue lacks.
 */

const API_DOC = fileURLToPath(new URL('../../docs/api.md', import.meta.url));

/**
 * Statuses the HTTP edge gives a catalogue error in place of its class's own, for a fault only the
 * transport sees (src/http/framework-errors.ts): a body that stopped arriving (408), an `Expect`
 * header Node does not understand (417), an over-long URL segment (414), oversized headers (431).
 */
const EDGE_STATUSES: Readonly<Record<string, readonly number[]>> = {
  InvalidRequestBody: [408, 417],
  RequestTooLarge: [414, 431],
};

/** Every class the catalogue exports, FwError itself included (the 500 `Exception`). */
function catalogue(): Map<string, number> {
  const byExcType = new Map<string, number>();
  for (const value of Object.values(errors)) {
    if (typeof value !== 'function' || (value !== FwError && !(value.prototype instanceof FwError))) continue;
    const cls = value as typeof FwError;
    byExcType.set(cls.excType, cls.status);
  }
  return byExcType;
}

/** The rows of the table under "## Errors": each exc_type with every status it is listed at. */
function documentedErrors(markdown: string): Map<string, number[]> {
  const section = markdown.split(/^## /m).find((s) => s.startsWith('Errors\n'));
  assert.ok(section, 'docs/api.md has an "Errors" section');
  const listed = new Map<string, number[]>();
  for (const line of section.split('\n')) {
    const row = /^\|\s*(\d{3})\s*\|([^|]+)\|/.exec(line);
    if (!row) continue;
    for (const [, excType] of row[2]!.matchAll(/`([A-Za-z]+)`/g)) listed.set(excType!, [...(listed.get(excType!) ?? []), Number(row[1])]);
  }
  return listed;
}

describe('the error catalogue and docs/api.md "Errors"', () => {
  const classes = catalogue();
  const table = documentedErrors(readFileSync(API_DOC, 'utf8'));

  test('the scan finds the catalogue and the table', () => {
    assert.ok(classes.size > 20, `only ${classes.size} error classes found`);
    assert.ok(table.size > 20, `only ${table.size} exc_types found in the table`);
  });

  test("every exc_type of the catalogue is in the table at its class's status", () => {
    const missing = [...classes].filter(([excType, status]) => !table.get(excType)?.includes(status)).map(([e, s]) => `${s} ${e}`);
    assert.deepEqual(missing, [], `in src/errors/ but not in docs/api.md "Errors" at that status: ${missing.join(', ')}`);
  });

  test('every exc_type of the table is in the catalogue, at its status or at a status the edge gives it', () => {
    const wrong: string[] = [];
    for (const [excType, statuses] of table) {
      const own = classes.get(excType);
      if (own === undefined) {
        wrong.push(`${excType} is not in src/errors/`);
        continue;
      }
      for (const status of statuses) {
        if (status !== own && !EDGE_STATUSES[excType]?.includes(status)) wrong.push(`${excType} is listed at ${status}, its class answers ${own}`);
      }
    }
    assert.deepEqual(wrong, []);
  });

  test('the edge statuses named here are ones the table lists', () => {
    for (const [excType, statuses] of Object.entries(EDGE_STATUSES)) {
      for (const status of statuses) assert.ok(table.get(excType)?.includes(status), `${excType} at ${status} is not in the table`);
    }
  });
});
