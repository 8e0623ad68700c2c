import type { HookRegistry } from '../documents/hooks.js';
import { ValidationError } from '../errors/index.js';
import type { Row } from '../storage/database.js';
import { SOCIAL_LOGIN_KEY } from './doctypes/index.js';
import { isLoopbackHttp } from './provider-client.js';
import { PROVIDER_PRESETS, providerSlug } from './provider-presets.js';
import { callbackPath, callbackPaths, parseAuthParams, protocolOf } from './social-login-key-row.js';

const NAME = /^[A-Za-z0-9][A-Za-z0-9 _-]{0,59}$/;
const URL_FIELDS = ['base_url', 'openid_configuration', 'authorize_url', 'access_token_url', 'api_endpoint', 'icon'] as const;

function text(doc: Row, field: string): string {
  const value = doc[field];
  return value === null || value === undefined ? '' : String(value).trim();
}

/** An https URL, or http to this machine only (a development provider): docs/identity.md "Single sign-on". */
function checkUrl(field: string, value: string): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ValidationError(`${field} must be an absolute URL`);
  }
  if (url.protocol !== 'https:' && !isLoopbackHttp(value)) throw new ValidationError(`${field} must be an https URL`);
}

/**
 * Social Login Key: a name usable in URLs, a preset's URLs filled in, the callback path set, the
 * URLs https, and an enabled key complete enough to sign in with.
 */
export function registerSocialLoginKeyController(hooks: HookRegistry): void {
  hooks.on(SOCIAL_LOGIN_KEY, 'validate', async ({ doc, ctx }, next) => {
    const name = text(doc, 'provider_name');
    if (!NAME.test(name)) throw new ValidationError('Provider Name may hold letters, digits, spaces, - and _ (at most 60), starting with a letter or digit');
    const preset = text(doc, 'social_login_provider') || 'Custom';
    const defaults = PROVIDER_PRESETS[preset];
    if (defaults) {
      if (!text(doc, 'base_url') && defaults.baseUrl) doc.base_url = defaults.baseUrl;
      if (!text(doc, 'authorize_url') && defaults.authorizeUrl) doc.authorize_url = defaults.authorizeUrl;
      if (!text(doc, 'access_token_url') && defaults.accessTokenUrl) doc.access_token_url = defaults.accessTokenUrl;
      if (!text(doc, 'api_endpoint') && defaults.apiEndpoint) doc.api_endpoint = defaults.apiEndpoint;
      if (!text(doc, 'user_id_property')) doc.user_id_property = defaults.userIdProperty;
      if (!text(doc, 'auth_url_data')) doc.auth_url_data = JSON.stringify({ scope: defaults.scope });
    }
    const redirect = text(doc, 'redirect_url');
    const accepted = callbackPaths(providerSlug(name));
    if (redirect === '') doc.redirect_url = callbackPath(providerSlug(name));
    else if (!accepted.includes(redirect))
      throw new ValidationError(`redirect_url must be one of fw's callback paths for this provider: ${accepted.join(', ')}`);
    for (const field of ['auth_url_data', 'api_endpoint_args']) {
      const json = text(doc, field);
      if (json === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(json);
      } catch {
        throw new ValidationError(`${field} must be a JSON object`);
      }
      if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new ValidationError(`${field} must be a JSON object`);
    }
    const reserved = Object.keys(parseAuthParams(text(doc, 'auth_url_data'))).filter((k) =>
      ['state', 'nonce', 'redirect_uri', 'code_challenge', 'code_challenge_method', 'client_id', 'response_type'].includes(k),
    );
    if (reserved.length > 0) throw new ValidationError(`auth_url_data may not set ${reserved.join(', ')}: fw sets them for every sign-in`);
    for (const field of URL_FIELDS) if (text(doc, field)) checkUrl(field, text(doc, field));
    // Another key whose URL form is the same would answer the same callback.
    const slug = providerSlug(name);
    const others = await ctx.q.all<Row>(ctx.dialect.builder.selectFrom(`tab${SOCIAL_LOGIN_KEY}`).select(['name']).compile());
    if (others.some((o) => String(o.name) !== text(doc, 'name') && String(o.name) !== name && providerSlug(String(o.name)) === slug)) {
      throw new ValidationError(`Another Social Login Key is already reached as ${slug}`);
    }
    if (Number(doc.enable_social_login) === 1) {
      if (!text(doc, 'client_id')) throw new ValidationError('Client ID is required to enable a Social Login Key');
      if (protocolOf(preset, text(doc, 'openid_configuration')) === 'oidc') {
        if (!text(doc, 'base_url') && !text(doc, 'openid_configuration')) {
          throw new ValidationError(`${preset === 'Custom' ? 'This provider' : preset} needs its issuer as Base URL (or an OpenID Configuration URL)`);
        }
      } else if (!text(doc, 'authorize_url') || !text(doc, 'access_token_url') || !text(doc, 'api_endpoint')) {
        throw new ValidationError('An OAuth 2 provider needs Authorize URL, Access Token URL and API Endpoint (or an OpenID Configuration URL)');
      }
    }
    await next();
  });
}
