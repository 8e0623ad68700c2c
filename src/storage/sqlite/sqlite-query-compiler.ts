import { SqliteQueryCompiler, type LimitNode, type ValueNode } from 'kysely';

/**
 * Kysely's SQLite compiler, with a bound LIMIT written `limit +?`. SQLite (3.47 on) reads a LIMIT
 * that is a bare parameter as a possible integer constant for its planner, and so marks the
 * statement to be compiled again whenever that parameter is bound: since a statement is bound at
 * every run, every run of a `limit ?` statement prepared it anew, about a fifth of a list page's
 * statement (docs/benchmarks.md "A list page (b)"). The unary plus is no expression the planner
 * reads as a constant: the program is the one `limit ?` compiles to before any binding (better-sqlite3
 * binds JavaScript numbers as reals, which that planner step never took for integers anyway),
 * prepared once.
 */
export class FwSqliteQueryCompiler extends SqliteQueryCompiler {
  protected override visitLimit(node: LimitNode): void {
    if (node.limit.kind !== 'ValueNode' || (node.limit as ValueNode).immediate) {
      super.visitLimit(node);
      return;
    }
    this.append('limit +');
    this.visitNode(node.limit);
  }
}
