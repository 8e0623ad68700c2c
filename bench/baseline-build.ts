import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const BENCH = fileURLToPath(new URL('.', import.meta.url));
/** Under node_modules so that the compiled files resolve fastify, better-sqlite3 and pg from there. */
const OUT = join(BENCH, '..', 'node_modules', '.cache', 'fw-bench', 'baseline');
const FILES = ['baseline-main', 'baseline-server', 'baseline-sql', 'baseline-store', 'baseline-sqlite', 'baseline-postgres'];

/**
 * Compiles the baseline server to plain JavaScript and returns its entry file. Run through tsx
 * the baseline would carry tsx's loader and esbuild (about 30 MB of RSS) that fw, run from dist/,
 * does not; compiled, both servers' memory figures mean the same thing.
 */
export function buildBaseline(): string {
  mkdirSync(OUT, { recursive: true });
  writeFileSync(join(OUT, 'package.json'), '{"type": "module"}\n');
  for (const name of FILES) {
    const source = readFileSync(join(BENCH, `${name}.ts`), 'utf8');
    const output = ts.transpileModule(source, {
      fileName: `${name}.ts`,
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    });
    writeFileSync(join(OUT, `${name}.js`), output.outputText);
  }
  return join(OUT, 'baseline-main.js');
}
