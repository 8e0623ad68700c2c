import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { testDialects } from '../helpers/dialects.js';
import { reopenWithConfig } from '../helpers/reopen-with-config.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';
import { login, sessionFor } from '../helpers/user-sessions.js';

// New passwords: at least 8 characters always; with the reference's policy on
// (enable_password_policy, minimum_password_score in site_config.json or System Settings), as
// strong as the minimum zxcvbn score. Refusals are 417 ValidationError (docs/security.md "Passwords").

const STRONG = 'Quartz-Lantern-Meadow-42!';
const SETTINGS_URL = '/api/resource/System Settings/System Settings';

function assertRefused(res: { statusCode: number; body: string; json(): unknown }, pattern: RegExp): void {
  assert.equal(res.statusCode, 417, res.body);
  const body = res.json() as { exc_type: string; exception: string };
  assert.equal(body.exc_type, 'ValidationError');
  assert.match(body.exception, pattern);
}

for (const dialect of testDialects()) {
  describe(`password length and strength policy (${dialect.name})`, () => {
    let t: TestSite;
    before(async () => {
      t = await startTestSite(dialect);
    });
    after(() => t.close());

    const addUser = (email: string, password: string) =>
      t.request({ method: 'POST', url: '/api/resource/User', body: { email, first_name: 'Pat', new_password: password } });
    const setPassword = (name: string, password: string) => t.request({ method: 'PUT', url: `/api/resource/User/${name}`, body: { new_password: password } });

    test('a password shorter than 8 characters is refused on insert and on update; the old one keeps working', async () => {
      assertRefused(await addUser('short@example.com', '1'), /at least 8 characters/);
      assertRefused(await addUser('short@example.com', 'seven77'), /at least 8 characters/);
      assert.equal((await t.request({ method: 'GET', url: '/api/resource/User/short@example.com' })).statusCode, 404);

      assert.equal((await addUser('pat@example.com', STRONG)).statusCode, 200);
      assertRefused(await setPassword('pat@example.com', 'abc'), /at least 8 characters/);
      assert.equal((await login(t.app, 'pat@example.com', STRONG)).statusCode, 200);
      // Eight characters, however weak, pass while the policy is off (the default).
      assert.equal((await setPassword('pat@example.com', 'password')).statusCode, 200);
      assert.equal((await login(t.app, 'pat@example.com', 'password')).statusCode, 200);
    });

    test('site_config.json turns it on too (before System Settings holds a value), and System Settings can turn it off again', async () => {
      const reopened = await reopenWithConfig(t, { enable_password_policy: true, minimum_password_score: 4 });
      try {
        const add = (email: string, password: string) =>
          reopened.app.inject({
            method: 'POST',
            url: '/api/resource/User',
            headers: { authorization: t.adminAuth },
            payload: { email, first_name: 'Cfg', new_password: password },
          });
        assertRefused(await add('cfg-weak@example.com', 'Summer2024!'), /strength 2 of 4; this site asks for at least 4\)/);
        assert.equal((await add('cfg-strong@example.com', STRONG)).statusCode, 200);
        const off = await reopened.app.inject({
          method: 'PUT',
          url: SETTINGS_URL,
          headers: { authorization: t.adminAuth },
          payload: { enable_password_policy: 0 },
        });
        assert.equal(off.statusCode, 200, off.body);
        assert.equal((await add('cfg-weak@example.com', 'Summer2024!')).statusCode, 200);
      } finally {
        await reopened.close();
      }
    });
    test('System Settings turns the strength policy on: weak passwords refused with advice, strong ones taken', async () => {
      const on = await t.request({ method: 'PUT', url: SETTINGS_URL, body: { enable_password_policy: 1, minimum_password_score: '3' } });
      assert.equal(on.statusCode, 200, on.body);
      try {
        assertRefused(
          await addUser('weak@example.com', 'password123'),
          /^fw\.exceptions\.ValidationError: Invalid Password: .+ \(strength [0-2] of 4; this site asks for at least 3\)$/,
        );
        // A name (here the user's own) makes a weak password.
        assertRefused(await addUser('harriet.quimby@example.com', 'HarrietQuimby'), /Invalid Password/);
        assert.equal((await addUser('strong@example.com', STRONG)).statusCode, 200);
        assertRefused(await setPassword('strong@example.com', 'qwertyuiop'), /Invalid Password/);

        // Changing one's own password from a session (old_password, the reference's update_password) is held to it too.
        const sid = await sessionFor(t.app, 'strong@example.com', STRONG);
        const csrf = (await t.app.inject({ method: 'GET', url: '/api/method/frappe.auth.get_csrf_token', cookies: { sid } })).json().message as string;
        const own = (password: string) =>
          t.app.inject({
            method: 'PUT',
            url: '/api/resource/User/strong@example.com',
            cookies: { sid },
            headers: { 'x-frappe-csrf-token': csrf },
            payload: { new_password: password, old_password: STRONG },
          });
        assertRefused(await own('letmein123'), /Invalid Password/);
        assert.equal((await own('Violet-Harbor-Engine-77?')).statusCode, 200);
      } finally {
        const off = await t.request({ method: 'PUT', url: SETTINGS_URL, body: { enable_password_policy: 0 } });
        assert.equal(off.statusCode, 200, off.body);
      }
      assert.equal((await addUser('weak-again@example.com', 'password123')).statusCode, 200, 'off again: only the length counts');
    });

    test('a score System Settings does not offer is refused', async () => {
      const res = await t.request({ method: 'PUT', url: SETTINGS_URL, body: { minimum_password_score: '9' } });
      assert.equal(res.statusCode, 417, res.body);
    });
  });
}

describe('zxcvbn is loaded lazily', () => {
  test('no module of src/ imports @zxcvbn-ts statically (start-up time and memory stay as they were)', async () => {
    const root = join(import.meta.dirname, '..', '..', 'src');
    const files = (await readdir(root, { recursive: true })).filter((f) => f.endsWith('.ts'));
    let dynamic = 0;
    for (const file of files) {
      // Type imports are erased by the compiler.
      const text = (await readFile(join(root, file), 'utf8')).replace(/^import type .*$/gm, '');
      assert.doesNotMatch(text, /(from|import)\s+['"]@zxcvbn-ts\/[^'"]+['"]/, file);
      dynamic += text.match(/import\(\s*['"]@zxcvbn-ts\//g)?.length ?? 0;
    }
    assert.equal(dynamic, 3, 'core, language-common and language-en, each imported on first use');
  });
});
