import { MIN_PASSWORD_LENGTH, passwordStrength } from '../../auth/password-policy.js';
import { FrappeTypeError } from '../../errors/index.js';
import type { MethodCall, MethodRegistry } from '../method-registry.js';

/** Longer passwords are not judged: zxcvbn's time grows with the length, and no form sends such. */
const MAX_JUDGED_LENGTH = 256;

/** `fw.core.api.file.get_max_file_size`: the largest upload in bytes, as the site enforces it (docs/files.md). */
async function getMaxFileSize({ services }: MethodCall): Promise<number> {
  return (await services.settings()).max_file_size;
}

/**
 * `fw.core.doctype.user.user.test_password_strength(new_password)`: how the password policy fw
 * enforces (docs/security.md "Passwords") judges a password, before the form sends it: `{}` when
 * the policy is off, else `{score, feedback: {warning, suggestions, password_policy_validation_passed}}`.
 * Passing needs the minimum score and fw's minimum length. The caller's names count as guessable.
 */
async function testPasswordStrength({ ctx, args, services }: MethodCall): Promise<object> {
  const settings = await services.settings();
  if (!settings.enable_password_policy) return {};
  const password = typeof args.new_password === 'string' ? args.new_password : '';
  if (password.length > MAX_JUDGED_LENGTH) throw new FrappeTypeError(`new_password must be at most ${MAX_JUDGED_LENGTH} characters to be judged`);
  if (password === '') return {};
  const inputs: string[] = [];
  if (ctx.principal.user !== 'Guest') {
    const rows = await ctx.q.all<Record<string, string | null>>(
      ctx.dialect.builder.selectFrom('tabUser').select(['first_name', 'middle_name', 'last_name', 'email']).where('name', '=', ctx.principal.user).compile(),
    );
    for (const value of Object.values(rows[0] ?? {})) if (value) inputs.push(value);
  }
  const strength = await passwordStrength(password, inputs);
  const passed = strength.score > 0 && strength.score >= settings.minimum_password_score && password.length >= MIN_PASSWORD_LENGTH;
  return { score: strength.score, feedback: { warning: strength.warning, suggestions: strength.suggestions, password_policy_validation_passed: passed } };
}

export function registerPolicyMethods(methods: MethodRegistry): void {
  methods.register('fw.core.api.file.get_max_file_size', getMaxFileSize, {
    allowGuest: true,
    description: 'The largest upload the site accepts, in bytes.',
  });
  methods.register('fw.core.doctype.user.user.test_password_strength', testPasswordStrength, {
    allowGuest: true,
    description: 'How the password policy judges a password.',
    params: [
      { name: 'new_password', type: 'string' },
      { name: 'key', type: 'string' },
      { name: 'old_password', type: 'string' },
      { name: 'user_data', type: 'any' },
    ],
  });
}
