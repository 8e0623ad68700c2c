import type { OpenApiObject } from './json-schema.js';
import { security } from './common-components.js';

type PathItems = Record<string, Record<string, OpenApiObject>>;

const JSON_OBJECT = { 'application/json': { schema: { type: 'object' } } };
const FORM = { 'application/x-www-form-urlencoded': { schema: { type: 'object', additionalProperties: { type: 'string' } } } };
const OAUTH_ERROR = {
  description: 'An RFC 6749 refusal: `{error, error_description, exc_type, exc}`.',
  content: JSON_OBJECT,
};

/** What each OAuth endpoint is (docs/api.md "OAuth provider"). */
const ENDPOINTS: ReadonlyArray<{ method: string; verbs: readonly string[]; summary: string; guest: boolean; form: boolean; ok: OpenApiObject }> = [
  {
    method: 'authorize',
    verbs: ['get'],
    summary: 'Start an authorization (code flow with PKCE)',
    guest: true,
    form: false,
    ok: { '302': { description: 'To the login page, the consent page or back to the client.' } },
  },
  {
    method: 'approve',
    verbs: ['post'],
    summary: "The user's answer to a consent request",
    guest: false,
    form: true,
    ok: { '200': { description: '`{redirect_to}`', content: JSON_OBJECT }, '302': { description: 'Back to the client.' } },
  },
  {
    method: 'get_token',
    verbs: ['post'],
    summary: 'Exchange a code or refresh token for tokens',
    guest: true,
    form: true,
    ok: { '200': { description: 'The tokens.', content: JSON_OBJECT } },
  },
  {
    method: 'revoke_token',
    verbs: ['post'],
    summary: 'Revoke a token (RFC 7009)',
    guest: true,
    form: true,
    ok: { '200': { description: '`{}`', content: JSON_OBJECT } },
  },
  {
    method: 'introspect_token',
    verbs: ['post'],
    summary: 'Introspect a token (RFC 7662)',
    guest: true,
    form: true,
    ok: { '200': { description: '`{active, ...}`', content: JSON_OBJECT } },
  },
  {
    method: 'openid_profile',
    verbs: ['get', 'post'],
    summary: "The token user's OpenID claims (userinfo)",
    guest: false,
    form: false,
    ok: { '200': { description: 'The claims.', content: JSON_OBJECT } },
  },
];

/** The provider's wire endpoints under both prefixes and both method paths, and the discovery documents. */
export function oauthPaths(): PathItems {
  const out: PathItems = {};
  for (const [base, baseId] of [
    ['/api/method/', ''],
    ['/api/v1/method/', 'V1'],
  ] as const) {
    for (const [prefix, prefixId] of [
      ['fw.integrations.oauth2.', 'Fw'],
      ['frappe.integrations.oauth2.', 'Frappe'],
    ] as const) {
      for (const e of ENDPOINTS) {
        const item: Record<string, OpenApiObject> = {};
        for (const verb of e.verbs) {
          item[verb] = {
            operationId: `oauth_${e.method}_${verb}${prefixId}${baseId}`,
            summary: e.summary,
            description: 'fw as an OAuth2 / OpenID Connect provider: see docs/api.md "OAuth provider".',
            tags: ['OAuth provider'],
            security: security(e.guest),
            ...(e.form ? { requestBody: { content: FORM } } : {}),
            responses: { ...e.ok, '400': OAUTH_ERROR, '401': OAUTH_ERROR, '403': OAUTH_ERROR, '429': OAUTH_ERROR },
          };
        }
        out[`${base}${prefix}${e.method}`] = item;
      }
    }
  }
  const document = (id: string, summary: string): OpenApiObject => ({
    operationId: id,
    summary,
    tags: ['OAuth provider'],
    security: security(true),
    responses: { '200': { description: summary, content: JSON_OBJECT } },
  });
  out['/.well-known/openid-configuration'] = { get: document('openidConfiguration', 'OpenID Connect discovery') };
  out['/.well-known/oauth-authorization-server'] = { get: document('oauthAuthorizationServer', 'OAuth 2.0 authorization server metadata (RFC 8414)') };
  out['/.well-known/jwks.json'] = { get: document('oauthJwks', 'The public keys of the id_tokens (JWKS)') };
  return out;
}
