import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { countSql, insertSql, listSql, parseFilters, parseListSpec } from '../../bench/baseline-sql.js';
import { renderMarkdown, updateBenchmarksDoc, END_MARKER, START_MARKER } from '../../bench/report-markdown.js';
import { percentile, spread } from '../../bench/stats.js';
import { startScriptNodeFlags } from '../../bench/fw-entry.js';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchReport } from '../../bench/report-types.js';

const COLUMNS = new Set(['name', 'description', 'status', 'creation', 'modified', 'assignment_rule']);
const q = () => '?';

describe('bench statistics', () => {
  test('percentile takes the nearest rank and spread the median and range', () => {
    const values = [5, 1, 4, 2, 3];
    assert.equal(percentile(values, 50), 3);
    assert.equal(percentile(values, 99), 5);
    assert.deepEqual(spread([4, 1, 3, 2]), { median: 2.5, min: 1, max: 4 });
    assert.ok(Number.isNaN(percentile([], 50)));
  });
});

describe('fw entry', () => {
  test("fw is benchmarked with npm start's node flags, if it has any", () => {
    assert.deepEqual(startScriptNodeFlags('node --max-semi-space-size=4 bin/fw.js serve'), ['--max-semi-space-size=4']);
    assert.deepEqual(startScriptNodeFlags('node bin/fw.js serve --port 8000'), []);
    assert.deepEqual(startScriptNodeFlags('tsx src/main.ts'), []);
  });

  test('the start script needs no node flags: bin/fw.js sizes the heap itself (test/cli/serve-heap.test.ts)', async () => {
    const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: { start: string } };
    assert.deepEqual(startScriptNodeFlags(pkg.scripts.start), []);
  });
});

describe('baseline SQL', () => {
  test('a list request becomes one parameterised SELECT over checked columns', () => {
    const spec = parseListSpec({
      fields: '["name","description"]',
      filters: '[["assignment_rule","=","rule-1"]]',
      order_by: 'modified desc',
      limit_page_length: '20',
    });
    const sql = listSql('tabToDo', COLUMNS, spec, q);
    assert.equal(sql.text, 'select "name", "description" from "tabToDo" where "assignment_rule" = ? order by "modified" desc limit 20');
    assert.deepEqual(sql.params, ['rule-1']);
  });

  test('limit_page_length=0 lists without a limit, and dict filters count like list filters', () => {
    assert.doesNotMatch(listSql('tabToDo', COLUMNS, parseListSpec({ limit_page_length: '0' }), q).text, /limit/);
    assert.deepEqual(countSql('tabToDo', COLUMNS, parseFilters({ status: 'Open' }), q), {
      text: 'select count(*) as n from "tabToDo" where "status" = ?',
      params: ['Open'],
    });
  });

  test('unknown columns and operators are refused with status 400 instead of reaching SQL', () => {
    const unknownColumn = () => listSql('tabToDo', COLUMNS, parseListSpec({ fields: '["name\\" from x; --"]' }), q);
    assert.throws(unknownColumn, (err: Error & { statusCode?: number }) => err.statusCode === 400);
    const badOperator = () => countSql('tabToDo', COLUMNS, parseFilters('[["status","; drop","x"]]'), q);
    assert.throws(badOperator, /unsupported operator/);
    assert.throws(() => insertSql('tabToDo', COLUMNS, { owner_x: 1 }, q), /unknown column/);
  });
});

describe('docs/benchmarks.md update', () => {
  test('only the text between the markers is replaced', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fw-bench-doc-'));
    try {
      const file = join(dir, 'benchmarks.md');
      await writeFile(file, `# Title\n\nintro\n\n${START_MARKER}\nold figures\n${END_MARKER}\n\nafter\n`);
      const report: BenchReport = {
        command: 'npm run bench -- --quick',
        date: '2031-01-01 00:00 UTC',
        machine: { cores: 2, cpu: 'cpu', memoryGB: 4, node: 'v20', platform: 'linux', loadAverage: [1, 1, 1] },
        settings: { quick: true, connections: [10], sliceSeconds: 0.5, warmupSeconds: 0.25, pairs: 2, fwLogLevel: 'warn' },
        notes: [],
        runs: [],
        targets: [],
        errors: 0,
      };
      await updateBenchmarksDoc(file, renderMarkdown(report));
      const text = await readFile(file, 'utf8');
      assert.match(text, /^# Title\n\nintro\n\n<!-- bench:start -->\nProduced by `npm run bench -- --quick`/);
      assert.doesNotMatch(text, /old figures/);
      assert.match(text, /<!-- bench:end -->\n\nafter\n$/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
