import { spawn } from 'node:child_process';

/** How to run an external program. */
export interface RunProgramOptions {
  /** Added to this process's environment (secrets go here, never into arguments). */
  readonly env?: Readonly<Record<string, string>>;
  /** A file descriptor the program reads as standard input; none otherwise. */
  readonly stdin?: number;
  /** A file descriptor that receives the program's standard output; discarded otherwise. */
  readonly stdout?: number;
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
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      env: { ...process.env, ...options.env },
      stdio: [options.stdin ?? 'ignore', options.stdout ?? 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-KEPT_STDERR);
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
}
