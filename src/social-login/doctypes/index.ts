import socialLoginKey from './social-login-key.json' with { type: 'json' };
import userSocialLogin from './user-social-login.json' with { type: 'json' };

/** The single sign-on DocTypes with the reference's names and fields; checked and frozen with the core DocTypes. */
export const SOCIAL_LOGIN_DOCTYPE_JSON: readonly unknown[] = [socialLoginKey, userSocialLogin];

export const SOCIAL_LOGIN_KEY = 'Social Login Key';
export const USER_SOCIAL_LOGIN = 'User Social Login';
