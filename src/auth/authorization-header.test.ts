import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { type FwError, InvalidAuthorizationHeader, InvalidAuthorizationToken } from '../errors/index.js';
import { parseAuthorizationHeader } from './authorization-header.js';

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

describe('parseAuthorizationHeader', () => {
  const accepted: Array<[string, string | undefined, ReturnType<typeof parseAuthorizationHeader>]> = [
    ['no header', undefined, { kind: 'none' }],
    ['an empty header', '', { kind: 'none' }],
    ['a token', 'token abc:def', { kind: 'token', apiKey: 'abc', apiSecret: 'def' }],
    ['an upper-case TOKEN scheme', 'TOKEN abc:def', { kind: 'token', apiKey: 'abc', apiSecret: 'def' }],
    ['a secret holding a colon, split at the first', 'token abc:d:ef', { kind: 'token', apiKey: 'abc', apiSecret: 'd:ef' }],
    ['Basic credentials', `Basic ${b64('abc:def')}`, { kind: 'token', apiKey: 'abc', apiSecret: 'def' }],
    ['a lower-case basic scheme', `basic ${b64('k:s')}`, { kind: 'token', apiKey: 'k', apiSecret: 's' }],
    ['Basic with padding', `Basic ${b64('key:s')}`, { kind: 'token', apiKey: 'key', apiSecret: 's' }],
    ['two spaces (three parts)', 'token  a:b', { kind: 'none' }],
    ['a trailing space', 'token a:b ', { kind: 'none' }],
    ['a single part', 'token', { kind: 'none' }],
    ['three parts', 'token a:b c', { kind: 'none' }],
    ['a Bearer token', 'Bearer abc', { kind: 'bearer', token: 'abc' }],
    ['an unknown scheme', 'Digest abc', { kind: 'unsupported' }],
  ];
  for (const [label, header, expected] of accepted) {
    test(`reads ${label} as ${expected.kind}`, () => {
      assert.deepEqual(parseAuthorizationHeader(header), expected);
    });
  }

  type ErrorClass = (new (message?: string) => FwError) & { readonly excType: string };
  const refused: Array<[string, string, ErrorClass]> = [
    ['a token without a colon', 'token abcdef', InvalidAuthorizationHeader],
    ['an empty token value', 'token ', InvalidAuthorizationHeader],
    ['Basic with characters outside base64', 'Basic abc$def', InvalidAuthorizationToken],
    ['Basic with missing padding', `Basic ${b64('key:s').replace(/=+$/, '')}`, InvalidAuthorizationToken],
    ['Basic with url-safe base64', 'Basic a2V5Oj8-Pz8_', InvalidAuthorizationToken],
    ['Basic that decodes to no colon', `Basic ${b64('keysecret')}`, InvalidAuthorizationToken],
    ['Basic that decodes to invalid UTF-8', `Basic ${Buffer.from([0xff, 0x3a, 0x61]).toString('base64')}`, InvalidAuthorizationToken],
    ['an empty Basic value', 'Basic ', InvalidAuthorizationToken],
  ];
  for (const [label, header, errorClass] of refused) {
    test(`refuses ${label} with 400 ${errorClass.excType}`, () => {
      assert.throws(
        () => parseAuthorizationHeader(header),
        (err) => err instanceof errorClass && err.status === 400,
      );
    });
  }
});
