// The GrantStore contract: what every implementation (memory, Redis) does, tested the same way.
import { describe, expect, it } from 'vitest';
import { MAX_GRANT_MS, type GrantStore } from '../../src/stores/grant-store.js';
import type { MakeStores } from './harness.js';

export function describeGrantStoreContract(name: string, make: MakeStores<GrantStore, void>): void {
  describe(`GrantStore contract: ${name}`, () => {
    it('holds a grant for every handle, in its scope only, for its key only', async () => {
      const { a, b } = await make();
      await a.grant('files', 'principal:alice\u0000write_file');
      expect(await b.has('files', 'principal:alice\u0000write_file')).toBe(true);
      expect(await b.has('files', 'principal:bob\u0000write_file')).toBe(false);
      expect(await b.has('other', 'principal:alice\u0000write_file')).toBe(false);
    });

    it('ends a grant at its end', async () => {
      const { a, b, clock } = await make();
      await a.grant('files', 'k', clock.now() + 500);
      await a.grant('files', 'longer', clock.now() + 60_000);
      expect(await b.has('files', 'k')).toBe(true);
      await clock.after(700, async () => {
        expect(await b.has('files', 'k')).toBe(false);
      });
      expect(await b.has('files', 'longer')).toBe(true);
    });

    it(`keeps a grant with an end of up to ${MAX_GRANT_MS} ms (365 days), and refuses a longer one`, async () => {
      const { a, b, clock } = await make();
      await a.grant('files', 'year', clock.now() + MAX_GRANT_MS - 60_000);
      expect(await b.has('files', 'year')).toBe(true);
      await expect(a.grant('files', 'longer', clock.now() + MAX_GRANT_MS + 60_000)).rejects.toThrow(
        RangeError,
      );
      expect(await b.has('files', 'longer')).toBe(false);
    });

    it('gives a single-use grant to one taker only, even to racing takers on both handles', async () => {
      const { a, b, clock } = await make();
      await a.grant('retries', 'k', clock.now() + 60_000);
      const taken = await Promise.all([
        a.take('retries', 'k'),
        b.take('retries', 'k'),
        b.take('retries', 'k'),
      ]);
      expect(taken.filter(Boolean)).toHaveLength(1);
      expect(await a.has('retries', 'k')).toBe(false);
      expect(await b.take('retries', 'never')).toBe(false);
      await a.grant('retries', 'short', clock.now() + 500);
      await clock.after(700, async () => {
        expect(await b.take('retries', 'short')).toBe(false);
      });
    });

    it('drops no grant that still holds while a scope is small (droppedUntil: 0)', async () => {
      const { a, b, clock } = await make();
      for (let i = 0; i < 100; i++) await a.grant('sessions', `s${i}`, clock.now() + 60_000);
      expect(await b.droppedUntil('sessions')).toBe(0);
      expect(await b.has('sessions', 's0')).toBe(true);
      expect(await b.droppedUntil('never-granted')).toBe(0);
    });

    it('forgets every grant of a scope at once, for every handle', async () => {
      const { a, b } = await make();
      await a.grant('files', 'k1');
      await a.grant('files', 'k2');
      await a.grant('other', 'k1');
      await b.forget('files');
      expect(await a.has('files', 'k1')).toBe(false);
      expect(await a.has('files', 'k2')).toBe(false);
      expect(await a.has('other', 'k1')).toBe(true);
    });
  });
}
