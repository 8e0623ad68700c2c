import { InvalidAuthorizationHeader, InvalidAuthorizationToken } from '../errors/index.js';

/** What an `Authorization` header asks for. */
export type AuthorizationRequest =
  | { readonly kind: 'none' }
  | { readonly kind: 'token'; readonly apiKey: string; readonly apiSecret: string }
  | { readonly kind: 'bearer'; readonly token: string }
  | { readonly kind: 'unsupported' };

const NONE: AuthorizationRequest = { kind: 'none' };
const UNSUPPORTED: AuthorizationRequest = { kind: 'unsupported' };

// Canonical base64 only: the standard alphabet, length a multiple of four, padding only at the end.
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

function splitKeySecret(value: string): { apiKey: string; apiSecret: string } | undefined {
  const colon = value.indexOf(':');
  if (colon < 0) return undefined;
  return { apiKey: value.slice(0, colon), apiSecret: value.slice(colon + 1) };
}

function decodeBasic(token: string): string {
  const invalid = () => new InvalidAuthorizationToken('Failed to decode token, please provide a valid base64-encoded token.');
  if (!BASE64.test(token)) throw invalid();
  try {
    return utf8.decode(Buffer.from(token, 'base64'));
  } catch {
    throw invalid();
  }
}

/**
 * Reads an `Authorization` header by the reference's rules (docs/api.md): it is split
 * on single spaces and only exactly two parts count, otherwise the request goes on as cookie or
 * Guest. `token key:secret` without a colon is 400 InvalidAuthorizationHeader; `Basic` with bad
 * base64 or no colon in the decoded text is 400 InvalidAuthorizationToken. `Bearer <token>` is an
 * OAuth access token (docs/identity.md "fw as an OAuth2 / OpenID Connect provider"). Any other
 * scheme is `unsupported`: it authenticates nobody, so the caller answers 401.
 */
export function parseAuthorizationHeader(value: string | undefined): AuthorizationRequest {
  if (!value) return NONE;
  const parts = value.split(' ');
  if (parts.length !== 2) return NONE;
  const [scheme, credentials] = parts;
  switch (scheme.toLowerCase()) {
    case 'token': {
      const pair = splitKeySecret(credentials);
      if (!pair) {
        throw new InvalidAuthorizationHeader('Invalid Authorization header: expected "token <api_key>:<api_secret>"');
      }
      return { kind: 'token', ...pair };
    }
    case 'basic': {
      const pair = splitKeySecret(decodeBasic(credentials));
      if (!pair) {
        throw new InvalidAuthorizationToken('Failed to decode token, please provide a valid base64-encoded token.');
      }
      return { kind: 'token', ...pair };
    }
    case 'bearer':
      return credentials === '' ? UNSUPPORTED : { kind: 'bearer', token: credentials };
    default:
      return UNSUPPORTED;
  }
}
