import { readdirSync, readFileSync, writeFileSync } from 'node:fs';

/** The pid and every descendant of it (a `--workers` server is a primary plus its workers). */
export function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [root];
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The command name may hold spaces and parentheses; the fields after its closing ')' do not.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(entry));
      children.set(ppid, list);
    } catch {
      // the process ended while we looked
    }
  }
  const tree: number[] = [];
  const queue = [root];
  while (queue.length) {
    const pid = queue.shift() as number;
    tree.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return tree;
}

function statusKb(pid: number, field: 'VmHWM' | 'VmRSS'): number | undefined {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Peak resident memory (VmHWM) of a server, in bytes: summed over its process tree, so for a
 * multi-process server it is an upper bound (the processes need not peak together). Undefined
 * where /proc is not available.
 */
export function peakRssBytes(root: number): number | undefined {
  let total = 0;
  let seen = false;
  for (const pid of processTree(root)) {
    const kb = statusKb(pid, 'VmHWM');
    if (kb === undefined) continue;
    total += kb * 1024;
    seen = true;
  }
  return seen ? total : undefined;
}

/**
 * Resets the peak to the current resident size (`5` into /proc/<pid>/clear_refs, Linux 4.0+), so
 * the next reading is the peak of what happened in between. False when the kernel refused.
 */
export function resetPeakRss(root: number): boolean {
  let ok = true;
  for (const pid of processTree(root)) {
    try {
      writeFileSync(`/proc/${pid}/clear_refs`, '5');
    } catch {
      ok = false;
    }
  }
  return ok;
}
