import { engineOf } from '../storage/open-database.js';
import { resolveDbUrl, sitePaths } from '../site/site-paths.js';

/** What the banner says about the site being served. */
export interface BannerFacts {
  /** Where the server listens, e.g. `http://127.0.0.1:8000`. */
  readonly url: string;
  readonly dir: string;
  /** The database URL in effect (`--db` or the site config's). */
  readonly dbUrl: string;
  /** Where the Administrator's password came from, in a few words. */
  readonly passwordSource: string;
  readonly workers: number;
}

/** `http://host:port` for a listening address; a wildcard host is shown as 127.0.0.1, which reaches it. */
export function listeningUrl(host: string, port: number): string {
  const shown = host === '0.0.0.0' || host === '::' || host === '' ? '127.0.0.1' : host;
  return `http://${shown.includes(':') ? `[${shown}]` : shown}:${port}`;
}

/** The database in words: engine and file, or engine and server (never a password). */
function databaseWords(dbUrl: string, dir: string): string {
  return engineOf(dbUrl).describe(resolveDbUrl(dbUrl, sitePaths(dir)));
}

/**
 * The few lines a person starting `fw serve` in a terminal needs: where to point the browser,
 * which folder and database are served and how to sign in. Only in the pretty log format; JSON
 * logs stay one object per line.
 */
export function serveBanner(facts: BannerFacts): string {
  const processes = facts.workers > 1 ? ` (${facts.workers} processes)` : '';
  return [
    '',
    `  fw is serving ${facts.url}${processes}`,
    `  admin UI:  ${facts.url}/app   (sign in as Administrator)`,
    `  site:      ${sitePaths(facts.dir).root}`,
    `  database:  ${databaseWords(facts.dbUrl, facts.dir)}`,
    `  password:  ${facts.passwordSource}`,
    '  Ctrl-C stops the server.',
    '',
  ].join('\n');
}
