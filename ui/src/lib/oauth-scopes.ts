/** What each OAuth scope lets an application do, in the words the consent page shows (docs/identity.md "fw as an OAuth2 / OpenID Connect provider"). */
const SCOPE_TEXT: Record<string, string> = {
  openid: 'Know who you are: your user name, full name, email address, picture and roles.',
  all: 'Act as you in this site: read and change everything your roles allow, until you revoke it.',
};

/** The description of `scope`; a scope fw does not describe is named as it is. */
export function scopeText(scope: string): string {
  return SCOPE_TEXT[scope] ?? `The scope "${scope}".`;
}

/** The host a redirect URI sends the answer to, as the user should read it. */
export function redirectHost(uri: string): string {
  try {
    return new URL(uri).host;
  } catch {
    return uri;
  }
}
