import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSiteConfig, SiteConfigError } from './site-config.js';

/** site_config.json's webhook settings (docs/configuration.md): internal targets are refused unless named. */
describe('site config: webhook targets', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fw-config-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  async function load(extra: Record<string, unknown>) {
    const file = join(dir, `site_config_${Math.random().toString(36).slice(2)}.json`);
    await writeFile(file, JSON.stringify({ db_url: 'sqlite:site.db', encryption_key: 'k', ...extra }));
    return loadSiteConfig(file);
  }

  test('by default internal targets are refused and none is allowed', async () => {
    const config = await load({});
    assert.equal(config.webhook_deny_private_targets, true);
    assert.deepEqual(config.webhook_allowed_targets, []);
  });

  test('allowed targets are read as names, addresses and ranges with optional ports', async () => {
    const config = await load({ webhook_allowed_targets: ['receiver.internal', '127.0.0.1:8080', '10.0.0.0/8', '[::1]:9000', 'fd00::/8'] });
    assert.deepEqual(
      config.webhook_allowed_targets.map((t) => [t.kind, t.port ?? null]),
      [
        ['host', null],
        ['range', 8080],
        ['range', null],
        ['range', 9000],
        ['range', null],
      ],
    );
  });

  test('a malformed entry refuses the config, naming the key and the entry', async () => {
    for (const bad of [['10.0.0.0/40'], 'localhost', [42], ['http://x/']]) {
      await assert.rejects(
        load({ webhook_allowed_targets: bad }),
        (err: unknown) => err instanceof SiteConfigError && /webhook_allowed_targets/.test(err.message),
        JSON.stringify(bad),
      );
    }
  });
});
