import { AuthenticationError, DataError, type FwError, PermissionError, TooManyRequestsError, ValidationError } from '../errors/index.js';

/** The error codes of RFC 6749 5.2 and 4.1.2.1, RFC 7009 and RFC 6750 that fw answers. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'invalid_scope'
  | 'access_denied'
  | 'invalid_token'
  | 'insufficient_scope'
  | 'slow_down';

/** The catalogue class (fw's `exc_type`) and HTTP status of each code. */
const KINDS: Record<OAuthErrorCode, { make: (m: string, o: object) => FwError; status: number }> = {
  invalid_request: { make: (m, o) => new DataError(m, o), status: 400 },
  invalid_client: { make: (m, o) => new AuthenticationError(m, o), status: 401 },
  invalid_grant: { make: (m, o) => new ValidationError(m, o), status: 400 },
  unauthorized_client: { make: (m, o) => new PermissionError(m, o), status: 400 },
  unsupported_grant_type: { make: (m, o) => new DataError(m, o), status: 400 },
  unsupported_response_type: { make: (m, o) => new DataError(m, o), status: 400 },
  invalid_scope: { make: (m, o) => new DataError(m, o), status: 400 },
  access_denied: { make: (m, o) => new PermissionError(m, o), status: 403 },
  invalid_token: { make: (m, o) => new AuthenticationError(m, o), status: 401 },
  insufficient_scope: { make: (m, o) => new PermissionError(m, o), status: 403 },
  slow_down: { make: (m, o) => new TooManyRequestsError(m, o), status: 429 },
};

/**
 * A refusal of an OAuth endpoint: a catalogue error (so `exc_type` stays fw's) that also carries
 * the RFC 6749 `error` code and status, which the OAuth routes answer as `{error,
 * error_description, exc_type, exc}` (docs/identity.md "fw as an OAuth2 / OpenID Connect provider").
 */
export function oauthError(code: OAuthErrorCode, description: string): FwError {
  const kind = KINDS[code];
  return kind.make(description, { details: { oauthError: code, oauthStatus: kind.status } });
}

/** The RFC 6749 code and status of an error, when it is an OAuth refusal. */
export function oauthErrorOf(err: unknown): { code: OAuthErrorCode; status: number } | undefined {
  const details = (err as FwError | undefined)?.details;
  if (!details || typeof details.oauthError !== 'string') return undefined;
  return { code: details.oauthError as OAuthErrorCode, status: Number(details.oauthStatus) };
}
