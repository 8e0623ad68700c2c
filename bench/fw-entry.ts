import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where fw is started from: the built `bin/fw.js`, or the sources through tsx. */
export type FwEntryMode = 'auto' | 'dist' | 'src';

/** The node arguments that run the fw CLI, and how they were chosen. */
export interface FwEntry {
  readonly nodeArgs: readonly string[];
  readonly from: 'dist' | 'src';
  readonly note: string;
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin', 'fw.js');
const DIST_MAIN = join(ROOT, 'dist', 'cli', 'main.js');
const SOURCE_ENTRY = fileURLToPath(new URL('./fw-from-source.ts', import.meta.url));

function newestSourceMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSourceMtime(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
    else if (entry.name.endsWith('.json')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

function distMtime(): number | undefined {
  try {
    return statSync(DIST_MAIN).mtimeMs;
  } catch {
    return undefined;
  }
}

/**
 * The node flags of `npm start` (`node <flags> bin/fw.js serve`), so the bench runs fw as it is
 * started, memory settings included.
 */
export function startScriptNodeFlags(startScript: string): string[] {
  const words = startScript.trim().split(/\s+/);
  if (words[0] !== 'node') return [];
  const flags: string[] = [];
  for (const word of words.slice(1)) {
    if (!word.startsWith('-')) break;
    flags.push(word);
  }
  return flags;
}

const packageJson = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts?: { start?: string } };
const START_FLAGS = startScriptNodeFlags(packageJson.scripts?.start ?? '');
const flagsNote = START_FLAGS.length ? `, with npm start's node flags (${START_FLAGS.join(' ')})` : '';

const fromDist = (note: string): FwEntry => ({ nodeArgs: [...START_FLAGS, BIN], from: 'dist', note: note + flagsNote });
const fromSource = (note: string): FwEntry => ({
  nodeArgs: [...START_FLAGS, '--import', 'tsx', SOURCE_ENTRY],
  from: 'src',
  note: note + flagsNote,
});

/**
 * Picks how to start fw. `auto` prefers the compiled `dist/` and rebuilds it (`npm run build`)
 * when it is missing or older than a source file, so the figures are never for stale code; when
 * the build fails it runs the sources through tsx instead (same code, same speed once loaded).
 */
export function resolveFwEntry(mode: FwEntryMode, log: (line: string) => void): FwEntry {
  if (mode === 'src') return fromSource('fw run from src/ through tsx (--fw src)');
  const built = distMtime();
  const fresh = built !== undefined && built >= newestSourceMtime(join(ROOT, 'src'));
  if (fresh) return fromDist('fw run from dist/ (bin/fw.js), up to date with src/');
  if (mode === 'dist' && built !== undefined) return fromDist('fw run from dist/ (bin/fw.js) as asked, though src/ is newer');
  log(built === undefined ? 'dist/ is missing: npm run build' : 'dist/ is older than src/: npm run build');
  const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, encoding: 'utf8' });
  if (build.status === 0 && distMtime() !== undefined) return fromDist('fw run from dist/ (bin/fw.js), rebuilt by npm run build');
  const reason = (build.stdout + build.stderr).trim().split('\n').slice(0, 3).join(' / ');
  if (mode === 'dist') throw new Error(`npm run build failed: ${reason}`);
  return fromSource(`npm run build failed (${reason.slice(0, 200)}); fw run from src/ through tsx`);
}
