import { describe, expect, it } from 'vitest';
import {
  type AddressClass,
  classifyAddress,
  hostNameProblem,
  isAllowedAddress,
} from '../../functions/shared/address-policy.ts';

const CASES: [string, AddressClass][] = [
  // IPv4
  ['8.8.8.8', 'public'],
  ['1.1.1.1', 'public'],
  ['93.184.215.14', 'public'],
  ['100.63.255.255', 'public'],
  ['100.128.0.0', 'public'],
  ['172.15.255.255', 'public'],
  ['172.32.0.0', 'public'],
  ['192.169.0.1', 'public'],
  ['223.255.255.255', 'public'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['10.0.0.1', 'private'],
  ['10.255.255.255', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.0.1', 'private'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['169.254.169.254', 'metadata'],
  ['169.254.170.2', 'metadata'],
  ['169.254.0.1', 'link_local'],
  ['169.254.169.253', 'link_local'],
  ['100.64.0.1', 'cgnat'],
  ['100.127.255.255', 'cgnat'],
  ['192.0.0.8', 'reserved'],
  ['192.0.2.1', 'documentation'],
  ['198.51.100.7', 'documentation'],
  ['203.0.113.9', 'documentation'],
  ['198.18.0.1', 'benchmarking'],
  ['198.19.255.255', 'benchmarking'],
  ['192.88.99.1', 'reserved'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.255', 'broadcast'],
  // IPv6
  ['2606:4700:4700::1111', 'public'],
  ['2001:4860:4860::8888', 'public'],
  ['[2a00:1450:4001:81b::200e]', 'public'],
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['[::1]', 'loopback'],
  ['0:0:0:0:0:0:0:1', 'loopback'],
  ['fe80::1', 'link_local'],
  ['fe80::1%eth0', 'link_local'],
  ['febf::1', 'link_local'],
  ['fc00::1', 'unique_local'],
  ['fd12:3456:789a::1', 'unique_local'],
  ['fd00:ec2::254', 'metadata'],
  ['fec0::1', 'private'],
  ['ff02::1', 'multicast'],
  ['ff05::1:3', 'multicast'],
  ['2001:db8::1', 'documentation'],
  ['3fff::1', 'documentation'],
  ['2001::1', 'reserved'], // Teredo
  ['2001:2::1', 'reserved'], // benchmarking
  ['100::1', 'reserved'],
  ['64:ff9b:1::1', 'private'],
  ['4000::1', 'reserved'], // outside 2000::/3
  ['::2', 'unspecified'], // IPv4-compatible form of 0.0.0.2
  // IPv6 forms that embed an IPv4 address take that address's class
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['::ffff:10.0.0.1', 'private'],
  ['::ffff:169.254.169.254', 'metadata'],
  ['::ffff:100.64.1.1', 'cgnat'],
  ['::ffff:8.8.8.8', 'public'],
  ['::ffff:0:10.0.0.1', 'private'],
  ['::127.0.0.1', 'loopback'],
  ['64:ff9b::10.0.0.1', 'private'],
  ['64:ff9b::8.8.8.8', 'public'],
  ['2002:7f00:1::', 'loopback'], // 6to4 of 127.0.0.1
  ['2002:a00:1::1', 'private'], // 6to4 of 10.0.0.1
  ['2002:808:808::1', 'public'],
  // not addresses
  ['example.com', 'invalid'],
  ['', 'invalid'],
  ['1.2.3', 'invalid'],
  ['::g', 'invalid'],
];

describe('classifyAddress', () => {
  it.each(CASES)('%s is %s', (ip, expected) => {
    expect(classifyAddress(ip)).toBe(expected);
  });
});

describe('isAllowedAddress', () => {
  it('allows public addresses only, and loopback only when the policy says so', () => {
    expect(isAllowedAddress('8.8.8.8', { allowLoopback: false })).toBe(true);
    expect(isAllowedAddress('2606:4700:4700::1111', { allowLoopback: false })).toBe(true);
    for (const ip of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) {
      expect(isAllowedAddress(ip, { allowLoopback: false }), ip).toBe(false);
      expect(isAllowedAddress(ip, { allowLoopback: true }), ip).toBe(true);
    }
    for (const ip of [
      '10.0.0.1',
      '169.254.169.254',
      'fd00::1',
      'fe80::1',
      '::ffff:192.168.1.1',
      'nonsense',
    ]) {
      expect(isAllowedAddress(ip, { allowLoopback: true }), ip).toBe(false);
    }
  });
});

describe('host names that can never resolve', () => {
  const label = (n: number) => 'a'.repeat(n);
  it('accepts IP addresses and well-formed names, up to the DNS limits', () => {
    for (const host of [
      'example.com',
      'example.com.',
      'xn--bcher-kva.example',
      'a-b.c_d.example',
      `${label(63)}.example.com`,
      // 253 characters: 3 labels of 63, one of 61.
      `${label(63)}.${label(63)}.${label(63)}.${label(61)}`,
      '127.0.0.1',
      '::1',
    ]) {
      expect(hostNameProblem(host), host).toBeNull();
    }
  });

  it('refuses long labels, long names, empty labels and other characters', () => {
    for (const host of [
      `${label(64)}.example.com`,
      `${label(63)}.${label(63)}.${label(63)}.${label(62)}`,
      'a..example.com',
      '.example.com',
      '',
      '.',
      'exa$mple.com',
      'a!b.com',
      '-a.com',
      'a-.com',
    ]) {
      expect(hostNameProblem(host), host).toEqual(expect.any(String));
    }
  });
});
