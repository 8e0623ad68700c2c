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

const filter = process.argv.slice(2);
let files = [...collect('src', []), ...collect('test', []), ...collect('ui/src/lib', [])].sort();
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
