import type { DocContext } from '../documents/doc-context.js';
import type { DocumentService } from '../documents/document-service.js';
import { readSingleRows } from '../documents/singles/single-rows.js';
import type { Doc } from '../meta/doctype.js';
import { OAUTH_AUTHORIZATION_CODE, OAUTH_BEARER_TOKEN, OAUTH_CLIENT, OAUTH_PROVIDER_SETTINGS } from './doctypes/index.js';
import { hashSecret } from './oauth-secrets.js';
import { parseRedirectUris } from './redirect-uris.js';

/** An OAuth Client as the flows need it. */
export interface OAuthClient {
  readonly clientId: string;
  readonly appName: string;
  /** SHA-256 of the secret; empty for a public client. */
  readonly secretHash: string;
  readonly public: boolean;
  readonly authMethod: 'client_secret_basic' | 'client_secret_post' | 'none';
  readonly redirectUris: readonly string[];
  readonly defaultRedirectUri: string;
  readonly scopes: ReadonlySet<string>;
  readonly skipAuthorization: boolean;
  readonly allowedRoles: readonly string[];
  /** How its id_tokens are signed: the site's RS256 key, or HS256 with the client secret (OpenID Connect Core 10.1). */
  readonly idTokenAlg: 'RS256' | 'HS256';
}

/** The lifetimes of OAuth Provider Settings, in seconds. */
export interface ProviderSettings {
  readonly accessTokenExpiry: number;
  readonly refreshTokenExpiry: number;
  readonly idTokenExpiry: number;
}

const AUTH_METHODS = {
  'Client Secret Basic': 'client_secret_basic',
  'Client Secret Post': 'client_secret_post',
  None: 'none',
} as const;

/** Scopes as a set, from text separated by spaces (or lines, as a hand-edited client may hold). */
export function scopeSet(text: unknown): Set<string> {
  return new Set(typeof text === 'string' ? text.split(/\s+/).filter((s) => s !== '') : []);
}

function toClient(doc: Doc): OAuthClient {
  const authMethod = AUTH_METHODS[String(doc.token_endpoint_auth_method) as keyof typeof AUTH_METHODS] ?? 'client_secret_basic';
  const roles = Array.isArray(doc.allowed_roles) ? (doc.allowed_roles as Doc[]).map((r) => String(r.role ?? '')).filter((r) => r !== '') : [];
  return {
    clientId: String(doc.name),
    appName: String(doc.app_name ?? doc.name),
    secretHash: typeof doc.client_secret === 'string' ? doc.client_secret : '',
    public: authMethod === 'none',
    authMethod,
    redirectUris: parseRedirectUris(doc.redirect_uris),
    defaultRedirectUri: String(doc.default_redirect_uri ?? ''),
    scopes: scopeSet(doc.scopes),
    skipAuthorization: doc.skip_authorization === 1 || doc.skip_authorization === true,
    allowedRoles: roles,
    idTokenAlg: doc.id_token_signed_response_alg === 'HS256' && authMethod !== 'none' ? 'HS256' : 'RS256',
  };
}

/** Reads and writes the OAuth DocTypes inside a unit of work; no permission checks (the flows make their own). */
export class OAuthStore {
  constructor(private readonly documents: DocumentService) {}

  async client(ctx: DocContext, clientId: string): Promise<OAuthClient | undefined> {
    if (clientId === '' || clientId.length > 140) return undefined;
    const doc = await this.documents.load(ctx, OAUTH_CLIENT, clientId);
    return doc ? toClient(doc) : undefined;
  }

  async settings(ctx: DocContext): Promise<ProviderSettings> {
    const rows = await readSingleRows(ctx.q, ctx.dialect, OAUTH_PROVIDER_SETTINGS);
    const seconds = (key: string, fallback: number) => {
      const n = Number(rows.get(key));
      return Number.isInteger(n) && n > 0 ? n : fallback;
    };
    return {
      accessTokenExpiry: seconds('access_token_expiry', 3600),
      refreshTokenExpiry: seconds('refresh_token_expiry', 30 * 86400),
      idTokenExpiry: seconds('id_token_expiry', 3600),
    };
  }

  async insertCode(ctx: DocContext, values: Doc): Promise<void> {
    await this.documents.insert(ctx, OAUTH_AUTHORIZATION_CODE, values, { ignorePermissions: true });
  }

  /**
   * Takes a code for one exchange: marks it Invalid in the same statement that finds it Valid, so of
   * two concurrent exchanges only one gets it. Answers the row as it was, or undefined when the code
   * is unknown; `used` tells a code that had been exchanged before.
   */
  async takeCode(ctx: DocContext, code: string): Promise<{ row: Doc; used: boolean } | undefined> {
    const table = ctx.metas.get(OAUTH_AUTHORIZATION_CODE).tableName;
    const hash = hashSecret(code);
    const rows = await ctx.q.all<Doc>(ctx.dialect.builder.selectFrom(table).selectAll().where('authorization_code', '=', hash).compile());
    const row = rows[0];
    if (!row) return undefined;
    const taken = await ctx.q.run(
      ctx.dialect.builder.updateTable(table).set({ validity: 'Invalid' }).where('name', '=', row.name).where('validity', '=', 'Valid').compile(),
    );
    return { row, used: taken.changes === 0 };
  }

  async insertToken(ctx: DocContext, values: Doc): Promise<string> {
    const doc = await this.documents.insert(ctx, OAUTH_BEARER_TOKEN, values, { ignorePermissions: true });
    return String(doc.name);
  }

  /** The token row whose access (or refresh) token hashes to the given one. */
  async tokenBy(ctx: DocContext, column: 'access_token' | 'refresh_token', token: string): Promise<Doc | undefined> {
    const table = ctx.metas.get(OAUTH_BEARER_TOKEN).tableName;
    const rows = await ctx.q.all<Doc>(ctx.dialect.builder.selectFrom(table).selectAll().where(column, '=', hashSecret(token)).limit(1).compile());
    return rows[0];
  }

  /** Revokes the tokens of `where` (one token, a family, or a user's tokens of a client); answers how many were active. */
  async revoke(ctx: DocContext, where: { name?: string; family?: string; user?: string; client?: string }): Promise<number> {
    const table = ctx.metas.get(OAUTH_BEARER_TOKEN).tableName;
    let query = ctx.dialect.builder.updateTable(table).set({ status: 'Revoked' }).where('status', '=', 'Active');
    if (where.name !== undefined) query = query.where('name', '=', where.name);
    if (where.family !== undefined) query = query.where('family', '=', where.family);
    if (where.user !== undefined) query = query.where('user', '=', where.user);
    if (where.client !== undefined) query = query.where('client', '=', where.client);
    return (await ctx.q.run(query.compile())).changes;
  }

  /** Marks a rotated token Revoked only if it still is Active (of two concurrent refreshes one wins). */
  async retire(ctx: DocContext, name: string): Promise<boolean> {
    return (await this.revoke(ctx, { name })) === 1;
  }

  /** The active tokens of a user, for the page of authorised applications. */
  async activeTokensOf(ctx: DocContext, user: string): Promise<Doc[]> {
    const table = ctx.metas.get(OAUTH_BEARER_TOKEN).tableName;
    return ctx.q.all<Doc>(
      ctx.dialect.builder
        .selectFrom(table)
        .select(['name', 'client', 'scopes', 'creation', 'expires_at', 'refresh_expires_at'])
        .where('user', '=', user)
        .where('status', '=', 'Active')
        .orderBy('creation', 'desc')
        .compile(),
    );
  }

  /** Forgets the unused codes of a user for a client (revoking an application). */
  async invalidateCodes(ctx: DocContext, user: string, client: string): Promise<void> {
    const table = ctx.metas.get(OAUTH_AUTHORIZATION_CODE).tableName;
    await ctx.q.run(ctx.dialect.builder.updateTable(table).set({ validity: 'Invalid' }).where('user', '=', user).where('client', '=', client).compile());
  }
}
