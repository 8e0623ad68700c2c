/** Named statements kept per server connection; past it the least recently used is closed. */
const MAX_PER_CONNECTION = 100;

/** What one pipeline does with one statement text: bind a name parsed before, or parse it under a new one. */
export interface StatementName {
  readonly name: string;
  /** True when this pipeline must send the Parse (the server does not hold the name yet). */
  readonly parse: boolean;
}

/** The named statements of one server connection, least recently used first. */
class ConnectionStatements {
  readonly #byText = new Map<string, string>();
  /** Names whose Parse may have reached the server but which are no longer used: closed by the next pipeline. */
  #toClose: string[] = [];
  #seq = 0;

  /** The name to bind `text` to, parsing it first when new; may queue the eviction of the oldest. */
  name(text: string): StatementName {
    const known = this.#byText.get(text);
    if (known !== undefined) {
      // Most recently used last: a Map keeps insertion order.
      this.#byText.delete(text);
      this.#byText.set(text, known);
      return { name: known, parse: false };
    }
    if (this.#byText.size >= MAX_PER_CONNECTION) {
      const [oldestText, oldestName] = this.#byText.entries().next().value as [string, string];
      this.#byText.delete(oldestText);
      this.#toClose.push(oldestName);
    }
    const name = `fw_${++this.#seq}`;
    this.#byText.set(text, name);
    return { name, parse: true };
  }

  /** The names to close before anything else in the next pipeline; the caller sends them. */
  takeCloses(): string[] {
    const names = this.#toClose;
    if (names.length > 0) this.#toClose = [];
    return names;
  }

  /** A Parse that may not have been run (its pipeline failed first): parsed again, under a new name, when next used. */
  forget(text: string, name: string): void {
    if (this.#byText.get(text) === name) this.#byText.delete(text);
    this.#toClose.push(name);
  }

  /** Every name dropped (the schema changed under them): all parsed again when next used. */
  forgetAll(): void {
    for (const name of this.#byText.values()) this.#toClose.push(name);
    this.#byText.clear();
  }
}

/**
 * Server-side prepared statements for a pool's pipelines (docs/benchmarks.md "Prepared statements
 * on PostgreSQL"): each statement text is parsed once per connection under a name and then only
 * bound and executed, so the server skips parsing and, once its plan cache settles on a generic
 * plan, planning too. Kept per node-postgres connection object, so a new connection starts empty.
 */
export class PreparedStatements {
  readonly #byConnection = new WeakMap<object, ConnectionStatements>();

  /** The statements of one connection (node-postgres's Connection, as a Submittable's `submit` gets it). */
  of(connection: object): ConnectionStatements {
    let statements = this.#byConnection.get(connection);
    if (!statements) {
      statements = new ConnectionStatements();
      this.#byConnection.set(connection, statements);
    }
    return statements;
  }
}

export type { ConnectionStatements };
