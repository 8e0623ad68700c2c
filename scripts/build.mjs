// Builds fw (`npm run build`, and `prepare` at install): the server into dist/ and the admin UI into
// dist/ui. Each step says what it does before it starts and how long it took, so an install shows
// progress instead of a minute of silence; a failing step stops the build with its exit code.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';

const require = createRequire(import.meta.url);

/** The script a package names as its command `name` in package.json "bin". */
function binOf(pkg, name) {
  const manifest = require.resolve(`${pkg}/package.json`);
  const { bin } = JSON.parse(readFileSync(manifest, 'utf8'));
  return join(dirname(manifest), typeof bin === 'string' ? bin : bin[name]);
}

/** The steps, in order: what to tell the reader, and the command that does it. */
const STEPS = [
  { title: 'compiling the server (TypeScript, tsconfig.build.json) into dist/', bin: binOf('typescript', 'tsc'), args: ['-p', 'tsconfig.build.json'] },
  { title: 'building the admin UI (Vite, ui/) into dist/ui', bin: binOf('vite', 'vite'), args: ['build', 'ui'] },
];

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const started = performance.now();
STEPS.forEach((step, i) => {
  console.log(`fw build ${i + 1}/${STEPS.length}: ${step.title} ...`);
  const t0 = performance.now();
  const result = spawnSync(process.execPath, [step.bin, ...step.args], { stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`fw build ${i + 1}/${STEPS.length} failed after ${seconds(performance.now() - t0)}`);
    process.exit(result.status ?? 1);
  }
  console.log(`fw build ${i + 1}/${STEPS.length}: done in ${seconds(performance.now() - t0)}`);
});
console.log(`fw build: finished in ${seconds(performance.now() - started)}`);
