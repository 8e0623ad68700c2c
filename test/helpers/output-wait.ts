import type { ChildProcess } from 'node:child_process';

/** Wakes the waiters of one process whenever its output grows. */
export type OutputWaiters = Set<() => void>;

/**
 * Resolves with `find()`'s first answer other than undefined, asked now and whenever output arrives
 * (the caller calls every waiter in `waiters` on new output). Rejects after `timeoutMs`, or when the
 * process exits without it; the last chunk of output gets one turn of the loop to arrive first.
 * `describe` says what was awaited, for the error.
 */
export function waitForOutput<T>(
  child: ChildProcess,
  waiters: OutputWaiters,
  find: () => T | undefined,
  timeoutMs: number,
  describe: () => string,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const check = (): boolean => {
      const found = find();
      if (found === undefined) return false;
      done();
      resolve(found);
      return true;
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`${describe()}: not within ${timeoutMs} ms`));
    }, timeoutMs);
    const onExit = () => {
      setImmediate(() => {
        if (check()) return;
        done();
        reject(new Error(`${describe()}: the process exited first (code ${child.exitCode}, signal ${child.signalCode})`));
      });
    };
    const done = () => {
      clearTimeout(timer);
      waiters.delete(check);
      child.off('exit', onExit);
    };
    waiters.add(check);
    child.once('exit', onExit);
    check();
  });
}
