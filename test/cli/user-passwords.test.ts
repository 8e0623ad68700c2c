import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { sitePaths } from '../../src/site/site-paths.js';
import { testDialects } from '../helpers/dialects.js';
import { runBin } from '../helpers/fw-bin.js';
import { Scratch } from './run-cli.js';

// Passwords from the command line follow the same rules as the API (docs/security.md
// "Passwords"); only the Administrator password of a new site is free, with a warning when weak.

const STRONG = 'Quartz-Lantern-Meadow-42!';

for (const dialect of testDialects()) {
  describe(`node bin/fw.js: passwords (${dialect.name})`, () => {
    const scratch = new Scratch(dialect);
    after(() => scratch.dispose());

    test('user add and set-password refuse a password shorter than 8 characters', async () => {
      const dir = await scratch.site('site');
      const add = await runBin(['user', 'add', 'one@example.com', '--password', '1', '--site', dir]);
      assert.equal(add.code, 1, add.stdout);
      assert.match(add.stderr, /Invalid Password: a password must be at least 8 characters long/);
      const keys = await runBin(['user', 'keys', 'one@example.com', '--site', dir]);
      assert.match(keys.stderr, /No user "one@example.com"/, 'nothing was created');

      const set = await runBin(['user', 'set-password', 'Administrator', '--password', 'admin', '--site', dir]);
      assert.equal(set.code, 1);
      assert.match(set.stderr, /at least 8 characters/);
      const fine = await runBin(['user', 'add', 'two@example.com', '--password', 'eight888', '--site', dir]);
      assert.equal(fine.code, 0, fine.stderr);
    });

    test('with enable_password_policy in site_config.json, a weak password is refused with advice', async () => {
      const dir = await scratch.site('site');
      const config = sitePaths(dir).config;
      await writeFile(config, JSON.stringify({ ...JSON.parse(await readFile(config, 'utf8')), enable_password_policy: true, minimum_password_score: 3 }));
      const weak = await runBin(['user', 'add', 'three@example.com', '--password', 'password123', '--site', dir]);
      assert.equal(weak.code, 1);
      assert.match(weak.stderr, /Invalid Password: .*\(strength 0 of 4; this site asks for at least 3\)/);
      const strong = await runBin(['user', 'add', 'three@example.com', '--password', STRONG, '--site', dir]);
      assert.equal(strong.code, 0, strong.stderr);
      // A generated password (none given) always passes.
      const generated = await runBin(['user', 'add', 'four@example.com', '--site', dir]);
      assert.equal(generated.code, 0, generated.stderr);
    });

    test('new-site takes a weak Administrator password with a warning, and a strong one without', async () => {
      const db = await scratch.databaseUrl();
      const weakDir = await scratch.folder('weak');
      const weak = await runBin(['new-site', weakDir, '--db', db, '--admin-password', 'admin']);
      assert.equal(weak.code, 0, weak.stderr);
      assert.match(weak.stderr, /warning: the Administrator password is shorter than 8 characters/);

      const guessable = await runBin(['new-site', await scratch.folder('guessable'), '--db', await scratch.databaseUrl(), '--admin-password', 'password123']);
      assert.equal(guessable.code, 0, guessable.stderr);
      assert.match(guessable.stderr, /warning: the Administrator password is easy to guess \(strength 0 of 4\)/);

      const strong = await runBin(['new-site', await scratch.folder('strong'), '--db', await scratch.databaseUrl(), '--admin-password', STRONG]);
      assert.equal(strong.code, 0, strong.stderr);
      assert.doesNotMatch(strong.stderr, /warning/);
    });
  });
}
