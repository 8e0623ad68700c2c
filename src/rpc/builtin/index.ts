import type { TokenCache } from '../../auth/token-cache.js';
import type { DocContext } from '../../documents/doc-context.js';
import type { MethodRegistry } from '../method-registry.js';
import type { LoginGate } from './login-gate.js';
import { registerAmendmentMethods } from './amendment-methods.js';
import { registerAuthMethods } from './auth-methods.js';
import { registerClientMethods } from './client-methods.js';
import { registerCommentMethods } from './comment-methods.js';
import { registerDeskMethods } from './desk-methods.js';
import { registerDeletedDocumentMethods } from './deleted-document-methods.js';
import { registerDeskReportviewMethods } from './desk-reportview-methods.js';
import { registerDeskSearchMethods } from './desk-search-methods.js';
import { registerDocstatusMethods } from './docstatus-methods.js';
import { registerFileMethods } from './file-methods.js';
import { registerFormLoadMethods } from './form-load-methods.js';
import { registerFormSaveMethods } from './form-save-methods.js';
import { registerFormUtilsMethods } from './form-utils-methods.js';
import { registerHealthMethods } from './health-methods.js';
import { registerLinkMethods } from './link-methods.js';
import { registerVersionRevertMethods } from './version-revert-methods.js';
import { registerLinkedWithMethods } from './linked-with-methods.js';
import { registerListActionMethods } from './list-actions-methods.js';
import { registerListSettingsMethods } from './list-settings-methods.js';
import { registerPolicyMethods } from './policy-methods.js';
import { registerRealtimeMethods } from './realtime-methods.js';
import { registerUserMethods, type RevokeTokens } from './user-methods.js';
import { registerUserSettingsMethods } from './user-settings-methods.js';

/**
 * The few pieces of the site that only built-in methods use, beyond the services every handler
 * gets (docs/architecture.md, "Method services"): handed over once, at registration, so no handler
 * ever holds the site.
 */
export interface BuiltinInternals {
  /** Verified API tokens; `generate_keys` clears it once a new secret committed. */
  readonly tokenCache: TokenCache;
  /** The realtime site name (`site_config.json` `site_name`), for `fw.desk.boot`. */
  readonly siteName: string | null;
  /** Ends a session's live connections once `ctx`'s unit committed (the realtime publisher's); for `logout`. */
  revokeSession(ctx: DocContext, sid: string): void;
  /** Ends the live connections opened with a user's API secret once `ctx`'s unit committed; for `generate_keys`. */
  readonly revokeTokens: RevokeTokens;
  /** Completes a login after its first factor (the two-factor subsystem's gate, wired once it exists). */
  loginGate(): LoginGate;
}

/** Registers every built-in method; apps register theirs through the same registry. */
export function registerBuiltinMethods(methods: MethodRegistry, internals: BuiltinInternals): void {
  registerAuthMethods(methods, internals.revokeSession, () => internals.loginGate());
  registerUserMethods(methods, internals.tokenCache, internals.revokeTokens);
  registerClientMethods(methods);
  registerDocstatusMethods(methods);
  registerFileMethods(methods);
  registerDeletedDocumentMethods(methods);
  registerVersionRevertMethods(methods);
  registerHealthMethods(methods);
  registerLinkMethods(methods);
  registerCommentMethods(methods);
  registerDeskSearchMethods(methods);
  registerDeskReportviewMethods(methods);
  registerFormLoadMethods(methods);
  registerFormSaveMethods(methods);
  registerFormUtilsMethods(methods);
  registerLinkedWithMethods(methods);
  registerAmendmentMethods(methods);
  registerUserSettingsMethods(methods);
  registerListActionMethods(methods);
  registerListSettingsMethods(methods);
  registerPolicyMethods(methods);
  registerRealtimeMethods(methods);
  registerDeskMethods(methods, internals.siteName);
}
