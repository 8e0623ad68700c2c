import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PermissionError } from '../../errors/index.js';
import type { ClientCredentials } from '../../oauth/oauth-parts.js';
import { oauthError } from '../../oauth/oauth-errors.js';
import { OAUTH_METHOD_PREFIXES, type OAuthProvider } from '../../oauth/oauth-provider.js';
import { authorizationParams } from '../../oauth/register-oauth.js';
import type { Site } from '../../site/site.js';
import { authenticate, requestCredentials } from '../authenticate.js';
import { requestContext } from '../request-context.js';

/** The request's arguments (query string, form or JSON body) as strings; a repeated one counts once. */
function stringArgs(source: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (source === null || typeof source !== 'object' || Array.isArray(source)) return out;
  for (const [key, raw] of Object.entries(source as Record<string, unknown>)) {
    const value = Array.isArray(raw) ? raw[0] : raw;
    if (typeof value === 'string') out[key] = value;
    else if (typeof value === 'number' || typeof value === 'boolean') out[key] = String(value);
  }
  return out;
}

/** The issuer: this server as the client reached it (docs/identity.md "fw as an OAuth2 / OpenID Connect provider"). */
function issuerOf(req: FastifyRequest): string {
  return `${req.protocol}://${req.host}`;
}

/** The client's credentials: `Authorization: Basic` (RFC 6749 2.3.1: each part form-encoded) and the form's. */
function clientCredentials(req: FastifyRequest, form: Record<string, string>): ClientCredentials {
  const header = req.headers.authorization;
  let basic: ClientCredentials['basic'];
  if (header !== undefined) {
    const match = /^basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
    if (!match) throw oauthError('invalid_client', 'Client authentication failed: use Basic credentials or the form');
    const text = Buffer.from(match[1], 'base64').toString('utf8');
    const colon = text.indexOf(':');
    if (colon < 0) throw oauthError('invalid_client', 'Client authentication failed');
    try {
      const decode = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
      basic = { clientId: decode(text.slice(0, colon)), secret: decode(text.slice(colon + 1)) };
    } catch {
      throw oauthError('invalid_client', 'Client authentication failed');
    }
  }
  return { basic, clientId: form.client_id, secret: form.client_secret };
}

/** Answers a JSON body that no cache may keep (RFC 6749 5.1). */
function sendJson(reply: FastifyReply, body: unknown): FastifyReply {
  return reply.header('Cache-Control', 'no-store').header('Pragma', 'no-cache').type('application/json; charset=utf-8').send(body);
}

/**
 * The routes that speak OAuth's own wire (docs/api.md "OAuth provider"): the method paths of both
 * prefixes (answering raw OAuth JSON, redirects and RFC 6749 errors rather than fw's envelope), the
 * discovery documents and the JWKS. They parse the request and call the provider (src/oauth/).
 */
export function registerOAuthRoutes(app: FastifyInstance, site: Site, provider: OAuthProvider): void {
  const paths = (method: string) => OAUTH_METHOD_PREFIXES.flatMap((prefix) => [`/api/method/${prefix}${method}`, `/api/v1/method/${prefix}${method}`]);

  for (const url of paths('authorize')) {
    app.get(url, async (req, reply) => {
      const { principal } = await authenticate(site, req);
      const query = req.url.includes('?') ? req.url.slice(req.url.indexOf('?') + 1) : '';
      const answer = await provider.authorize(principal, authorizationParams(stringArgs(req.query)), query, issuerOf(req));
      return reply.redirect(answer.location, 302);
    });
  }

  for (const url of paths('approve')) {
    app.post(url, async (req, reply) => {
      // Cookie sessions pass fw's CSRF checks here (docs/security.md "CSRF").
      const ctx = await requestContext(site, req);
      if (ctx.sid === undefined) throw new PermissionError('Approving an application needs a signed-in browser session');
      const args = { ...stringArgs(req.query), ...stringArgs(req.body) };
      const allow = args.allow === undefined || ['1', 'true', 'yes'].includes(args.allow.toLowerCase());
      const location = await site.write(ctx.principal, (unit) => provider.approve(unit, ctx.principal, authorizationParams(args), allow, issuerOf(req)), ctx);
      if ((req.headers.accept ?? '').includes('application/json')) return sendJson(reply, { redirect_to: location });
      return reply.redirect(location, 302);
    });
  }

  for (const url of paths('get_token')) {
    app.post(url, async (req, reply) => {
      const form = stringArgs(req.body);
      return sendJson(reply, await provider.token(form, clientCredentials(req, form), req.ip, issuerOf(req)));
    });
  }

  for (const url of paths('revoke_token')) {
    app.post(url, async (req, reply) => {
      const form = stringArgs(req.body);
      await provider.revoke(form, clientCredentials(req, form), req.ip);
      return sendJson(reply, {});
    });
  }

  for (const url of paths('introspect_token')) {
    app.post(url, async (req, reply) => {
      const form = stringArgs(req.body);
      return sendJson(reply, await provider.introspect(form, clientCredentials(req, form), req.ip, issuerOf(req)));
    });
  }

  for (const url of paths('openid_profile')) {
    const profile = async (req: FastifyRequest, reply: FastifyReply) => {
      // The Identity service itself, not `authenticate`: a token granted only `openid` may read its profile.
      const auth = await site.identity.authenticate(requestCredentials(req, undefined));
      if (auth.principal.isGuest) throw oauthError('invalid_token', 'A bearer token is required');
      return sendJson(reply, await provider.profile(auth.principal.user, auth.scopes, issuerOf(req)));
    };
    app.get(url, profile);
    app.post(url, profile);
  }

  for (const url of ['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server']) {
    app.get(url, async (req, reply) => reply.header('Cache-Control', 'public, max-age=300').send(provider.metadata(issuerOf(req))));
  }
  app.get('/.well-known/jwks.json', async (_req, reply) => reply.header('Cache-Control', 'public, max-age=300').send(await provider.jwks()));
}
