import type { HookRegistry } from '../documents/hooks.js';
import type { RealtimePublisher } from './realtime-publisher.js';

/** A Password value of only asterisks is the mask a client sends back, not a new password. */
const MASK = /^\*+$/;

/**
 * Ends live connections when access ends (docs/realtime.md, "Privacy"): every connection of a
 * user who is disabled or deleted, of one whose password changed except the session that
 * changed it, and those opened with a user's API key once the key is changed or cleared. Each
 * revocation travels the bus after the commit, so it reaches every process and a rolled-back
 * change ends nothing. Logout revokes its own session (see `revokeSession`), `generate_keys` the
 * connections opened with the secret it replaced (see `revokeTokens`).
 */
export function registerSessionRevocation(hooks: HookRegistry, publisher: RealtimePublisher): void {
  // validate runs before the User controller's before_save clears new_password.
  hooks.on('User', 'validate', async ({ doc, before, ctx }, next) => {
    const password = doc.new_password;
    if (before !== undefined && typeof password === 'string' && password !== '' && !MASK.test(password)) {
      const user = String(doc.name);
      const exceptSid = ctx.sid;
      ctx.unit.afterCommit(() => publisher.enqueue({ kind: 'revoke', user, ...(exceptSid ? { exceptSid } : {}) }));
    }
    await next();
  });
  hooks.onCommitted('User', 'on_update', (e) => {
    if (e.before === undefined) return;
    if (Number(e.before.enabled) === 1 && Number(e.doc.enabled) !== 1) publisher.enqueue({ kind: 'revoke', user: e.name });
    else if ((e.before.api_key ?? null) !== (e.doc.api_key ?? null)) publisher.enqueue({ kind: 'revoke', user: e.name, tokensOnly: true });
  });
  hooks.onCommitted('User', 'after_delete', (e) => publisher.enqueue({ kind: 'revoke', user: e.name }));
}
