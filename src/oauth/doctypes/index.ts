import oauthAuthorizationCode from './oauth-authorization-code.json' with { type: 'json' };
import oauthBearerToken from './oauth-bearer-token.json' with { type: 'json' };
import oauthClientRole from './oauth-client-role.json' with { type: 'json' };
import oauthClient from './oauth-client.json' with { type: 'json' };
import oauthProviderSettings from './oauth-provider-settings.json' with { type: 'json' };
import oauthSigningKey from './oauth-signing-key.json' with { type: 'json' };

/** The OAuth provider's DocTypes (docs/identity.md "fw as an OAuth2 / OpenID Connect provider"); checked and frozen with the core DocTypes. */
export const OAUTH_DOCTYPE_JSON: readonly unknown[] = [
  oauthClientRole,
  oauthClient,
  oauthAuthorizationCode,
  oauthBearerToken,
  oauthSigningKey,
  oauthProviderSettings,
];

export const OAUTH_CLIENT = 'OAuth Client';
export const OAUTH_AUTHORIZATION_CODE = 'OAuth Authorization Code';
export const OAUTH_BEARER_TOKEN = 'OAuth Bearer Token';
export const OAUTH_SIGNING_KEY = 'OAuth Signing Key';
export const OAUTH_PROVIDER_SETTINGS = 'OAuth Provider Settings';
