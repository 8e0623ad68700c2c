import { randomUUID } from 'node:crypto';
import type { JWK } from 'jose';
import { decryptSecret, encryptSecret } from '../auth/secret-cipher.js';
import type { DocContext } from '../documents/doc-context.js';
import type { DocumentService } from '../documents/document-service.js';
import type { Doc } from '../meta/doctype.js';
import { OAUTH_SIGNING_KEY } from './doctypes/index.js';

/** jose loads with the first token signed (docs/benchmarks.md "Modules loaded on first use"). */
const joseLibrary = () => import('jose');

/** A signing key of the site. */
interface SigningKey {
  readonly kid: string;
  readonly publicJwk: JWK;
  readonly privateJwk: string;
  readonly status: string;
  readonly retiredAt: number;
}

/**
 * The site's RS256 keys for id_tokens (docs/security.md "OAuth provider secrets and keys"):
 * generated on first use, the private half encrypted with the site's `encryption_key`. Rotation
 * retires the active key and makes a new one; a retired key stays in the JWKS until every token it
 * signed has expired.
 */
export class SigningKeys {
  constructor(
    private readonly documents: DocumentService,
    private readonly encryptionKey: string,
  ) {}

  async #all(ctx: DocContext): Promise<SigningKey[]> {
    const table = ctx.metas.get(OAUTH_SIGNING_KEY).tableName;
    const rows = await ctx.q.all<Doc>(ctx.dialect.builder.selectFrom(table).selectAll().orderBy('creation', 'desc').compile());
    return rows.map((r) => ({
      kid: String(r.kid),
      publicJwk: JSON.parse(String(r.public_jwk)) as JWK,
      privateJwk: String(r.private_jwk),
      status: String(r.status),
      retiredAt: Number(r.retired_at ?? 0),
    }));
  }

  /** Makes a new active key (in the caller's transaction). */
  async create(ctx: DocContext): Promise<string> {
    const { exportJWK, generateKeyPair } = await joseLibrary();
    const { publicKey, privateKey } = await generateKeyPair('RS256', { modulusLength: 2048, extractable: true });
    const kid = randomUUID();
    const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
    const privateJwk = encryptSecret(JSON.stringify(await exportJWK(privateKey)), this.encryptionKey);
    await this.documents.insert(
      ctx,
      OAUTH_SIGNING_KEY,
      { kid, algorithm: 'RS256', public_jwk: JSON.stringify(publicJwk), private_jwk: privateJwk, status: 'Active' },
      { ignorePermissions: true },
    );
    return kid;
  }

  /** Retires the active keys and makes a new one; answers the new key's id. */
  async rotate(ctx: DocContext, nowSeconds: number): Promise<string> {
    const table = ctx.metas.get(OAUTH_SIGNING_KEY).tableName;
    await ctx.q.run(ctx.dialect.builder.updateTable(table).set({ status: 'Retired', retired_at: nowSeconds }).where('status', '=', 'Active').compile());
    return this.create(ctx);
  }

  /** Signs `claims` as an id_token with the active key (made now when there is none: a writable unit). */
  async sign(ctx: DocContext, claims: Record<string, unknown>): Promise<string> {
    let active = (await this.#all(ctx)).find((k) => k.status === 'Active');
    if (!active) {
      await this.create(ctx);
      active = (await this.#all(ctx)).find((k) => k.status === 'Active') as SigningKey;
    }
    const { importJWK, SignJWT } = await joseLibrary();
    const key = await importJWK(JSON.parse(decryptSecret(active.privateJwk, this.encryptionKey)) as JWK, 'RS256');
    return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: active.kid, typ: 'JWT' }).sign(key);
  }

  /**
   * Signs `claims` as an id_token with a client secret, HS256 (OpenID Connect Core 10.1: the
   * octets of the UTF-8 secret are the key); no `kid`, since the key is not in the JWKS.
   */
  async signWithSecret(claims: Record<string, unknown>, secret: string): Promise<string> {
    const { SignJWT } = await joseLibrary();
    return new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(new TextEncoder().encode(secret));
  }

  /** The public keys that verify tokens still alive: the active ones, and retired ones younger than `keepSeconds`. */
  async jwks(ctx: DocContext, nowSeconds: number, keepSeconds: number): Promise<{ keys: JWK[] }> {
    const keys = (await this.#all(ctx)).filter((k) => k.status === 'Active' || nowSeconds - k.retiredAt < keepSeconds);
    return { keys: keys.map((k) => k.publicJwk) };
  }
}
