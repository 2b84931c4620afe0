// The GrantStore contract: what every implementation (memory, Redis) does, tested the same way.
import { describe, expect, it } from 'vitest';
import { MAX_GRANT_MS, type GrantStore } from '../../src/stores/grant-store.js';
import type { MakeStores } from './harness.js';

/** What a contract's store is made with. */
export interface GrantStoreContractOptions {
  maxGrantsPerScope?: number;
}

export function describeGrantStoreContract(
  name: string,
  make: MakeStores<GrantStore, GrantStoreContractOptions>,
): void {
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

    it('drops the grants that ran out first when a scope is full, and then owns up to nothing dropped', async () => {
      const { a, b, clock } = await make({ maxGrantsPerScope: 3 });
      await a.grant('s', 'short', clock.now() + 500);
      await a.grant('s', 'live1', clock.now() + 60_000);
      await a.grant('s', 'live2', clock.now() + 60_000);
      await clock.after(700, async () => {
        expect(await b.has('s', 'short')).toBe(false);
      });
      await a.grant('s', 'live3', clock.now() + 60_000);
      for (const key of ['live1', 'live2', 'live3']) expect(await b.has('s', key)).toBe(true);
      expect(await b.droppedUntil('s')).toBe(0);
    });

    it('holds at most its bound of grants per scope, and says until when those it dropped would have held', async () => {
      const { a, b, clock } = await make({ maxGrantsPerScope: 3 });
      const ends = new Map<string, number>();
      const start = clock.now();
      for (let i = 0; i < 200; i++) {
        // Ends out of the order granted, as ended console sessions' are.
        const until = start + 60_000 + ((i * 7919) % 1000);
        ends.set(`k${i}`, until);
        await a.grant('s', `k${i}`, until);
      }
      const held = [];
      for (const key of ends.keys()) if (await b.has('s', key)) held.push(key);
      expect(held).toHaveLength(3);
      // The grant just given is never the one dropped.
      expect(held).toContain('k199');
      const dropped = await b.droppedUntil('s');
      expect(dropped).toBeGreaterThan(clock.now());
      // Whatever it no longer has ends no later than what it says it dropped: a caller that refuses by grants
      // (the gateway's ended sessions) refuses every one of them still.
      for (const [key, until] of ends) expect(held.includes(key) || until <= dropped).toBe(true);
      expect(await b.droppedUntil('other')).toBe(0);
      await a.forget('s');
      expect(await b.droppedUntil('s')).toBe(0);
    });

    it("keeps a grant's note for every handle while it holds, replaced by the next grant's, gone with it", async () => {
      const { a, b, clock } = await make();
      await a.grant('files', 'k', clock.now() + 500, '{"decidedBy":"ada"}');
      expect(await b.held!('files', 'k')).toEqual({ note: '{"decidedBy":"ada"}' });
      expect(await b.held!('files', 'other')).toBeUndefined();
      expect(await b.held!('other', 'k')).toBeUndefined();
      await clock.after(700, async () => {
        expect(await b.held!('files', 'k')).toBeUndefined();
      });
      // Granted again: its own note, or none (never the earlier grant's).
      await b.grant('files', 'k', clock.now() + 60_000, 'second');
      expect(await a.held!('files', 'k')).toEqual({ note: 'second' });
      await b.grant('files', 'k', clock.now() + 60_000);
      expect(await a.held!('files', 'k')).toEqual({});
      await a.grant('files', 'taken', clock.now() + 60_000, 'once');
      expect(await b.take('files', 'taken')).toBe(true);
      expect(await b.held!('files', 'taken')).toBeUndefined();
      await a.grant('files', 'forgotten', undefined, 'kept');
      await a.forget('files');
      expect(await b.held!('files', 'forgotten')).toBeUndefined();
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
