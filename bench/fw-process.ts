import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { benchUserToken } from './fw-auth.js';
import type { FwEntry } from './fw-entry.js';
import { freePort } from './free-port.js';
import type { StartMode } from './options.js';
import { processTree } from './process-memory.js';
import { spawnServer, waitUntilServing, type ServerProcess } from './server-process.js';

/** A site made for one bench run. */
export interface FwSite {
  readonly dir: string;
  /** Undefined for the site's own SQLite file. */
  readonly dbUrl: string | undefined;
  readonly adminPassword: string;
}

/** A running fw server with the bench user's Authorization header. */
export interface FwServer extends ServerProcess {
  readonly auth: string;
  readonly workers: number;
}

/** How to serve. */
export interface FwServeOptions {
  readonly cores: string | undefined;
  readonly workers: number;
  readonly logLevel: string;
  /** Node flags before fw's own (e.g. `--cpu-prof`), for a bench that profiles the server. */
  readonly nodeFlags?: readonly string[];
  /** How to start it (`--start`); `bin` (`node bin/fw.js serve`) unless given. */
  readonly start?: StartMode;
  /** More `fw serve` options, such as `--jobs 0`. */
  readonly extraArgs?: readonly string[];
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The program and arguments that start `fw serve <serveArgs>` the way `start` names. */
function serveCommand(entry: FwEntry, start: StartMode, serveArgs: string[]): { command?: string; args: string[] } {
  // npm start runs its script (`node bin/fw.js serve`) with these arguments after it, from the repository.
  if (start === 'npm') return { command: 'npm', args: ['start', '--silent', '--', ...serveArgs] };
  return { args: [...entry.nodeArgs, 'serve', ...serveArgs, ...(start === 'workers1' ? ['--workers', '1'] : [])] };
}

/** The process of the tree under `root` that runs fw's bin (under npm start: below npm and its shell). */
function fwProcess(root: number): number {
  for (const pid of processTree(root)) {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (argv.some((a) => a.endsWith('fw.js') || a.endsWith('fw-from-source.ts'))) return pid;
    } catch {
      // ended while we looked
    }
  }
  return root;
}

/** Creates a fresh site with `fw new-site` (unpinned: set-up is not measured). */
export function createFwSite(entry: FwEntry, dir: string, dbUrl: string | undefined): FwSite {
  const adminPassword = randomBytes(12).toString('base64url');
  // `--opt=value`: a base64url password may begin with '-', which the option parser would take for a flag.
  const args = [...entry.nodeArgs, 'new-site', dir, `--admin-password=${adminPassword}`];
  if (dbUrl) args.push('--db', dbUrl);
  const result = spawnSync(process.execPath, args, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`fw new-site failed (${result.status}):\n${result.stdout}${result.stderr}`);
  return { dir, dbUrl, adminPassword };
}

/**
 * Starts `fw serve` on the site, waits until it answers, and gets the bench user's API key.
 * Resolves with `unsupported` (and a reason) when this fw does not know `--workers`.
 */
export async function startFw(entry: FwEntry, site: FwSite, options: FwServeOptions): Promise<{ server: FwServer } | { unsupported: string }> {
  const port = await freePort();
  const start = options.start ?? 'bin';
  if (start === 'npm' && entry.from !== 'dist') return { unsupported: 'npm start runs dist/, which could not be built' };
  const serveArgs = ['--site', site.dir, '--host', '127.0.0.1', '--port', String(port)];
  if (options.workers > 1) serveArgs.push('--workers', String(options.workers));
  serveArgs.push(...(options.extraArgs ?? []));
  const { command, args: serve } = serveCommand(entry, start, serveArgs);
  // Node flags go before the entry (the realtime bench profiles the server with them); npm start takes none.
  const args = command === undefined ? [...(options.nodeFlags ?? []), ...serve] : serve;
  const spawned = spawnServer({
    name: options.workers > 1 ? `fw (${options.workers} workers)` : 'fw',
    command,
    cwd: ROOT,
    args,
    cores: options.cores,
    port,
    env: { FW_LOG_LEVEL: options.logLevel, FW_ADMIN_PASSWORD: site.adminPassword },
  });
  let server: ServerProcess = spawned;
  try {
    await waitUntilServing(spawned, '/api/method/ping');
    // Measured (peak RSS) is fw's process tree: under npm start, not npm's own node process.
    const pid = fwProcess(spawned.pid);
    server = {
      ...spawned,
      pid,
      async stop(graceMs) {
        // npm and its shell need not pass the signal on; fw stops gracefully on its own SIGTERM.
        if (pid !== spawned.pid) {
          try {
            process.kill(pid, 'SIGTERM');
          } catch {
            // already ended
          }
        }
        await spawned.stop(graceMs);
      },
    };
  } catch (err) {
    const exit = await Promise.race([server.exited, new Promise<undefined>((r) => setTimeout(() => r(undefined), 100))]);
    if (options.workers > 1 && exit === 2 && /--workers|unknown option/i.test(server.output())) {
      return { unsupported: `fw serve does not accept --workers yet (${server.output().trim().split('\n')[0]})` };
    }
    await server.stop();
    throw err;
  }
  try {
    const auth = await benchUserToken(server.origin, site.adminPassword);
    return { server: { ...server, auth, workers: options.workers } };
  } catch (err) {
    await server.stop();
    throw err;
  }
}
