import { ADMINISTRATOR_USER, BUILT_IN_USERS, makePrincipal } from '../auth/principal.js';
import type { DocumentService } from '../documents/document-service.js';
import type { HookRegistry } from '../documents/hooks.js';

const SHARE_DOCTYPE = 'DocShare';
const ADMINISTRATOR = makePrincipal({ user: ADMINISTRATOR_USER, roles: [] });

/**
 * Every user other than Administrator and Guest gets their own User record shared with them (read,
 * write, share), as the reference's `User.share_with_self` does: users read and edit their own
 * profile without a role on User. A share reaches level 0 only, so `roles` and `user_type`
 * (permlevel 1) stay in the hands of System Managers. Users saved before this existed get their
 * share on their next save.
 */
export function registerUserSelfShare(hooks: HookRegistry, documents: DocumentService): void {
  hooks.on('User', 'on_update', async ({ doc, ctx }, next) => {
    const user = String(doc.name);
    if (!BUILT_IN_USERS.has(user)) {
      const own = ctx.dialect.builder
        .selectFrom('tabDocShare')
        .select('name')
        .where('share_doctype', '=', 'User')
        .where('share_name', '=', user)
        .where('user', '=', user)
        .limit(1)
        .compile();
      if ((await ctx.q.all(own)).length === 0) {
        // Made as the Administrator: whoever saves a user need not hold `share` on User (the
        // reference's ignore_share_permission).
        await documents.insert(
          { ...ctx, principal: ADMINISTRATOR },
          SHARE_DOCTYPE,
          { share_doctype: 'User', share_name: user, user, read: 1, write: 1, share: 1 },
          { ignorePermissions: true },
        );
      }
    }
    await next();
  });
}
