import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseAllowedTarget, parseAllowedTargets } from './allowed-targets.js';
import { embeddedIpv4, isInternalAddress } from './internal-addresses.js';
import { DENY_INTERNAL, refusal, refusalOfAnswer, type TargetPolicy } from './target-guard.js';

/*
 * The address check webhooks make at connect time (docs/webhooks.md "Safety"), tested on the check
 * itself: no traffic is ever sent to these addresses.
 */
describe('webhook target guard', () => {
  test('internal addresses: loopback, private, CGNAT, link-local and metadata, ULA, unspecified, multicast, reserved, and their IPv6 forms', () => {
    const internal = [
      '127.0.0.1',
      '127.255.255.254',
      '0.0.0.0',
      '0.1.2.3',
      '10.0.0.1',
      '10.255.255.255',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.0.1',
      '100.64.0.1',
      '100.127.255.255',
      '169.254.169.254',
      '169.254.0.1',
      '192.0.0.8',
      '198.18.0.1',
      '224.0.0.1',
      '239.255.255.250',
      '240.0.0.1',
      '255.255.255.255',
      '::',
      '::1',
      '0:0:0:0:0:0:0:1',
      'fd00::1',
      'fd12:3456:789a::1',
      'fc00::1',
      'fe80::1',
      'fe80::1%eth0',
      'febf::1',
      'fec0::1',
      'ff02::1',
      '100::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:10.0.0.1',
      '::ffff:169.254.169.254',
      '::ffff:a9fe:a9fe',
      '0:0:0:0:0:ffff:c0a8:0101',
      '::127.0.0.1',
      '::a00:1',
      '64:ff9b::a9fe:a9fe',
      '64:ff9b::127.0.0.1',
      '64:ff9b:1::10.0.0.1',
      '2002:7f00:1::1',
      '2002:a9fe:a9fe::',
      '[::1]',
    ];
    for (const a of internal) assert.equal(isInternalAddress(a), true, a);
    const external = [
      '8.8.8.8',
      '1.1.1.1',
      '172.32.0.1',
      '172.15.255.255',
      '100.63.255.255',
      '100.128.0.1',
      '169.253.1.1',
      '192.0.1.1',
      '11.0.0.1',
      '2606:4700::1111',
      '2001:4860:4860::8888',
      '::ffff:8.8.8.8',
      '64:ff9b::808:808',
      '2002:808:808::1',
      'fbff::1',
      'fe00::1',
      'example.com',
      '',
    ];
    for (const a of external) assert.equal(isInternalAddress(a), false, a);
    assert.equal(embeddedIpv4('::ffff:7f00:1'), '127.0.0.1');
    assert.equal(embeddedIpv4('::1'), undefined, '::1 is IPv6 loopback, not an IPv4 address');
  });

  test('DNS answers: one internal address anywhere in the answer refuses the host', () => {
    const answers: [string[], boolean][] = [
      [['93.184.216.34'], false],
      [['93.184.216.34', '2606:2800:220:1::'], false],
      [['93.184.216.34', '127.0.0.1'], true],
      [['2606:2800:220:1::', 'fd00::5'], true],
      [['169.254.169.254'], true],
      [['::ffff:169.254.169.254'], true],
      [['8.8.8.8', '::ffff:10.1.1.1'], true],
      [['0.0.0.0'], true],
    ];
    for (const [addresses, refused] of answers) {
      assert.equal(refusalOfAnswer(DENY_INTERNAL, 'rebind.example', addresses, 443) !== undefined, refused, addresses.join(','));
    }
  });

  test('webhook_allowed_targets: names, addresses and ranges, with or without a port, allow exactly what they name', () => {
    const policy: TargetPolicy = {
      denyInternal: true,
      allowed: parseAllowedTargets(['receiver.internal', 'hooks.lan:8443', '10.1.0.0/16', '192.168.1.5:9000', '[fd00::/8]:8080', '::1', '127.0.0.1:4000']),
    };
    const cases: [string, string, number, boolean][] = [
      ['receiver.internal', '10.9.9.9', 80, true],
      ['Receiver.Internal.', '192.168.7.7', 443, true],
      ['other.internal', '10.9.9.9', 80, false],
      ['hooks.lan', '10.200.0.1', 8443, true],
      ['hooks.lan', '10.200.0.1', 443, false],
      ['x.example', '10.1.2.3', 80, true],
      ['x.example', '::ffff:10.1.2.3', 80, true],
      ['x.example', '10.2.0.1', 80, false],
      ['192.168.1.5', '192.168.1.5', 9000, true],
      ['192.168.1.5', '192.168.1.5', 9001, false],
      ['[fd00::7]', 'fd00::7', 8080, true],
      ['[fd00::7]', 'fd00::7', 80, false],
      ['[::1]', '::1', 1234, true],
      ['127.0.0.1', '127.0.0.1', 4000, true],
      ['127.0.0.1', '127.0.0.1', 4001, false],
      ['metadata', '169.254.169.254', 80, false],
    ];
    for (const [host, address, port, allowed] of cases) {
      assert.equal(refusal(policy, host, address, port) === undefined, allowed, `${host} ${address}:${port}`);
    }
    assert.equal(refusal(policy, 'example.com', '93.184.216.34', 80), undefined, 'public addresses need no entry');
    assert.equal(refusal({ denyInternal: false, allowed: [] }, 'x', '127.0.0.1', 80), undefined, 'the guard switched off');
    assert.match(String(refusal(DENY_INTERNAL, 'metadata', '169.254.169.254', 80)), /metadata \(169\.254\.169\.254\) port 80 is an internal address/);
  });

  test('malformed entries are refused with the entry named', () => {
    for (const bad of ['', 'http://x', 'a b', '10.0.0.0/33', '[example.com]', 'host:0', 'host:70000', 'host:1:2', 'fd00::/129', '1.2.3.4/8/1']) {
      assert.throws(() => parseAllowedTarget(bad), Error, bad);
    }
    assert.throws(() => parseAllowedTargets('127.0.0.1'), /must be a list/);
    assert.throws(() => parseAllowedTargets([1]), /must be a list/);
    assert.deepEqual(parseAllowedTargets(undefined), []);
  });
});
