import { translateSqliteError } from './sqlite-errors.js';

/**
 * better-sqlite3's synchronous row iterator as an async iterable, stepping it directly rather than
 * through an async generator (which would cost a generator resumption per row on top of the
 * promise). `open` runs on the first `next()`, so a statement that fails to prepare or start fails
 * there; `onClose` runs once, when the rows run out, fail, or the consumer stops early.
 */
export function sqliteRows<T>(open: () => Iterator<unknown>, onClose: () => void = () => {}): AsyncIterable<T> {
  return {
    [Symbol.asyncIterator](): AsyncIterator<T> {
      let rows: Iterator<unknown> | undefined;
      let closed = false;
      const close = () => {
        if (closed) return;
        closed = true;
        try {
          rows?.return?.();
        } finally {
          onClose();
        }
      };
      return {
        async next(): Promise<IteratorResult<T>> {
          if (closed) return { done: true, value: undefined };
          try {
            rows ??= open();
            const step = rows.next();
            if (step.done) close();
            return step as IteratorResult<T>;
          } catch (err) {
            close();
            throw translateSqliteError(err);
          }
        },
        async return(): Promise<IteratorResult<T>> {
          close();
          return { done: true, value: undefined };
        },
      };
    },
  };
}
