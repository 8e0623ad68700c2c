import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SiteRegistry, type SiteOpener } from './site-registry.js';

/** An opener over an in-memory list of sites that counts what it did. */
function countingOpener(sites: Record<string, { trustsSiteHeader: boolean }>) {
  const calls = { inspect: 0, open: [] as string[], close: [] as string[] };
  const opener: SiteOpener<string> = {
    async inspect(dir) {
      calls.inspect++;
      return sites[dir.split('/').pop() ?? ''];
    },
    async open(name) {
      calls.open.push(name);
      await new Promise((r) => setTimeout(r, 20));
      return `open:${name}`;
    },
    async close(_handle, name) {
      calls.close.push(name);
    },
  };
  return { opener, calls };
}

const SITES = { 'a.test': { trustsSiteHeader: false }, 'b.test': { trustsSiteHeader: true } };

test('resolution: trusted header, then Host, then default_site for local hosts only', async () => {
  const { opener } = countingOpener(SITES);
  const registry = new SiteRegistry('/sites', opener, { defaultSite: 'a.test', idleMs: 0 });
  assert.equal(await registry.resolve({ host: 'a.test:8000' }), 'a.test');
  assert.equal(await registry.resolve({ host: 'a.test', 'x-frappe-site-name': 'b.test' }), 'b.test');
  assert.equal(await registry.resolve({ host: 'b.test', 'x-frappe-site-name': 'a.test' }), 'b.test');
  assert.equal(await registry.resolve({ host: 'nope.test' }), undefined);
  assert.equal(await registry.resolve({ host: '127.0.0.1:8000' }), 'a.test');
  assert.equal(await registry.resolve({}), 'a.test');
  // Once known, the answer needs no promise.
  assert.equal(registry.resolve({ host: 'a.test' }), 'a.test');
  await registry.close();
});

test('concurrent first requests share one opening; an idle site is closed and opened again', async () => {
  const { opener, calls } = countingOpener(SITES);
  const registry = new SiteRegistry('/sites', opener, { idleMs: 30 });
  const handles = await Promise.all([1, 2, 3, 4].map(() => registry.acquire('a.test')));
  assert.deepEqual(handles, ['open:a.test', 'open:a.test', 'open:a.test', 'open:a.test']);
  assert.deepEqual(calls.open, ['a.test']);
  for (let i = 0; i < 4; i++) registry.release('a.test');
  // Busy sites are never closed.
  registry.acquire('a.test');
  await new Promise((r) => setTimeout(r, 60));
  await registry.closeIdle();
  assert.deepEqual(calls.close, []);
  registry.release('a.test');
  await new Promise((r) => setTimeout(r, 60));
  await registry.closeIdle();
  assert.deepEqual(calls.close, ['a.test']);
  assert.equal(await registry.acquire('a.test'), 'open:a.test');
  assert.deepEqual(calls.open, ['a.test', 'a.test']);
  await registry.close();
  assert.deepEqual(calls.close, ['a.test', 'a.test']);
});
