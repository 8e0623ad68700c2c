import type { DocEvent, DocHook, HookRegistry } from '../documents/hooks.js';
import type { PrincipalCache } from './principal-cache.js';
import type { TokenCache } from './token-cache.js';

/** The DocTypes whose documents make up a principal: the user with its roles, its User Permissions, roles themselves. */
const PRINCIPAL_DOCTYPES = ['User', 'User Permission', 'Role'] as const;
/** The events that follow every save, delete and rename. */
const CHANGE_EVENTS: readonly DocEvent[] = ['on_change', 'after_delete', 'after_rename'];

/**
 * Clears `cache` and the verified-token cache whenever this process saves or deletes a User, User
 * Permission or Role (a password set, a user disabled, a role taken away), so a change made here
 * applies to this process's very next request; other processes see it when their cached entries
 * expire (one second). Cleared again once the change is committed: a request of another unit that
 * ran between the first clear and the commit may have cached the state from before the change.
 */
export function clearPrincipalsOnChange(hooks: HookRegistry, cache: PrincipalCache, tokens: TokenCache): void {
  const clearBoth = () => {
    cache.clear();
    tokens.clear();
  };
  const clear: DocHook = async ({ ctx }, next) => {
    clearBoth();
    ctx.unit.afterCommit(clearBoth);
    await next();
  };
  for (const doctype of PRINCIPAL_DOCTYPES) for (const event of CHANGE_EVENTS) hooks.on(doctype, event, clear);
}
