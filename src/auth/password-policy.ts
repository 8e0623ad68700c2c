import type { ZxcvbnFactory } from '@zxcvbn-ts/core';
import { ValidationError } from '../errors/index.js';

/** The shortest password a user may be given (docs/security.md "Passwords"). */
export const MIN_PASSWORD_LENGTH = 8;

/** The reference's password strength policy: off by default; scores run from 0 (weakest) to 4. */
export interface PasswordPolicy {
  readonly enabled: boolean;
  readonly minimumScore: number;
}

/** How strong a password is, by zxcvbn, with its advice. */
export interface PasswordStrength {
  readonly score: number;
  readonly warning: string;
  readonly suggestions: readonly string[];
}

let estimator: Promise<ZxcvbnFactory> | undefined;

/**
 * zxcvbn with the common and English dictionaries, loaded on first use only: the dictionaries are
 * megabytes, which a server that never checks a password (the policy is off by default) should not
 * carry in memory or pay for at start.
 */
function loadEstimator(): Promise<ZxcvbnFactory> {
  estimator ??= (async () => {
    const [{ ZxcvbnFactory }, common, english] = await Promise.all([
      import('@zxcvbn-ts/core'),
      import('@zxcvbn-ts/language-common'),
      import('@zxcvbn-ts/language-en'),
    ]);
    return new ZxcvbnFactory({
      translations: english.translations,
      graphs: common.adjacencyGraphs,
      dictionary: { ...common.dictionary, ...english.dictionary },
    });
  })();
  return estimator;
}

/** The strength of `password`; `userInputs` (the user's name and email) count as guessable words. */
export async function passwordStrength(password: string, userInputs: readonly string[] = []): Promise<PasswordStrength> {
  const result = (await loadEstimator()).check(
    password,
    userInputs.filter((input) => input !== ''),
  );
  return { score: result.score, warning: result.feedback.warning ?? '', suggestions: result.feedback.suggestions ?? [] };
}

/** The advice of a weak password as one sentence, as the reference words it. */
export function strengthAdvice(strength: PasswordStrength): string {
  const advice = [strength.warning, ...strength.suggestions].filter((s) => s !== '').join(' ');
  return advice || 'Include symbols, numbers and capital letters in the password.';
}

/**
 * Refuses (417 ValidationError) a new password shorter than MIN_PASSWORD_LENGTH and, when the
 * site's policy is on (`enable_password_policy`), one whose zxcvbn score is below
 * `minimum_password_score`. Every way a user's password is set goes through it (the User
 * controller); only the Administrator password given when a site is created is exempt.
 */
export async function checkNewPassword(password: string, policy: PasswordPolicy | undefined, userInputs: readonly string[]): Promise<void> {
  if ([...password].length < MIN_PASSWORD_LENGTH) {
    throw new ValidationError(`Invalid Password: a password must be at least ${MIN_PASSWORD_LENGTH} characters long`, { doctype: 'User' });
  }
  if (!policy?.enabled) return;
  const strength = await passwordStrength(password, userInputs);
  if (strength.score < policy.minimumScore) {
    throw new ValidationError(
      `Invalid Password: ${strengthAdvice(strength)} (strength ${strength.score} of 4; this site asks for at least ${policy.minimumScore})`,
      { doctype: 'User' },
    );
  }
}

/** Below this zxcvbn score (2: fair) the Administrator's password at site creation earns a warning. */
const ADMIN_WARNING_SCORE = 2;

/**
 * Why the Administrator password given when a site is created is weak, or undefined. That password
 * is not refused (the README's quick start uses `admin`); the caller prints a warning. `strength`
 * also asks zxcvbn, which `fw new-site` does and a first `fw serve` does not, so a server never
 * loads the dictionaries just to start.
 */
export async function adminPasswordWeakness(password: string, strength: boolean): Promise<string | undefined> {
  if ([...password].length < MIN_PASSWORD_LENGTH) return `shorter than ${MIN_PASSWORD_LENGTH} characters`;
  if (!strength) return undefined;
  const found = await passwordStrength(password, ['Administrator', 'admin']);
  return found.score < ADMIN_WARNING_SCORE ? `easy to guess (strength ${found.score} of 4): ${strengthAdvice(found)}` : undefined;
}
