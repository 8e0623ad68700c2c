/** One enabled provider as `fw.integrations.oauth2_logins.get_login_providers` lists it (docs/identity.md "Single sign-on"). */
export interface LoginProvider {
  readonly name: string;
  readonly provider_name: string;
  readonly social_login_provider: string;
  readonly icon: string | null;
  readonly login_url: string;
}

/** A sign-in button: its label and the address that starts the login, carrying where to land afterwards. */
export interface ProviderButton {
  readonly key: string;
  readonly label: string;
  readonly href: string;
  readonly icon: string | null;
}

/**
 * The buttons of the login page. Only same-site `/app` targets are passed on (the server refuses
 * anything else too); icons only over https, so a page of the app never loads a plain-http image.
 */
export function providerButtons(providers: readonly LoginProvider[], redirect: string): ProviderButton[] {
  const target = /^\/app(\/|$|\?)/.test(redirect) ? redirect : '/app';
  return providers
    .filter((p) => p.login_url.startsWith('/api/method/'))
    .map((p) => ({
      key: p.name,
      label: `Continue with ${p.provider_name}`,
      href: `${p.login_url}?redirect_to=${encodeURIComponent(target)}`,
      icon: p.icon?.startsWith('https://') ? p.icon : null,
    }));
}
