import { open, rm } from 'node:fs/promises';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { runProgram } from '../storage/run-program.js';

/** Files to archive: paths relative to `cwd`, kept as they are inside the archive. */
export interface ArchivePart {
  readonly cwd: string;
  readonly paths: readonly string[];
}

const TAR_MISSING = 'install tar (Debian/Ubuntu: apt-get install tar gzip)';

/*
 * The system tar, not an npm package: it is on every machine fw runs on and streams folders of any
 * size. Only short options that GNU tar and bsdtar share; the archive goes through stdout/stdin,
 * so a colon in its name is never read as `host:path`.
 */

/**
 * Writes a gzip-compressed tar of `parts` into the new file `file`, readable by its owner only.
 * tar writes the plain archive and this process compresses it, so `onBytes` can hear how much of
 * it has passed (the members' sizes plus tar's headers: a measure of progress).
 */
export async function writeArchive(file: string, parts: readonly ArchivePart[], onBytes?: (bytes: number) => void): Promise<void> {
  const args = ['-c', '-f', '-'];
  for (const part of parts) args.push('-C', part.cwd, ...part.paths);
  // A backup holds every secret of a site: the database and the encryption key.
  const handle = await open(file, 'wx', 0o600);
  let bytes = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      onBytes?.(bytes);
      done(null, chunk);
    },
  });
  try {
    await runProgram('tar', args, {
      // The write stream closes the file when it ends (or fails).
      readStdout: (stdout) => pipeline(stdout, counter, createGzip(), handle.createWriteStream()),
      whenMissing: TAR_MISSING,
    });
  } catch (err) {
    await handle.close().catch(() => {});
    await rm(file, { force: true });
    throw err;
  }
}

/** Unpacks a gzip-compressed tar into the existing folder `into`, with this user as the owner. */
export async function extractArchive(file: string, into: string): Promise<void> {
  const handle = await open(file, 'r');
  try {
    await runProgram('tar', ['-x', '-z', '-f', '-', '--no-same-owner', '-C', into], { stdin: handle.fd, whenMissing: TAR_MISSING });
  } finally {
    await handle.close();
  }
}
