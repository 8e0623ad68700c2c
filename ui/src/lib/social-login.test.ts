import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { providerButtons, type LoginProvider } from './social-login';

const keycloak: LoginProvider = {
  name: 'company_sso',
  provider_name: 'Company SSO',
  social_login_provider: 'Keycloak',
  icon: null,
  login_url: '/api/method/fw.integrations.oauth2_logins.start/company_sso',
};

describe('providerButtons', () => {
  test('labels each provider and carries the landing page in redirect_to', () => {
    assert.deepEqual(providerButtons([keycloak], '/app/todo?x=1'), [
      {
        key: 'company_sso',
        label: 'Continue with Company SSO',
        href: '/api/method/fw.integrations.oauth2_logins.start/company_sso?redirect_to=%2Fapp%2Ftodo%3Fx%3D1',
        icon: null,
      },
    ]);
  });

  test('passes on no target outside the app, and no icon that is not https', () => {
    const [button] = providerButtons([{ ...keycloak, icon: 'http://cdn.example/i.png' }], 'https://evil.example/');
    assert.equal(button?.href.endsWith('redirect_to=%2Fapp'), true);
    assert.equal(button?.icon, null);
  });

  test("drops an entry whose URL is not one of fw's methods", () => {
    assert.deepEqual(providerButtons([{ ...keycloak, login_url: 'https://evil.example/' }], '/app'), []);
  });
});
