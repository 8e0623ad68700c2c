// A real OpenID Connect provider (oidc-provider) on 127.0.0.1 for the single sign-on tests, run as
// a child process by oidc-idp.ts. Its one interaction logs in whichever account the test chose
// (POST /_test/next-login) and grants what was asked; accounts and their claims are set by
// PUT /_test/accounts/<id>. It prints {"port": N} once listening.
import { createServer } from 'node:http';
import Provider from 'oidc-provider';

const { clientId, clientSecret, redirectUris } = JSON.parse(process.argv[2]);
const accounts = new Map();
let nextLogin;

const server = createServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.address();
const issuer = `http://127.0.0.1:${port}`;

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: clientId,
      client_secret: clientSecret,
      redirect_uris: redirectUris,
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_post',
    },
  ],
  claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['given_name', 'family_name', 'name', 'preferred_username'] },
  pkce: { required: () => true },
  features: { devInteractions: { enabled: false } },
  cookies: { keys: ['test-only-cookie-key'] },
  findAccount: (_ctx, id) => {
    const claims = accounts.get(id);
    return claims ? { accountId: id, claims: async () => ({ sub: id, ...claims }) } : undefined;
  },
});

async function readJson(req) {
  let text = '';
  for await (const chunk of req) text += chunk;
  return text ? JSON.parse(text) : {};
}

async function interaction(req, res) {
  const details = await provider.interactionDetails(req, res);
  if (details.prompt.name === 'login') {
    if (!nextLogin) {
      res.statusCode = 400;
      return res.end('no account chosen for this login');
    }
    return provider.interactionFinished(req, res, { login: { accountId: nextLogin } }, { mergeWithLastSubmission: false });
  }
  const grant = new provider.Grant({ accountId: details.session.accountId, clientId: details.params.client_id });
  grant.addOIDCScope(String(details.params.scope));
  const grantId = await grant.save();
  return provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
}

const oidc = provider.callback();
server.on('request', async (req, res) => {
  try {
    if (req.url.startsWith('/interaction/')) return await interaction(req, res);
    if (req.method === 'PUT' && req.url.startsWith('/_test/accounts/')) {
      accounts.set(decodeURIComponent(req.url.slice('/_test/accounts/'.length)), await readJson(req));
      return res.end('{}');
    }
    if (req.method === 'POST' && req.url === '/_test/next-login') {
      nextLogin = (await readJson(req)).accountId;
      return res.end('{}');
    }
    return oidc(req, res);
  } catch (err) {
    res.statusCode = 500;
    res.end(String(err?.stack ?? err));
  }
});

process.stdout.write(`${JSON.stringify({ port })}\n`);
