// The RateLimitStore contract: what every implementation (memory, Redis) does, tested the same way. The
// Redis store runs on the Redis server's clock, so the buckets here refill either much slower than a test
// runs (a token per 1,000 s: no refill can change an answer) or are waited for by polling.
import { describe, expect, it } from 'vitest';
import type { RateLimitStore, TokenBucket } from '../../src/stores/rate-limit-store.js';
import type { MakeStores } from './harness.js';

/** A token per 1,000 s: nothing refills while a test runs. */
const slow = (burst: number): TokenBucket => ({ burst, perSecond: 0.001 });

/** A refusal's wait: `ms` as the store computed it a moment ago, less whatever refilled since (≤ 10 s). */
const about = (ms: number): number =>
  expect.toSatisfy((wait: number) => wait <= ms && wait > ms - 10_000) as number;

export function describeRateLimitStoreContract(name: string, make: MakeStores<RateLimitStore, void>): void {
  describe(`RateLimitStore contract: ${name}`, () => {
    it('allows a full burst from a new bucket, then refuses with the time until the next token', async () => {
      const { a, b } = await make();
      const take = (store: RateLimitStore) => store.take([{ key: 'k', bucket: slow(3) }]);
      expect([await take(a), await take(b), await take(a)]).toEqual([
        { ok: true },
        { ok: true },
        { ok: true },
      ]);
      expect(await take(b)).toEqual({ ok: false, key: 'k', retryAfterMs: about(1_000_000) });
      // A refusal takes nothing: the wait stays the same.
      expect(await take(a)).toEqual({ ok: false, key: 'k', retryAfterMs: about(1_000_000) });
    });

    it('takes `cost` tokens, and refuses a cost no bucket could ever hold', async () => {
      const { a } = await make();
      expect(await a.take([{ key: 'k', bucket: slow(5), cost: 4 }])).toEqual({ ok: true });
      expect(await a.take([{ key: 'k', bucket: slow(5), cost: 2 }])).toEqual({
        ok: false,
        key: 'k',
        retryAfterMs: about(1_000_000),
      });
      expect(await a.take([{ key: 'k', bucket: slow(5), cost: 1 }])).toEqual({ ok: true });
      expect(await a.take([{ key: 'big', bucket: slow(2), cost: 3 }])).toEqual({
        ok: false,
        key: 'big',
        retryAfterMs: about(1_000_000),
      });
    });

    it('refills at perSecond, up to the burst and no further', async () => {
      const { a, clock } = await make();
      const bucket = { burst: 2, perSecond: 50 }; // a token per 20 ms
      expect(await a.take([{ key: 'k', bucket, cost: 2 }])).toEqual({ ok: true });
      const refused = await a.take([{ key: 'k', bucket }]);
      expect(refused).toMatchObject({ ok: false, key: 'k' });
      expect(refused.ok ? 0 : refused.retryAfterMs).toBeLessThanOrEqual(20);
      await clock.after(60_000, async () => {
        // Full again: three tokens are never there, two are.
        expect(await a.take([{ key: 'k', bucket, cost: 3 }])).toMatchObject({ ok: false, key: 'k' });
        expect(await a.take([{ key: 'k', bucket, cost: 2 }])).toEqual({ ok: true });
      });
    });

    it('takes from every bucket or from none, naming the one with the longest wait', async () => {
      const { a, b } = await make();
      const both = [
        { key: 'a', bucket: slow(3) },
        { key: 'b', bucket: { burst: 1, perSecond: 0.0001 } }, // a token per 10,000 s
      ];
      expect(await a.take(both)).toEqual({ ok: true });
      expect(await b.take(both)).toEqual({ ok: false, key: 'b', retryAfterMs: about(10_000_000) });
      // Bucket a lost nothing to the refused call: two tokens are left.
      expect(await a.take([{ key: 'a', bucket: slow(3), cost: 2 }])).toEqual({ ok: true });
      expect(await b.take([{ key: 'a', bucket: slow(3) }])).toMatchObject({ ok: false, key: 'a' });
      // Both empty: the longer wait is named, whichever order the buckets come in.
      expect(await a.take([...both].reverse())).toMatchObject({ ok: false, key: 'b' });
    });

    it('keeps buckets apart by key, and allows a call with no bucket', async () => {
      const { a } = await make();
      expect(await a.take([{ key: 'x', bucket: slow(1) }])).toEqual({ ok: true });
      expect(await a.take([{ key: 'x', bucket: slow(1) }])).toMatchObject({ ok: false });
      expect(await a.take([{ key: 'y', bucket: slow(1) }])).toEqual({ ok: true });
      expect(await a.take([{ key: 'caller:x', bucket: slow(1) }])).toEqual({ ok: true });
      expect(await a.take([])).toEqual({ ok: true });
    });

    it('never grants more than the burst to many calls at once from two handles', async () => {
      const { a, b } = await make();
      const takes = [
        { key: 'global', bucket: slow(1000) },
        { key: 'caller:alice', bucket: slow(50) },
      ];
      const results = await Promise.all(
        Array.from({ length: 200 }, async (_, i) => (i % 2 ? a : b).take(takes)),
      );
      expect(results.filter((result) => result.ok)).toHaveLength(50);
      expect(results.filter((result) => !result.ok && result.key === 'caller:alice')).toHaveLength(150);
      // The global bucket gave exactly the 50 tokens of the calls that went through.
      expect(await a.take([{ key: 'global', bucket: slow(1000), cost: 950 }])).toEqual({ ok: true });
      expect(await b.take([{ key: 'global', bucket: slow(1000) }])).toMatchObject({ ok: false });
    });
  });
}
