import { spawn } from 'node:child_process';
import type { Readable } from 'node:stream';

/** How to run an external program. */
export interface RunProgramOptions {
  /** Added to this process's environment (secrets go here, never into arguments). */
  readonly env?: Readonly<Record<string, string>>;
  /** A file descriptor the program reads as standard input; none otherwise. */
  readonly stdin?: number;
  /** A file descriptor that receives the program's standard output; discarded otherwise. */
  readonly stdout?: number;
  /** Consumes the program's standard output instead (the run ends when both are done). */
  readonly readStdout?: (stdout: Readable) => Promise<void>;
  /** Hears each line of standard error as it comes (progress of a verbose program). */
  readonly onStderrLine?: (line: string) => void;
  /** What to install when the program is not on PATH; becomes part of the error message. */
  readonly whenMissing: string;
}

/** Only the end of a chatty program's standard error is kept: it holds the reason it stopped. */
const KEPT_STDERR = 4000;

/**
 * Runs an external program (pg_dump, pg_restore, tar) to completion. Rejects with its standard
 * error when it exits non-zero, and with `whenMissing` when it is not installed.
 */
export function runProgram(command: string, args: readonly string[], options: RunProgramOptions): Promise<void> {
  let reading: Promise<void> | undefined;
  const ran = new Promise<void>((resolve, reject) => {
    const child = spawn(command, args, {
      env: { ...process.env, ...options.env },
      stdio: [options.stdin ?? 'ignore', options.readStdout ? 'pipe' : (options.stdout ?? 'ignore'), 'pipe'],
    });
    if (options.readStdout && child.stdout) {
      reading = options.readStdout(child.stdout);
      // The program has nowhere left to write: stop it (the reading's error is the one reported).
      reading.catch(() => child.kill());
    }
    let stderr = '';
    let partial = '';
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-KEPT_STDERR);
      if (!options.onStderrLine) return;
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) options.onStderrLine(line);
    });
    child.on('error', (err: NodeJS.ErrnoException) => {
      reject(err.code === 'ENOENT' ? new Error(`${command} was not found on PATH: ${options.whenMissing}`) : err);
    });
    child.on('close', (code, signal) => {
      if (code === 0) return resolve();
      const how = signal ? `was stopped by ${signal}` : `exited with code ${code}`;
      const said = stderr.trim();
      reject(new Error(`${command} ${how}${said ? `: ${said}` : ''}`));
    });
  });
  // The first failure wins: a full disk while writing the output is the reason, not the kill that followed.
  return reading ? Promise.all([ran, reading]).then(() => undefined) : ran;
}
