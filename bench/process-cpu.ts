import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { processTree } from './process-memory.js';

/** Clock ticks per second of /proc/<pid>/stat's times (`getconf CLK_TCK`; 100 on Linux nearly always). */
const TICKS_PER_SECOND = (() => {
  const answer = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout?.trim());
  return Number.isInteger(answer) && answer > 0 ? answer : 100;
})();

/** CPU time in ms, in user mode (JavaScript, native code) and in the kernel (system calls: the sockets' writes). */
export interface CpuTime {
  readonly user: number;
  readonly system: number;
}

function ownCpu(pid: number): CpuTime {
  try {
    // Fields after the command name's closing ')': state is the 3rd field of the line, utime the 14th, stime the 15th.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { user: (Number(fields[11]) * 1000) / TICKS_PER_SECOND, system: (Number(fields[12]) * 1000) / TICKS_PER_SECOND };
  } catch {
    return { user: 0, system: 0 };
  }
}

/**
 * CPU time used so far by each of `roots` and their descendants, summed; a difference of two
 * readings is the CPU of the window between them, to 1/CLK_TCK s per process.
 */
export function cpuTime(roots: readonly number[]): CpuTime {
  let user = 0;
  let system = 0;
  for (const root of roots) {
    for (const pid of processTree(root)) {
      const own = ownCpu(pid);
      user += own.user;
      system += own.system;
    }
  }
  return { user, system };
}

/** `later` minus `earlier`. */
export function cpuSince(earlier: CpuTime, later: CpuTime): CpuTime {
  return { user: later.user - earlier.user, system: later.system - earlier.system };
}

/**
 * Resolves once the process tree of `pid` has used less than `share` of one core over a window
 * of `windowMs`, or after `maxMs`; answers how long it waited. A server may still work after its
 * last answer (a write's realtime messages queue behind one another): that work is its own and
 * must not run during the other server's slice.
 */
export async function waitUntilIdle(pid: number, options: { windowMs?: number; share?: number; maxMs?: number } = {}): Promise<number> {
  const { windowMs = 200, share = 0.1, maxMs = 30_000 } = options;
  const started = performance.now();
  let before = cpuTime([pid]);
  for (;;) {
    await new Promise((r) => setTimeout(r, windowMs));
    const now = cpuTime([pid]);
    const used = cpuSince(before, now);
    if (used.user + used.system < windowMs * share || performance.now() - started > maxMs) return performance.now() - started;
    before = now;
  }
}
