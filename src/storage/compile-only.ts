import {
  DummyDriver,
  Kysely,
  type DatabaseIntrospector,
  type DialectAdapter,
  type QueryCompiler,
} from 'kysely';

/** A Kysely instance that only compiles queries; statements run through our own Queryable. */
export function compileOnlyBuilder(parts: {
  adapter: () => DialectAdapter;
  compiler: () => QueryCompiler;
  introspector: (db: Kysely<any>) => DatabaseIntrospector;
}): Kysely<any> {
  return new Kysely<any>({
    dialect: {
      createAdapter: parts.adapter,
      createDriver: () => new DummyDriver(),
      createIntrospector: parts.introspector,
      createQueryCompiler: parts.compiler,
    },
  });
}
