import type { MethodCall, MethodRegistry } from '../method-registry.js';

/**
 * `fw.ready`: readiness for load balancers and orchestrators. It asks the database for a row, so
 * it answers "ok" only while the site can serve; when the database does not answer, the storage
 * layer's ServiceUnavailableError makes it a 503. `ping` stays the liveness check that never
 * touches the database.
 */
async function ready({ ctx }: MethodCall): Promise<string> {
  await ctx.q.all({ sql: 'select 1', parameters: [] });
  return 'ok';
}

/** Registers the readiness check `fw.ready` (guest, GET only). */
export function registerHealthMethods(methods: MethodRegistry): void {
  methods.register('fw.ready', ready, {
    allowGuest: true,
    methods: ['GET'],
    description: 'Readiness: "ok" while the database answers, else 503.',
    result: { const: 'ok' },
  });
}
