import { describe, expect, it } from 'vitest';
import { VerificationCache } from './verification-cache.js';

const alice = { subject: 'alice', scopes: ['a'] };

describe('VerificationCache', () => {
  it('keys by the SHA-256 of the token, never the token', async () => {
    const cache = new VerificationCache();
    expect(await cache.key('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('holds an entry for the TTL, and never past the principal’s expiry', () => {
    const cache = new VerificationCache({ ttlMs: 1000 });
    cache.set('k', alice, 0);
    expect(cache.get('k', 999)).toBe(alice);
    expect(cache.get('k', 1000)).toBeUndefined();
    expect(cache.size).toBe(0);
    cache.set('e', { ...alice, expiresAt: 500 }, 0);
    expect(cache.get('e', 499)).toMatchObject({ subject: 'alice' });
    expect(cache.get('e', 500)).toBeUndefined();
    cache.set('gone', { ...alice, expiresAt: 10 }, 10);
    expect(cache.size).toBe(0);
  });

  it('drops the oldest entries beyond maxEntries', () => {
    const cache = new VerificationCache({ maxEntries: 2 });
    cache.set('1', alice, 0);
    cache.set('2', alice, 0);
    cache.set('1', alice, 0); // refreshed: now the newest
    cache.set('3', alice, 0);
    expect([cache.get('1', 1), cache.get('2', 1), cache.get('3', 1)]).toEqual([alice, undefined, alice]);
  });
});
