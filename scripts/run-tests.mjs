// Runs every *.test.ts under src/, test/ and ui/src/lib/ (the admin UI's logic) with node's test
// runner (TypeScript through tsx).
// FW_TEST_DIALECTS=sqlite narrows the storage matrix; by default PostgreSQL joins when reachable.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function collect(dir, out) {
  for (const entry of readdirSync(dir)) {
    const p = join(dir, entry);
    if (statSync(p).isDirectory()) collect(p, out);
    else if (p.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

/**
 * Files that take a minute or more (real browsers, servers killed and restarted, the bench's smoke
 * run, exports of many rows) start first: started last in alphabetical order, they would leave the
 * other slots idle while they finish.
 */
const SLOW_FIRST = ['test/ui/', 'import-restart', 'test/bench/', 'test/data/export', 'test/cli/', 'test/realtime/'];
const slowRank = (file) => {
  const i = SLOW_FIRST.findIndex((part) => file.includes(part));
  return i === -1 ? SLOW_FIRST.length : i;
};

const filter = process.argv.slice(2);
let files = [...collect('src', []), ...collect('test', []), ...collect('ui/src/lib', [])].sort((a, b) => slowRank(a) - slowRank(b) || a.localeCompare(b));
if (filter.length) files = files.filter((f) => filter.some((x) => f.includes(x)));
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
const concurrency = process.env.FW_TEST_CONCURRENCY ?? '4';
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, '--test-reporter=spec', ...files], {
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
