import { DoesNotExistError } from '../errors/index.js';
import type { MethodCall } from '../rpc/method-registry.js';
import { OAUTH_CLIENT } from './doctypes/index.js';
import { registerOAuthClientController } from './oauth-client-controller.js';
import type { AuthorizationRequest, OAuthParts } from './oauth-parts.js';
import { OAuthProvider } from './oauth-provider.js';

const METHODS = 'fw.integrations.oauth2';

/** The authorization request parameters of a method call, as strings. */
export function authorizationParams(args: Readonly<Record<string, unknown>>): AuthorizationRequest {
  const out: Record<string, string> = {};
  for (const key of ['client_id', 'redirect_uri', 'response_type', 'scope', 'state', 'nonce', 'code_challenge', 'code_challenge_method']) {
    const value = args[key];
    if (typeof value === 'string' && value !== '') out[key] = value;
  }
  return out;
}

/**
 * Wires the OAuth2 / OpenID Connect provider into a site (docs/identity.md "fw as an OAuth2 /
 * OpenID Connect provider"): the OAuth Client controller, `Bearer` tokens for the Identity
 * service, and the methods of the admin UI. The endpoints that speak OAuth's own wire (authorize,
 * approve, get_token, revoke_token, introspect_token, openid_profile, discovery, JWKS) are routes
 * of http/ that call the provider answered here.
 */
export function registerOAuth(parts: OAuthParts): OAuthProvider {
  const provider = new OAuthProvider(parts);
  registerOAuthClientController(parts.hooks, parts.encryptionKey);
  parts.acceptBearerTokens((token) => provider.verifyBearer(token));
  const { methods } = parts;
  const requestParams = ['client_id', 'redirect_uri', 'response_type', 'scope', 'state', 'nonce', 'code_challenge', 'code_challenge_method'].map((name) => ({
    name,
    type: 'string' as const,
  }));

  methods.register(`${METHODS}.consent_info`, ({ ctx, args }: MethodCall) => provider.consentInfo(ctx.principal, authorizationParams(args)), {
    methods: ['GET', 'POST'],
    readOnly: true,
    params: requestParams,
    description: 'What the consent page shows of an authorization request: the application, the scopes asked for and where the answer goes.',
  });

  methods.register(
    `${METHODS}.authorized_apps`,
    async ({ ctx }: MethodCall) => {
      const tokens = await provider.store.activeTokensOf(ctx, ctx.principal.user);
      const byClient = new Map<string, { client_id: string; app_name: string; scopes: Set<string>; authorized_on: unknown }>();
      for (const t of tokens) {
        const clientId = String(t.client);
        let app = byClient.get(clientId);
        if (!app) {
          const client = await provider.store.client(ctx, clientId);
          app = { client_id: clientId, app_name: client?.appName ?? clientId, scopes: new Set(), authorized_on: t.creation };
          byClient.set(clientId, app);
        }
        for (const s of String(t.scopes ?? '').split(/\s+/)) if (s) app.scopes.add(s);
        app.authorized_on = t.creation;
      }
      return [...byClient.values()].map((a) => ({ ...a, scopes: [...a.scopes].sort() }));
    },
    { methods: ['GET'], readOnly: true, description: 'The applications the caller authorised that still hold live tokens.' },
  );

  methods.register(
    `${METHODS}.revoke_app`,
    async ({ ctx, args }: MethodCall) => {
      const clientId = String(args.client_id);
      const revoked = await provider.store.revoke(ctx, { user: ctx.principal.user, client: clientId });
      await provider.store.invalidateCodes(ctx, ctx.principal.user, clientId);
      if (revoked === 0 && !(await provider.store.client(ctx, clientId))) {
        throw new DoesNotExistError(`${OAUTH_CLIENT} ${clientId.slice(0, 140)} not found`, { doctype: OAUTH_CLIENT });
      }
      return { revoked };
    },
    {
      methods: ['POST'],
      params: [{ name: 'client_id', type: 'string', required: true }],
      description: "Ends the caller's tokens (and unused codes) of one application.",
    },
  );

  methods.register(`${METHODS}.rotate_signing_key`, async ({ ctx }: MethodCall) => ({ kid: await provider.keys.rotate(ctx, provider.nowSeconds()) }), {
    methods: ['POST'],
    roles: ['System Manager'],
    description: 'Retires the id_token signing key and makes a new one; the old key stays in the JWKS until the tokens it signed expired.',
  });
  return provider;
}
