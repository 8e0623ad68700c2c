import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makePrincipal } from '../../src/auth/principal.js';
import { main } from '../../src/cli/main.js';
import { createSite, openSite } from '../../src/site/open-site.js';
import type { Site } from '../../src/site/site.js';
import type { DialectCase } from '../helpers/dialects.js';

/** What one in-process run of the CLI returned and printed. */
export interface CliRun {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

/** Runs `fw <argv>` in process, capturing console output and progress written to stderr. */
export async function runCli(argv: string[]): Promise<CliRun> {
  const out: string[] = [];
  const err: string[] = [];
  const log = console.log;
  const error = console.error;
  const write = process.stderr.write.bind(process.stderr);
  console.log = (...a: unknown[]) => void out.push(a.join(' '));
  console.error = (...a: unknown[]) => void err.push(a.join(' '));
  process.stderr.write = ((chunk: string) => (err.push(String(chunk)), true)) as typeof process.stderr.write;
  try {
    const code = await main(argv);
    return { code, out: out.join('\n'), err: err.join('\n') };
  } finally {
    console.log = log;
    console.error = error;
    process.stderr.write = write;
  }
}

/** The Administrator, for work done through the services without HTTP. */
export const ADMIN = makePrincipal({ user: 'Administrator', roles: [] });

/** Temp folders and databases of a suite, removed together at its end. */
export class Scratch {
  readonly #cleanups: Array<() => Promise<void>> = [];
  readonly #dialect: DialectCase;

  constructor(dialect: DialectCase) {
    this.#dialect = dialect;
  }

  /** A path inside a new temp folder; nothing exists at it yet. */
  async folder(name: string): Promise<string> {
    const parent = await mkdtemp(join(tmpdir(), 'fw-cli-'));
    this.#cleanups.push(() => rm(parent, { recursive: true, force: true }));
    return join(parent, name);
  }

  /** A new empty database of the suite's dialect. */
  async databaseUrl(): Promise<string> {
    const created = await this.#dialect.createUrl();
    this.#cleanups.push(created.drop);
    return created.url;
  }

  /** A new site with its own database. */
  async site(name: string): Promise<string> {
    const dir = await this.folder(name);
    await createSite(dir, { dbUrl: await this.databaseUrl(), adminPassword: 'admin-Secret-42' });
    return dir;
  }

  /** Removes every folder and database the suite made. */
  async dispose(): Promise<void> {
    for (const cleanup of this.#cleanups.reverse()) await cleanup();
  }
}

/** Opens a site, runs `work`, closes it. */
export async function withSite<T>(dir: string, work: (site: Site) => Promise<T>): Promise<T> {
  const site = await openSite(dir);
  try {
    return await work(site);
  } finally {
    await site.close();
  }
}

/** Creates a custom DocType with a Data `title` and an Int `pages` field. */
export async function createBookDocType(site: Site, name: string): Promise<void> {
  await site.write(ADMIN, (ctx) =>
    site.documents.insert(ctx, 'DocType', {
      name,
      autoname: 'field:title',
      fields: [
        { fieldname: 'title', label: 'Title', fieldtype: 'Data', reqd: 1 },
        { fieldname: 'pages', label: 'Pages', fieldtype: 'Int' },
      ],
      permissions: [{ role: 'System Manager', read: 1, write: 1, create: 1, delete: 1 }],
    }),
  );
}
