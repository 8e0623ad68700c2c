/** How fw talks to a provider: OpenID Connect (discovery, id_token) or plain OAuth 2 with a profile endpoint. */
export type ProviderProtocol = 'oidc' | 'oauth2';

/** What a preset fills in a Social Login Key (docs/identity.md "Single sign-on"). */
export interface ProviderPreset {
  readonly protocol: ProviderProtocol;
  /** The issuer when the provider has one fixed issuer; undefined: the administrator gives it as Base URL. */
  readonly baseUrl?: string;
  readonly authorizeUrl?: string;
  readonly accessTokenUrl?: string;
  readonly apiEndpoint?: string;
  readonly scope: string;
  readonly userIdProperty: string;
}

const OIDC_SCOPE = 'openid email profile';

/** The presets by `social_login_provider`; `Custom` is whatever the administrator writes. */
export const PROVIDER_PRESETS: Readonly<Record<string, ProviderPreset>> = {
  Google: { protocol: 'oidc', baseUrl: 'https://accounts.google.com', scope: OIDC_SCOPE, userIdProperty: 'sub' },
  // One tenant's issuer (https://login.microsoftonline.com/<tenant id>/v2.0): the multi-tenant
  // `common` endpoint names no single issuer an id_token could be checked against.
  Microsoft: { protocol: 'oidc', scope: OIDC_SCOPE, userIdProperty: 'sub' },
  GitHub: {
    protocol: 'oauth2',
    authorizeUrl: 'https://github.com/login/oauth/authorize',
    accessTokenUrl: 'https://github.com/login/oauth/access_token',
    apiEndpoint: 'https://api.github.com/user',
    scope: 'read:user user:email',
    userIdProperty: 'id',
  },
  GitLab: { protocol: 'oidc', baseUrl: 'https://gitlab.com', scope: OIDC_SCOPE, userIdProperty: 'sub' },
  Keycloak: { protocol: 'oidc', scope: OIDC_SCOPE, userIdProperty: 'sub' },
  Authentik: { protocol: 'oidc', scope: OIDC_SCOPE, userIdProperty: 'sub' },
  Okta: { protocol: 'oidc', scope: OIDC_SCOPE, userIdProperty: 'sub' },
  'OpenID Connect': { protocol: 'oidc', scope: OIDC_SCOPE, userIdProperty: 'sub' },
};

/** The form of a provider's name in URLs, as the reference writes it: lower case, underscores for spaces and dashes. */
export function providerSlug(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
}

/** Where an OpenID Connect provider's discovery document is: given, else under its issuer. */
export function discoveryUrl(baseUrl: string, configured: string | undefined): string {
  if (configured) return configured;
  return `${baseUrl.replace(/\/+$/, '')}/.well-known/openid-configuration`;
}
