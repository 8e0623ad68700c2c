import type { BearerVerifier } from '../auth/identity.js';
import type { Principal } from '../auth/principal.js';
import type { DocContext } from '../documents/doc-context.js';
import type { DocumentService } from '../documents/document-service.js';
import type { HookRegistry } from '../documents/hooks.js';
import type { MethodRegistry } from '../rpc/method-registry.js';
import type { Database } from '../storage/database.js';

/** What the OAuth provider is wired into (src/site/open-site.ts builds it): never the whole site, never http/. */
export interface OAuthParts {
  readonly hooks: HookRegistry;
  readonly methods: MethodRegistry;
  readonly documents: DocumentService;
  /** The database, for the login throttle's counters of the endpoints that take secrets. */
  readonly db: Pick<Database, 'transaction' | 'dialect'>;
  /** The site's `encryption_key`, which encrypts the private signing keys. */
  readonly encryptionKey: string;
  /** Units of work as the principal. */
  read<T>(principal: Principal, work: (ctx: DocContext) => Promise<T>): Promise<T>;
  write<T>(principal: Principal, work: (ctx: DocContext) => Promise<T>): Promise<T>;
  /** Where bearer tokens are accepted from now on (the Identity service). */
  acceptBearerTokens(verifier: BearerVerifier): void;
  /** Unix milliseconds; tests move it. */
  readonly now?: () => number;
}

/** The parameters of an authorization request (RFC 6749 4.1.1, RFC 7636 4.3, OpenID Connect 3.1.2.1). */
export interface AuthorizationRequest {
  readonly client_id?: string;
  readonly redirect_uri?: string;
  readonly response_type?: string;
  readonly scope?: string;
  readonly state?: string;
  readonly nonce?: string;
  readonly code_challenge?: string;
  readonly code_challenge_method?: string;
}

/** What a client presented to authenticate itself at the token, revocation and introspection endpoints. */
export interface ClientCredentials {
  /** From `Authorization: Basic` (client_secret_basic). */
  readonly basic?: { readonly clientId: string; readonly secret: string };
  /** From the form (client_secret_post, or a public client's bare client_id). */
  readonly clientId?: string;
  readonly secret?: string;
}
