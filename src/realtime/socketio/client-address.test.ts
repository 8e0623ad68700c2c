import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { addressGroup, quotaKey } from './client-address.js';

describe('the group a Guest connection is counted in', () => {
  const cases: [string, string][] = [
    ['127.0.0.1', '127.0.0.1'],
    ['::ffff:10.1.2.3', '10.1.2.3'],
    ['::FFFF:10.1.2.3', '10.1.2.3'],
    ['2001:db8:0:1:aaaa:bbbb:cccc:dddd', '2001:db8:0:1::/64'],
    ['2001:db8:0:1::5', '2001:db8:0:1::/64'],
    ['2001:0db8:0000:0001::ffff', '2001:db8:0:1::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1', 'fe80:0:0:0::/64'],
  ];
  for (const [address, group] of cases) {
    test(`${address} -> ${group}`, () => assert.equal(addressGroup(address), group));
  }

  test('users are counted by name, Guests by address group', () => {
    assert.equal(quotaKey('jane@example.com', '10.0.0.1'), 'jane@example.com');
    assert.equal(quotaKey('Guest', '2001:db8:0:1::5'), quotaKey('Guest', '2001:db8:0:1:ffff::9'));
    assert.notEqual(quotaKey('Guest', '10.0.0.1'), quotaKey('Guest', '10.0.0.2'));
  });
});
