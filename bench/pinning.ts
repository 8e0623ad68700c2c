import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';

/** Which cores the servers and the load generator run on (`taskset -c` lists), when they can be pinned. */
export interface Pinning {
  readonly server: string | undefined;
  readonly load: string | undefined;
  /** One line for the report: how the processes were placed, and why. */
  readonly note: string;
}

function tasksetWorks(): boolean {
  const probe = spawnSync('taskset', ['-c', '0', 'true'], { stdio: 'ignore' });
  return probe.status === 0;
}

/**
 * The load generator gets the last core and the servers every other one, so neither steals the
 * other's CPU; on two cores that is `taskset -c 0` and `taskset -c 1`. Without taskset, or on one
 * core, nothing is pinned and the report says so.
 */
export function planPinning(cores: number = availableParallelism()): Pinning {
  if (cores < 2) return { server: undefined, load: undefined, note: 'not pinned: one core only' };
  if (!tasksetWorks()) return { server: undefined, load: undefined, note: 'not pinned: taskset is not available' };
  const last = cores - 1;
  const server = last === 1 ? '0' : `0-${last - 1}`;
  return { server, load: String(last), note: `servers on cores ${server} (taskset -c ${server}), load generator on core ${last}` };
}

/** The command and arguments that run `command args` on the given cores (unchanged when unpinned). */
export function pinned(cores: string | undefined, command: string, args: readonly string[]): [string, string[]] {
  return cores === undefined ? [command, [...args]] : ['taskset', ['-c', cores, command, ...args]];
}

/**
 * Moves this process (every thread of it) to `cores`, so what it does besides waiting (sending
 * the realtime bench's updates) stays off the server's core. False when it could not.
 */
export function pinThisProcess(cores: string | undefined): boolean {
  if (cores === undefined) return false;
  return spawnSync('taskset', ['-a', '-p', '-c', cores, String(process.pid)], { stdio: 'ignore' }).status === 0;
}
