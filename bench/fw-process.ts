import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { benchUserToken } from './fw-auth.js';
import type { FwEntry } from './fw-entry.js';
import { freePort } from './free-port.js';
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
  /** More `fw serve` options, such as `--jobs 0`. */
  readonly extraArgs?: readonly string[];
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
  const args = [...entry.nodeArgs, 'serve', '--site', site.dir, '--host', '127.0.0.1', '--port', String(port)];
  if (options.workers > 1) args.push('--workers', String(options.workers));
  args.push(...(options.extraArgs ?? []));
  const server = spawnServer({
    name: options.workers > 1 ? `fw (${options.workers} workers)` : 'fw',
    args,
    cores: options.cores,
    port,
    env: { FW_LOG_LEVEL: options.logLevel, FW_ADMIN_PASSWORD: site.adminPassword },
  });
  try {
    await waitUntilServing(server, '/api/method/ping');
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
