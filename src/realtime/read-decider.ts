import { ADMINISTRATOR_USER, GUEST, GUEST_USER, type Principal } from '../auth/principal.js';
import { resolvePrincipal, type IdentityHolder } from '../auth/identity.js';
import type { Doc } from '../meta/doctype.js';
import { mayUseDocument } from '../permissions/document-access.js';
import { permissionContext } from '../documents/unit-permissions.js';
import type { ReadDecider } from './realtime-hub.js';
import type { ReadableBy } from './realtime-message.js';
import type { DecidingSite } from './realtime-site.js';

/** What one batch learnt about one document: the document as read, and each user's answer. */
interface DocumentVerdicts {
  doc?: Promise<Doc | undefined>;
  readonly byUser: Map<string, Promise<boolean>>;
}

/** The principal of `user` as authentication resolves it (cached up to a second); undefined when disabled or gone. */
export async function principalOf(site: IdentityHolder, user: string): Promise<Principal | undefined> {
  if (user === GUEST_USER) return GUEST;
  return resolvePrincipal(site, user);
}

/**
 * Read permission per user and document, with the same functions as a GET of the document
 * (`mayUseDocument`: roles with if_owner, `has_permission` hooks, User Permissions, shares). The
 * document is read once per batch; each user is judged once per document and batch. A user who is
 * disabled or deleted may read nothing.
 */
export class SiteReadDecider implements ReadDecider {
  constructor(private readonly site: DecidingSite) {}

  async allowedUsers(readable: ReadableBy, users: ReadonlySet<string>, cache: Map<string, unknown>): Promise<ReadonlySet<string>> {
    const key = `${readable.doctype}\u0000${readable.name}`;
    let verdicts = cache.get(key) as DocumentVerdicts | undefined;
    if (!verdicts) cache.set(key, (verdicts = { byUser: new Map() }));
    const allowed = new Set<string>();
    const pending: string[] = [];
    for (const user of users) {
      if (user === ADMINISTRATOR_USER) allowed.add(user);
      else if (!verdicts.byUser.has(user)) pending.push(user);
    }
    if (pending.length > 0) await this.#judge(readable, pending, verdicts);
    for (const user of users) if (user !== ADMINISTRATOR_USER && (await verdicts.byUser.get(user))) allowed.add(user);
    return allowed;
  }

  async #judge(readable: ReadableBy, users: readonly string[], verdicts: DocumentVerdicts): Promise<void> {
    const site = this.site;
    const judging = site.read(GUEST, async (ctx) => {
      if (!ctx.metas.has(readable.doctype)) return new Map<string, boolean>();
      const meta = ctx.metas.get(readable.doctype);
      verdicts.doc ??= Promise.resolve(readable.doc ?? site.documents.repo(ctx).load(ctx.q, meta, readable.name));
      const doc = await verdicts.doc;
      const answers = new Map<string, boolean>();
      if (!doc) return answers;
      for (const user of users) {
        const principal = await principalOf(site, user);
        if (!principal) continue;
        const userCtx = site.context(principal, ctx.q, false);
        answers.set(user, await mayUseDocument(permissionContext(userCtx), meta, 'read', doc));
      }
      return answers;
    });
    for (const user of users)
      verdicts.byUser.set(
        user,
        judging.then(
          (answers) => answers.get(user) === true,
          () => false,
        ),
      );
    await judging.catch(() => undefined);
  }
}
