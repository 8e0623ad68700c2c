import { DummyDriver, Kysely, type DatabaseIntrospector, type DialectAdapter, type QueryCompiler } from 'kysely';

/** Kysely over no declared schema: the tables are DocTypes, known only at run time. */
// biome-ignore lint/suspicious/noExplicitAny: a compile-only builder has no schema type
type SchemalessKysely = Kysely<any>;

/** A Kysely instance that only compiles queries; statements run through our own Queryable. */
export function compileOnlyBuilder(parts: {
  adapter: () => DialectAdapter;
  compiler: () => QueryCompiler;
  introspector: (db: SchemalessKysely) => DatabaseIntrospector;
}): SchemalessKysely {
  // biome-ignore lint/suspicious/noExplicitAny: as SchemalessKysely above
  return new Kysely<any>({
    dialect: {
      createAdapter: parts.adapter,
      createDriver: () => new DummyDriver(),
      createIntrospector: parts.introspector,
      createQueryCompiler: parts.compiler,
    },
  });
}
