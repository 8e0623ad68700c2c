import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { verifyApiToken } from '../../src/auth/api-keys.js';
import { main } from '../../src/cli/main.js';
import { testDialects } from '../helpers/dialects.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';
import { login, sessionFor, whoIs } from '../helpers/user-sessions.js';

/** Runs the CLI in process and captures what it prints. */
async function run(argv: string[], env: Record<string, string | undefined> = {}): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const log = console.log;
  const error = console.error;
  const write = process.stderr.write.bind(process.stderr);
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  console.log = (...a: unknown[]) => void out.push(a.join(' '));
  console.error = (...a: unknown[]) => void err.push(a.join(' '));
  process.stderr.write = ((chunk: string) => (err.push(String(chunk)), true)) as typeof process.stderr.write;
  try {
    const code = await main(argv);
    return { code, out: out.join('\n'), err: err.join('\n') };
  } finally {
    console.log = log;
    console.error = error;
    process.stderr.write = write;
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

function email(tag: string): string {
  return `${tag}-${randomBytes(4).toString('hex')}@example.com`;
}

const NO_ENV = { FW_USER_PASSWORD: undefined, FW_SITE: undefined, FW_DB_URL: undefined };

for (const dialect of testDialects()) {
  describe(`fw user (${dialect.name})`, () => {
    let t: TestSite;
    let site: string;
    /** `fw user <args> --site <the test site>` */
    const user = (args: string[], env: Record<string, string | undefined> = {}) => run(['user', ...args, '--site', site], { ...NO_ENV, ...env });
    const added = async (tag: string, password = 'cli-Secret-1', extra: string[] = []) => {
      const address = email(tag);
      const res = await user(['add', address, '--password', password, ...extra]);
      assert.equal(res.code, 0, res.err);
      return address;
    };

    before(async () => {
      t = await startTestSite(dialect);
      site = t.site.paths.root;
    });
    after(() => t.close());

    test('add creates a user with the given password, first name and roles, named by the lower-cased email', async () => {
      const mixed = `Cli.${randomBytes(3).toString('hex')}@Example.com`;
      const res = await user(['add', mixed, '--password', 'cli-Secret-1', '--first-name', 'Clara', '--role', 'System Manager', '--role', 'Desk User']);
      assert.equal(res.code, 0, res.err);
      const name = mixed.toLowerCase();
      assert.match(res.out, new RegExp(`Added user ${name.replace(/\./g, '\\.')}`));
      assert.doesNotMatch(res.out, /shown once/);
      const ok = await login(t.app, name, 'cli-Secret-1');
      assert.equal(ok.statusCode, 200, ok.body);
      assert.equal(ok.json().full_name, 'Clara');
      const doc = (await t.request({ method: 'GET', url: `/api/resource/User/${name}` })).json().data as { roles: Array<{ role: string }> };
      assert.deepEqual(doc.roles.map((r) => r.role).sort(), ['Desk User', 'System Manager']);
    });

    test('add takes the password from FW_USER_PASSWORD when --password is absent', async () => {
      const address = email('env');
      const res = await user(['add', address], { FW_USER_PASSWORD: 'from-Env-2' });
      assert.equal(res.code, 0, res.err);
      assert.doesNotMatch(res.out, /shown once/);
      assert.equal((await login(t.app, address, 'from-Env-2')).statusCode, 200);
    });

    test('add without a password generates one and prints it once', async () => {
      const address = email('gen');
      const res = await user(['add', address]);
      assert.equal(res.code, 0, res.err);
      const password = /shown once\): (\S+)/.exec(res.out)?.[1];
      assert.ok(password, res.out);
      assert.equal(res.out.split(password).length, 2, 'printed exactly once');
      assert.equal((await login(t.app, address, password)).statusCode, 200);
    });

    test('add refuses an email already in use and says what to do instead', async () => {
      const address = await added('dup');
      const res = await user(['add', address, '--password', 'other-Pass-3']);
      assert.equal(res.code, 1);
      assert.match(res.err, /already exists/);
      assert.match(res.err, /fw user set-password/);
      assert.equal((await login(t.app, address, 'cli-Secret-1')).statusCode, 200, 'the existing user is untouched');
    });

    test('add refuses an unknown role, naming the roles that exist, and creates nothing', async () => {
      const address = email('norole');
      const res = await user(['add', address, '--password', 'cli-Secret-1', '--role', 'Wizard']);
      assert.equal(res.code, 1);
      assert.match(res.err, /"Wizard"/);
      assert.match(res.err, /create it first/);
      assert.match(res.err, /System Manager/);
      assert.equal((await t.request({ method: 'GET', url: `/api/resource/User/${address}` })).statusCode, 404);
    });

    test("set-password changes the password and ends the user's sessions", async () => {
      const address = await added('setpw');
      const sid = await sessionFor(t.app, address, 'cli-Secret-1');
      const res = await user(['set-password', address, '--password', 'new-Secret-4']);
      assert.equal(res.code, 0, res.err);
      assert.equal(await whoIs(t.app, { cookie: `sid=${sid}` }), undefined);
      assert.equal((await login(t.app, address, 'cli-Secret-1')).statusCode, 401);
      assert.equal((await login(t.app, address, 'new-Secret-4')).statusCode, 200);
    });

    test('set-password without a password generates one, prints it once, and finds the user by email in any case', async () => {
      const address = await added('setgen');
      const res = await user(['set-password', address.toUpperCase()]);
      assert.equal(res.code, 0, res.err);
      const password = /shown once\): (\S+)/.exec(res.out)?.[1];
      assert.ok(password, res.out);
      assert.equal((await login(t.app, address, password)).statusCode, 200);
    });

    test('keys prints key:secret once; a second call replaces the secret', async () => {
      const address = await added('keys');
      const first = await user(['keys', address]);
      assert.equal(first.code, 0, first.err);
      assert.match(first.out, /^[0-9a-f]{15}:[0-9a-f]{32}$/);
      // Checked in the database rather than over HTTP, so no token cache remembers the old secret.
      const [key, secret] = first.out.split(':');
      assert.equal(await t.site.db.read((q) => verifyApiToken(q, t.site.db.dialect, key, secret)), address);

      const second = await user(['keys', address]);
      assert.equal(second.code, 0, second.err);
      assert.equal(second.out.split(':')[0], first.out.split(':')[0], 'the key stays');
      assert.notEqual(second.out, first.out);
      assert.equal(await whoIs(t.app, { authorization: `token ${second.out}` }), address);
      const old = await t.app.inject({ method: 'GET', url: '/api/method/fw.auth.get_logged_user', headers: { authorization: `token ${first.out}` } });
      assert.equal(old.statusCode, 401);
    });

    test('disable ends sessions and refuses keys and logins; enable brings the same keys back', async () => {
      const address = await added('toggle');
      const token = `token ${(await user(['keys', address])).out}`;
      const sid = await sessionFor(t.app, address, 'cli-Secret-1');

      const off = await user(['disable', address]);
      assert.equal(off.code, 0, off.err);
      assert.equal(await whoIs(t.app, { cookie: `sid=${sid}` }), undefined);
      assert.equal(await whoIs(t.app, { authorization: token }), undefined);
      assert.equal((await login(t.app, address, 'cli-Secret-1')).statusCode, 401);

      const on = await user(['enable', address]);
      assert.equal(on.code, 0, on.err);
      assert.equal(await whoIs(t.app, { authorization: token }), address);
      assert.equal((await login(t.app, address, 'cli-Secret-1')).statusCode, 200);
    });

    test('the Administrator cannot be disabled', async () => {
      const res = await user(['disable', 'Administrator']);
      assert.equal(res.code, 1);
      assert.match(res.err, /cannot be disabled/);
      assert.equal(await whoIs(t.app, { authorization: t.adminAuth }), 'Administrator');
    });

    for (const sub of ['set-password', 'keys', 'disable', 'enable']) {
      test(`${sub} for an unknown user fails and says how to add one`, async () => {
        const res = await user([sub, 'nobody@example.com', ...(sub === 'set-password' ? ['--password', 'x-Pass-5'] : [])]);
        assert.equal(res.code, 1);
        assert.match(res.err, /No user "nobody@example.com"/);
        assert.match(res.err, /fw user add nobody@example\.com/);
      });
    }
  });
}

describe('fw user usage', () => {
  let empty: string;
  before(async () => {
    empty = await mkdtemp(join(tmpdir(), 'fw-nosite-'));
  });
  after(() => rm(empty, { recursive: true, force: true }));

  const usage: ReadonlyArray<{ name: string; argv: string[] }> = [
    { name: 'no subcommand', argv: ['user'] },
    { name: 'an unknown subcommand', argv: ['user', 'frobnicate', 'x@example.com'] },
    { name: 'an inherited property name as subcommand', argv: ['user', 'constructor'] },
    { name: 'add without an email', argv: ['user', 'add'] },
    { name: 'add with two emails', argv: ['user', 'add', 'a@example.com', 'b@example.com'] },
    { name: 'an unknown flag', argv: ['user', 'keys', 'a@example.com', '--nope'] },
    { name: '--password without a value', argv: ['user', 'set-password', 'a@example.com', '--password'] },
  ];
  for (const u of usage) {
    test(`${u.name} is a usage error (exit 2)`, async () => {
      const res = await run(u.argv, NO_ENV);
      assert.equal(res.code, 2, res.err);
      assert.match(res.err, /Usage: fw/);
    });
  }

  test('a folder without a site fails and says how to create one', async () => {
    const res = await run(['user', 'add', 'a@example.com', '--site', empty], NO_ENV);
    assert.equal(res.code, 1);
    assert.match(res.err, /No site in/);
    assert.match(res.err, /fw new-site/);
  });
});
