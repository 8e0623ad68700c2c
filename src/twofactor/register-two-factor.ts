import type { LoginGate } from '../rpc/builtin/login-gate.js';
import type { MethodRegistry } from '../rpc/method-registry.js';
import { twoFactorGate } from './two-factor-gate.js';
import type { MailQueue } from './two-factor-mail.js';
import { registerTwoFactorMethods } from './two-factor-methods.js';

/** What two-factor login is wired into (docs/identity.md "Two-factor login"). */
export interface TwoFactorParts {
  readonly methods: MethodRegistry;
  /** The mail service's queue: codes and QR links leave after the login's commit. */
  readonly mail: MailQueue;
  /** The site's `encryption_key`: authenticator secrets are encrypted with it. */
  readonly encryptionKey: string;
  /** The site's public origin, for the QR link mailed at a first login. */
  readonly baseUrl: string;
  /** Epoch ms: the site's clock (the job queue's, which tests move). */
  readonly now: () => number;
}

/** Two-factor login as a site has it: the gate every login passes, and the methods. */
export interface TwoFactor {
  /** Completes a login after its first factor: a session now, or the second step. */
  readonly gate: LoginGate;
}

/** Wires two-factor login into a site as openSite opens it. */
export function registerTwoFactor(parts: TwoFactorParts): TwoFactor {
  registerTwoFactorMethods(parts.methods, parts);
  return { gate: twoFactorGate(parts) };
}
