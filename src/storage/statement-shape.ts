import type { SqlStatement } from './database.js';

/** Stands for the argument at `index` while a statement shape is compiled. */
class Slot {
  constructor(readonly index: number) {}
}

/** A statement compiled once; each call binds fresh values into its placeholders. */
export type StatementShape<A extends readonly unknown[]> = (...args: A) => SqlStatement;

/**
 * Compiles a statement once, with placeholders where `build` puts its arguments, and returns a
 * function that binds real values into the same SQL text. Hot statements of a fixed shape (a
 * document by name, a user's roles) then skip the query builder on every call. Arguments must be
 * bound values (`where(col, '=', arg)`), never identifiers or lists that change the SQL text.
 */
export function statementShape<A extends readonly unknown[]>(arity: A['length'], build: (...slots: A) => SqlStatement): StatementShape<A> {
  const slots = Array.from({ length: arity }, (_, i) => new Slot(i)) as unknown as A;
  const compiled = build(...slots);
  const sources = compiled.parameters.map((p) => (p instanceof Slot ? p.index : -1));
  const used = new Set(sources.filter((i) => i >= 0));
  if (used.size !== arity) throw new Error(`statementShape: ${arity - used.size} argument(s) did not become bound values`);
  const constants = compiled.parameters;
  const { sql } = compiled;
  return (...args: A) => ({ sql, parameters: sources.map((from, i) => (from >= 0 ? args[from] : constants[i])) });
}

/**
 * Statement shapes kept per owner pair (a dialect and a DocType's compiled Meta, say) in weak maps,
 * so they are built once per owner and dropped with it: reloaded metadata gets fresh shapes.
 */
export class ShapeCache<K1 extends object, K2 extends object, S> {
  readonly #byFirst = new WeakMap<K1, WeakMap<K2, S>>();

  /** The shape for (`first`, `second`), built by `build` the first time it is asked for. */
  get(first: K1, second: K2, build: () => S): S {
    let inner = this.#byFirst.get(first);
    if (!inner) {
      inner = new WeakMap();
      this.#byFirst.set(first, inner);
    }
    let shape = inner.get(second);
    if (shape === undefined) {
      shape = build();
      inner.set(second, shape);
    }
    return shape;
  }
}

/** Shapes that depend on one owner only (a dialect). */
export function perOwner<K extends object, S>(build: (owner: K) => S): (owner: K) => S {
  const cache = new WeakMap<K, S>();
  return (owner) => {
    let shape = cache.get(owner);
    if (shape === undefined) {
      shape = build(owner);
      cache.set(owner, shape);
    }
    return shape;
  };
}
