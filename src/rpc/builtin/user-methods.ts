import { issueApiKeys } from '../../auth/issue-api-keys.js';
import { BUILT_IN_USERS } from '../../auth/principal.js';
import type { TokenCache } from '../../auth/token-cache.js';
import type { DocContext } from '../../documents/doc-context.js';
import { PermissionError } from '../../errors/index.js';
import { AUTOMATIC_ROLES } from '../../permissions/automatic-roles.js';
import type { MethodCall, MethodRegistry } from '../method-registry.js';

/** Ends, once `ctx`'s unit committed, the realtime connections `user` opened with an API key and secret. */
export type RevokeTokens = (ctx: DocContext, user: string) => void;

/**
 * `generate_keys`: a new API secret for a user (a System Manager for anyone, any user for
 * themselves); a new call replaces the secret, and the old one fails from the next request on,
 * and the sockets and event streams opened with it end (docs/realtime.md, "Privacy").
 */
async function generateKeys({ ctx, args }: MethodCall, tokenCache: TokenCache, revokeTokens: RevokeTokens): Promise<{ api_key: string; api_secret: string }> {
  const user = String(args.user);
  const { principal } = ctx;
  if (!principal.roles.has('System Manager') && !principal.isAdministrator && principal.user !== user) {
    throw new PermissionError('Not permitted', { messages: [{ message: 'Only a System Manager may generate keys for another user' }] });
  }
  if (BUILT_IN_USERS.has(user) && !principal.isAdministrator) {
    throw new PermissionError('Not permitted', { messages: [{ message: `Only the Administrator may generate keys for ${user}` }] });
  }
  const { apiKey, apiSecret } = await issueApiKeys(ctx.q, ctx.dialect, user);
  // The replaced secret stops working at this process's next request, not when its cached
  // verification would expire (docs/security.md, "Authentication").
  ctx.unit.afterCommit(() => tokenCache.clear());
  revokeTokens(ctx, user);
  return { api_key: apiKey, api_secret: apiSecret };
}

/**
 * `get_all_roles` (the reference's User controller method, reached in v2 as `User/get_all_roles`):
 * the names of the enabled roles users can be given, sorted; the automatic ones are left out.
 */
async function getAllRoles({ ctx }: MethodCall): Promise<string[]> {
  const query = ctx.dialect.builder.selectFrom('tabRole').select(['name', 'disabled']).orderBy('name').compile();
  const rows = await ctx.q.all<{ name: string; disabled: number | null }>(query);
  return rows.filter((r) => !r.disabled && !AUTOMATIC_ROLES.has(r.name)).map((r) => r.name);
}

/** User-related methods. */
export function registerUserMethods(methods: MethodRegistry, tokenCache: TokenCache, revokeTokens: RevokeTokens): void {
  methods.register('fw.core.doctype.user.user.generate_keys', (call) => generateKeys(call, tokenCache, revokeTokens), {
    methods: ['POST'],
    params: [{ name: 'user', type: 'string', required: true }],
  });
  methods.register('fw.core.doctype.user.user.get_all_roles', getAllRoles, { methods: ['GET', 'POST'] });
}
