import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Dialect } from '../storage/dialect.js';
import { engineByName, engineNamed } from '../storage/open-database.js';

/** The archive member that describes a backup; restore reads it before touching anything. */
export const MANIFEST_FILE = 'manifest.json';

const FORMAT = 'fw-site-backup';
const VERSION = 1;

/** What a backup archive holds besides the site's own files. */
export interface BackupManifest {
  readonly format: typeof FORMAT;
  readonly version: typeof VERSION;
  /** The engine that wrote the dump; a dump restores only into the same engine. */
  readonly engine: Dialect['name'];
  /** The archive member holding the dump. */
  readonly database: string;
  /** When the backup was taken (ISO 8601, UTC). */
  readonly created: string;
}

/** The manifest of a backup being written now. */
export function newManifest(engine: Dialect['name'], created: Date): BackupManifest {
  return { format: FORMAT, version: VERSION, engine, database: engineByName(engine).dumpMember, created: created.toISOString() };
}

/**
 * Reads and checks the manifest of an unpacked backup in `folder`; `archive` names the file in
 * messages. Fails when it is no fw backup, a newer format, or its dump is missing.
 */
export async function readBackupManifest(folder: string, archive: string): Promise<BackupManifest> {
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(await readFile(join(folder, MANIFEST_FILE), 'utf8')) as Record<string, unknown>;
  } catch {
    throw new Error(`${archive} is not an fw site backup: it holds no readable ${MANIFEST_FILE}`);
  }
  if (raw?.format !== FORMAT) throw new Error(`${archive} is not an fw site backup: its ${MANIFEST_FILE} is of another kind`);
  if (raw.version !== VERSION) {
    throw new Error(`${archive} has backup format version ${String(raw.version)}; this fw reads version ${VERSION}: restore it with the fw that wrote it`);
  }
  const engine = engineNamed(raw.engine);
  if (!engine) throw new Error(`${archive} names an unknown database engine "${String(raw.engine)}"`);
  const manifest = { ...(raw as unknown as BackupManifest), database: engine.dumpMember };
  try {
    await stat(join(folder, manifest.database));
  } catch {
    throw new Error(`${archive} is incomplete: the database dump ${manifest.database} is missing`);
  }
  return manifest;
}
