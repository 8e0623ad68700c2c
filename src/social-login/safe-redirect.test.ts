import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ValidationError } from '../errors/index.js';
import { safeRedirectPath } from './safe-redirect.js';

const SITE = ['https://erp.example.com'];

describe('safeRedirectPath', () => {
  const cases: [unknown, string][] = [
    [undefined, '/app'],
    ['', '/app'],
    ['/app/todo?x=1#top', '/app/todo?x=1#top'],
    ['https://erp.example.com/app/user', '/app/user'],
    ['/app/../me', '/me'],
  ];
  for (const [input, expected] of cases) {
    test(`keeps ${JSON.stringify(input)} on the site as ${expected}`, () => {
      assert.equal(safeRedirectPath(input, SITE), expected);
    });
  }

  for (const input of [
    'https://evil.example/app',
    '//evil.example/app',
    '/\\evil.example',
    '\\\\evil.example',
    'javascript:alert(1)',
    'http://erp.example.com/app',
    'https://erp.example.com.evil.example/',
    '/app\n/x',
    42,
    'x'.repeat(2001),
  ]) {
    test(`refuses ${JSON.stringify(input).slice(0, 40)}`, () => {
      assert.throws(() => safeRedirectPath(input, SITE), ValidationError);
    });
  }
});
