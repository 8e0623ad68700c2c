/**
 * An answer now, or a promise of it when finding it needs the database or an async hook. The
 * steps every request takes (authentication, permission checks) answer nearly every time from what
 * they hold (cached tokens and principals, roles, synchronous hooks), and a chain of async functions
 * around such answers cost a document GET about a sixth of its CPU in promises and their garbage
 * (docs/benchmarks.md), so those steps wait only where something is awaited. Callers may `await`
 * the answer either way; a step that answers at once also throws at once.
 */
export type MaybePromise<T> = T | Promise<T>;

/** `next(value)`, at once when `value` is not a promise, else once it settles. */
export function andThen<T, U>(value: MaybePromise<T>, next: (value: T) => MaybePromise<U>): MaybePromise<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}

/** True when `first` is and `next()` then is too: `next` runs only after a true `first`. */
export function allOf(first: MaybePromise<boolean>, next: () => MaybePromise<boolean>): MaybePromise<boolean> {
  return andThen(first, (ok) => (ok ? next() : false));
}

/** True when `first` is, else whatever `next()` is: `next` runs only after a false `first`. */
export function anyOf(first: MaybePromise<boolean>, next: () => MaybePromise<boolean>): MaybePromise<boolean> {
  return andThen(first, (ok) => (ok ? true : next()));
}
