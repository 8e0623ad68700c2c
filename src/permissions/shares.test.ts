import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { PermissionType } from '../meta/doctype.js';
import { isShareable, shareAllows, sharedNames } from './shares.js';
import { shareOf } from './permission-fixtures.js';

describe('shares', () => {
  const cases: Array<[PermissionType, ReturnType<typeof shareOf>, boolean]> = [
    ['read', shareOf('a', 'read'), true],
    ['select', shareOf('a', 'read'), true],
    ['print', shareOf('a', 'read'), true],
    ['email', shareOf('a', 'read'), true],
    ['write', shareOf('a', 'read'), false],
    ['write', shareOf('a', 'read', 'write'), true],
    ['share', shareOf('a', 'read', 'share'), true],
    ['submit', shareOf('a', 'read', 'submit'), true],
    ['delete', shareOf('a', 'read', 'write', 'share', 'submit'), false],
    ['create', shareOf('a', 'read', 'write', 'share', 'submit'), false],
    ['read', shareOf('a'), false],
  ];
  for (const [right, share, expected] of cases) {
    const held = ['read', 'write', 'share', 'submit'].filter((r) => share[r as 'read']).join('+') || 'nothing';
    test(`a share of ${held} ${expected ? 'gives' : 'does not give'} ${right}`, () => assert.equal(shareAllows(share, right), expected));
  }

  test('only read-like rights, write, share and submit are worth looking shares up for', () => {
    assert.deepEqual(
      (['read', 'select', 'write', 'share', 'submit', 'print', 'email', 'create', 'delete', 'cancel', 'export'] as PermissionType[]).filter(isShareable),
      ['read', 'select', 'write', 'share', 'submit', 'print', 'email'],
    );
  });

  test('shared names are those whose share gives the right, each once', () => {
    const shares = [shareOf('a', 'read'), shareOf('b', 'read', 'write'), shareOf('a', 'read', 'write'), shareOf('c')];
    assert.deepEqual(sharedNames(shares, 'read'), ['a', 'b']);
    assert.deepEqual(sharedNames(shares, 'write'), ['b', 'a']);
  });
});
