import type { LoginGate } from '../rpc/builtin/login-gate.js';
import type { DocumentService } from '../documents/document-service.js';
import type { HookRegistry } from '../documents/hooks.js';
import type { MethodRegistry } from '../rpc/method-registry.js';
import { ProviderClients } from './provider-client.js';
import { registerSocialLoginKeyController } from './social-login-key-controller.js';
import { registerSocialLoginMethods } from './social-login-methods.js';

/** What single sign-on is wired into (docs/identity.md "Single sign-on"). */
export interface SocialLoginParts {
  readonly hooks: HookRegistry;
  readonly methods: MethodRegistry;
  readonly documents: DocumentService;
  /** Decrypts the keys' client secrets. */
  readonly encryptionKey: string;
  /** Epoch ms: the job queue's clock (tests move it to expire a state). */
  readonly now: () => number;
  /** The site's public URL (site_config.json `host_name`), for callback URLs; null: the origin each request reached. */
  readonly publicUrl: string | null;
  /** The login gate (two-factor login) a social login passes like a password login. */
  readonly gate: () => LoginGate;
}

/** Wires single sign-on into a site as openSite opens it: the Social Login Key controller and the login methods. */
export function registerSocialLogin(parts: SocialLoginParts): void {
  registerSocialLoginKeyController(parts.hooks);
  registerSocialLoginMethods(parts.methods, { ...parts, clients: new ProviderClients() });
}
