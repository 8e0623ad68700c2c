/** The database URL forms fw understands, as every refusal lists them. */
export const SUPPORTED_DATABASE_URLS =
  'sqlite:<file> (a path relative to the site folder, e.g. sqlite:site.db, or absolute: sqlite:/srv/fw/site.db) ' +
  'or postgres://user[:password]@host[:port]/database (postgresql:// too)';

/** The URL with any password replaced by `***`, safe to print. */
function shown(url: string): string {
  return url.replace(/(\/\/[^:/@]*:)[^@]*@/, '$1***@');
}

/**
 * Why a database URL given to a site (`--db`, FW_DB_URL, site_config.json's `db_url`) cannot be
 * used, or undefined when it can. Anything but the supported forms is refused: a plain word or a
 * `mysql://` URL would otherwise have been taken for a SQLite file name and silently created.
 */
export function checkDatabaseUrl(url: string): string | undefined {
  const refuse = (why: string) => `${why}; use ${SUPPORTED_DATABASE_URLS}`;
  if (/^sqlite:/i.test(url)) {
    const path = url.slice('sqlite:'.length).replace(/^\/\//, '');
    return path.trim() === '' ? refuse(`the database URL "${url}" names no SQLite file`) : undefined;
  }
  if (/^postgres(ql)?:\/\//i.test(url)) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return refuse(`the database URL "${shown(url)}" is not a well-formed URL`);
    }
    if (!parsed.hostname && !parsed.searchParams.get('host')) return refuse(`the database URL "${shown(url)}" names no server`);
    return undefined;
  }
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1];
  if (scheme) return refuse(`fw cannot use ${scheme} databases ("${shown(url)}")`);
  return refuse(`"${shown(url)}" is not a database URL`);
}

/** Throws unless checkDatabaseUrl accepts `url`. */
export function assertDatabaseUrl(url: string): void {
  const problem = checkDatabaseUrl(url);
  if (problem) throw new Error(problem);
}
