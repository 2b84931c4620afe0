import { describe, expect, it } from 'vitest';
import { ClientSlots, clientKey, isLoopback } from './client-slots.js';

describe('clientKey', () => {
  it('keeps IPv4 as it is and maps IPv4-mapped IPv6 to it', () => {
    expect(clientKey('203.0.113.9')).toBe('203.0.113.9');
    expect(clientKey('::ffff:203.0.113.9')).toBe('203.0.113.9');
  });

  it('counts IPv6 by its /64, however it is written', () => {
    const key = '2001:db8:1:2::/64';
    for (const address of ['2001:db8:1:2::1', '2001:0DB8:0001:0002:ffff:0:0:9', '2001:db8:1:2:a:b:c:d%eth0'])
      expect(clientKey(address), address).toBe(key);
    expect(clientKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(clientKey('::1')).toBe('0:0:0:0::/64');
  });
});

describe('isLoopback', () => {
  it('knows this machine’s addresses', () => {
    for (const address of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1'])
      expect(isLoopback(address), address).toBe(true);
    for (const address of ['10.0.0.1', '::2', '2001:db8::1', '::ffff:10.0.0.1'])
      expect(isLoopback(address), address).toBe(false);
  });
});

describe('ClientSlots', () => {
  it('gives each client up to its maximum, and the slots back', () => {
    const slots = new ClientSlots(2);
    const a = slots.take('198.51.100.1');
    expect(slots.take('198.51.100.1')).toBe('198.51.100.1');
    expect(slots.take('198.51.100.1')).toBe(false);
    expect(slots.take(undefined)).toBeUndefined(); // not counted
    slots.release(a === false ? undefined : a);
    expect(slots.take('198.51.100.1')).toBe('198.51.100.1');
    slots.release('198.51.100.1');
    slots.release('198.51.100.1');
    expect(slots.clients).toBe(0);
  });
});
