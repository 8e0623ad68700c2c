import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isLocalHost, siteNameOfHeader, siteNameOfHost } from './site-host.js';

test('a Host names its site lowercased and without its port; anything that could leave the folder names none', () => {
  const cases: [string | undefined, string | undefined][] = [
    ['erp.example.com', 'erp.example.com'],
    ['ERP.Example.com:8000', 'erp.example.com'],
    ['erp.example.com.', 'erp.example.com'],
    ['a_b.localhost', 'a_b.localhost'],
    [undefined, undefined],
    ['', undefined],
    ['..', undefined],
    ['../etc', undefined],
    ['a..b', undefined],
    ['.hidden', undefined],
    ['a/b', undefined],
    ['a%2fb', undefined],
    ['[::1]:8000', undefined],
    ['x'.repeat(254), undefined],
  ];
  for (const [host, name] of cases) assert.equal(siteNameOfHost(host), name, String(host));
});

test('X-Frappe-Site-Name is read like a Host, first value only', () => {
  assert.equal(siteNameOfHeader({ 'x-frappe-site-name': 'B.localhost' }), 'b.localhost');
  assert.equal(siteNameOfHeader({ 'x-frappe-site-name': '../b' }), undefined);
  assert.equal(siteNameOfHeader({}), undefined);
});

test('a missing Host, an address or localhost is local; a name is not', () => {
  for (const host of [undefined, '', '127.0.0.1', '127.0.0.1:8000', '[::1]:8000', '::1', 'localhost', 'LOCALHOST:3000'])
    assert.equal(isLocalHost(host), true, String(host));
  for (const host of ['a.localhost', 'erp.example.com', 'nope', '[nope]']) assert.equal(isLocalHost(host), false, host);
});
