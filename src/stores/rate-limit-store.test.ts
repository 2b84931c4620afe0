import { describe, expect, it } from 'vitest';
import { MemoryRateLimitStore } from './rate-limit-store.js';

const bucket = { burst: 3, perSecond: 2 };

describe('MemoryRateLimitStore', () => {
  it('allows a full burst, then refuses with the time until the next token', () => {
    let now = 1000;
    const store = new MemoryRateLimitStore({ now: () => now });
    const take = () => store.take([{ key: 'k', bucket }]);
    expect([take(), take(), take()]).toEqual([{ ok: true }, { ok: true }, { ok: true }]);
    expect(take()).toEqual({ ok: false, key: 'k', retryAfterMs: 500 });
    now += 250;
    expect(take()).toEqual({ ok: false, key: 'k', retryAfterMs: 250 });
    now += 250;
    expect(take()).toEqual({ ok: true });
  });

  it('refills up to the burst and no further', () => {
    let now = 0;
    const store = new MemoryRateLimitStore({ now: () => now });
    store.take([{ key: 'k', bucket, cost: 3 }]);
    now += 60_000;
    for (let i = 0; i < 3; i++) expect(store.take([{ key: 'k', bucket }]).ok).toBe(true);
    expect(store.take([{ key: 'k', bucket }]).ok).toBe(false);
  });

  it('takes from every bucket or from none, naming the one with the longest wait', () => {
    const now = 0;
    const store = new MemoryRateLimitStore({ now: () => now });
    const slow = { burst: 1, perSecond: 0.1 };
    expect(
      store.take([
        { key: 'a', bucket },
        { key: 'b', bucket: slow },
      ]),
    ).toEqual({ ok: true });
    expect(
      store.take([
        { key: 'a', bucket },
        { key: 'b', bucket: slow },
      ]),
    ).toEqual({
      ok: false,
      key: 'b',
      retryAfterMs: 10_000,
    });
    // Bucket a lost nothing to the refused call: two tokens are left.
    expect(store.take([{ key: 'a', bucket, cost: 2 }])).toEqual({ ok: true });
  });

  it('forgets the least recently used buckets past maxBuckets', () => {
    const store = new MemoryRateLimitStore({ now: () => 0, maxBuckets: 2 });
    for (const key of ['a', 'b', 'c']) store.take([{ key, bucket: { burst: 1, perSecond: 1 } }]);
    expect(store.size).toBe(2);
    // 'a' was evicted: it starts full again.
    expect(store.take([{ key: 'a', bucket: { burst: 1, perSecond: 1 } }]).ok).toBe(true);
    expect(store.take([{ key: 'c', bucket: { burst: 1, perSecond: 1 } }]).ok).toBe(false);
  });
});
