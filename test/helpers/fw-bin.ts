import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitForOutput, type OutputWaiters } from './output-wait.js';

/** The repository root, where `node bin/fw.js` is run as the README shows. */
export const REPO = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(REPO, 'bin', 'fw.js');
const BUILT_MAIN = join(REPO, 'dist', 'cli', 'main.js');

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * Fails unless `dist/` holds a build at least as new as `src/`: `bin/fw.js` runs the build, and a
 * stale one would test old code.
 */
export function assertBuilt(): void {
  let built: number;
  try {
    built = statSync(BUILT_MAIN).mtimeMs;
  } catch {
    throw new Error('bin/fw.js runs dist/: run `npm run build` (or `npx tsc -p tsconfig.build.json`) before these tests');
  }
  if (built < newestSource(join(REPO, 'src'))) {
    throw new Error('dist/ is older than src/: run `npm run build` (or `npx tsc -p tsconfig.build.json`) before these tests');
  }
}

/** How one run of `node bin/fw.js` ended and what it printed. */
export interface BinRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Spawns `node bin/fw.js <args>` from the repository root (the README's way of running fw). */
export function spawnBin(args: string[], env: Record<string, string | undefined> = {}): ChildProcess {
  assertBuilt();
  return spawn(process.execPath, [BIN, ...args], { cwd: REPO, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Runs `node bin/fw.js <args>` to its end (killed after `timeoutMs`). */
export async function runBin(args: string[], options: { env?: Record<string, string | undefined>; timeoutMs?: number } = {}): Promise<BinRun> {
  const child = spawnBin(args, options.env);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  clearTimeout(timer);
  return { code, stdout, stderr };
}

/** Shell-quotes one argument for `script -c`. */
function quote(arg: string): string {
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/**
 * Spawns `node bin/fw.js <args>` with its stdout on a pseudo-terminal (util-linux `script`), as a
 * person starting fw in a terminal would; the terminal's output arrives on the child's stdout.
 */
export function spawnBinInTerminal(args: string[], env: Record<string, string | undefined> = {}): ChildProcess {
  assertBuilt();
  const command = [process.execPath, BIN, ...args].map(quote).join(' ');
  return spawn('script', ['-q', '-f', '-e', '-c', command, '/dev/null'], {
    cwd: REPO,
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

/** Collects a child's stdout and waits for it to match. */
export function outputOf(child: ChildProcess): { text(): string; waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray> } {
  let text = '';
  const waiters: OutputWaiters = new Set();
  child.stdout!.on('data', (c: Buffer) => {
    text += c.toString();
    for (const w of waiters) w();
  });
  child.stderr!.on('data', (c: Buffer) => (text += c.toString()));
  return {
    text: () => text,
    waitFor: (pattern, timeoutMs) =>
      waitForOutput(
        child,
        waiters,
        () => pattern.exec(text) ?? undefined,
        timeoutMs,
        () => `output matching ${pattern}:\n${text}`,
      ),
  };
}

/** Sends `signal` and waits for the exit (SIGKILL after `timeoutMs`). */
export async function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGINT', timeoutMs = 20_000): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code = await exited;
  clearTimeout(timer);
  return code;
}
