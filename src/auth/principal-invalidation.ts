import type { DocEvent, DocHook, HookRegistry } from '../documents/hooks.js';
import type { PrincipalCache } from './principal-cache.js';

/** The DocTypes whose documents make up a principal: the user with its roles, its User Permissions, roles themselves. */
const PRINCIPAL_DOCTYPES = ['User', 'User Permission', 'Role'] as const;
/** The events that follow every save, delete and rename. */
const CHANGE_EVENTS: readonly DocEvent[] = ['on_change', 'after_delete', 'after_rename'];

/**
 * Clears `cache` whenever this process saves or deletes a User, User Permission or Role, so a
 * change made here applies to this process's very next request; other processes see it when
 * their cached entries expire.
 */
export function clearPrincipalsOnChange(hooks: HookRegistry, cache: PrincipalCache): void {
  const clear: DocHook = async (_args, next) => {
    cache.clear();
    await next();
  };
  for (const doctype of PRINCIPAL_DOCTYPES) for (const event of CHANGE_EVENTS) hooks.on(doctype, event, clear);
}
