/**
 * Token buckets for rate limits, behind a store interface: in memory by default; a shared store (Redis)
 * lets several processes count together. A bucket holds at most `burst` tokens, gains `perSecond`
 * tokens per second, and starts full; a call takes one token from each bucket that applies to it.
 * @module
 */

/** A token bucket's shape: `burst` calls at once, `perSecond` calls per second sustained. */
export interface TokenBucket {
  /** The most tokens the bucket holds: calls allowed in a burst (at least 1). */
  burst: number;
  /** Tokens added per second: the sustained rate (more than 0; `1 / 60` is one call a minute). */
  perSecond: number;
}

/** One bucket to take from. */
export interface BucketTake {
  /** The bucket's key, e.g. `global`, `caller:principal:alice`, `tool:search:session:42`. */
  key: string;
  bucket: TokenBucket;
  /** Tokens to take (default 1). */
  cost?: number;
}

/** What `take` decided: allowed, or the bucket that refused and how long until it would allow. */
export type TakeResult = { ok: true } | { ok: false; key: string; retryAfterMs: number };

export interface RateLimitStore {
  /**
   * Takes tokens from every bucket or from none: when one lacks tokens, nothing is taken and the answer
   * names it (the one with the longest wait) and how long until it has enough. A new bucket is full.
   */
  take(takes: readonly BucketTake[]): Promise<TakeResult> | TakeResult;
}

export interface MemoryRateLimitStoreOptions {
  /** The clock, in ms (default `Date.now`); tests pass their own. */
  now?: () => number;
  /**
   * The most buckets kept (default 10,000). Past it, the least recently used go; a bucket that comes
   * back starts full again, so keep this above the number of callers you expect.
   */
  maxBuckets?: number;
}

interface Level {
  tokens: number;
  at: number;
}

/** The in-memory default: exact counts within one process. */
export class MemoryRateLimitStore implements RateLimitStore {
  readonly #levels = new Map<string, Level>();
  readonly #now: () => number;
  readonly #maxBuckets: number;
  /** The key `#takeOne` moved to the end last (undefined after a take of several). */
  #last: string | undefined;

  constructor(options: MemoryRateLimitStoreOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#maxBuckets = options.maxBuckets ?? 10_000;
  }

  /** Buckets currently kept. */
  get size(): number {
    return this.#levels.size;
  }

  take(takes: readonly BucketTake[]): TakeResult {
    if (takes.length === 1) return this.#takeOne(takes[0]!);
    const now = this.#now();
    const levels = takes.map(({ key, bucket }) => {
      const level = this.#levels.get(key);
      if (!level) return { tokens: bucket.burst, at: now };
      const refilled = level.tokens + (Math.max(0, now - level.at) / 1000) * bucket.perSecond;
      return { tokens: Math.min(bucket.burst, refilled), at: now };
    });
    let refusal: TakeResult = { ok: true };
    takes.forEach(({ key, bucket, cost = 1 }, i) => {
      const missing = cost - levels[i]!.tokens;
      if (missing <= 1e-9) return;
      const retryAfterMs = Math.ceil((missing / bucket.perSecond) * 1000);
      if (refusal.ok || retryAfterMs > refusal.retryAfterMs) refusal = { ok: false, key, retryAfterMs };
    });
    takes.forEach(({ key, cost = 1 }, i) => {
      const level = levels[i]!;
      if (refusal.ok) level.tokens -= cost;
      // Most recently used last, so eviction takes the oldest first.
      this.#levels.delete(key);
      this.#levels.set(key, level);
    });
    this.#last = undefined;
    this.#evict();
    return refusal;
  }

  /** One bucket (the default global limit alone): the same arithmetic, with no lists and no new level. */
  #takeOne({ key, bucket, cost = 1 }: BucketTake): TakeResult {
    const now = this.#now();
    let level = this.#levels.get(key);
    const tokens = level
      ? Math.min(bucket.burst, level.tokens + (Math.max(0, now - level.at) / 1000) * bucket.perSecond)
      : bucket.burst;
    const missing = cost - tokens;
    const ok = missing <= 1e-9;
    if (level) {
      level.tokens = ok ? tokens - cost : tokens;
      level.at = now;
    } else level = { tokens: ok ? tokens - cost : tokens, at: now };
    // Most recently used last, so eviction takes the oldest first (the last one used already is).
    if (key !== this.#last || !this.#levels.has(key)) {
      this.#levels.delete(key);
      this.#levels.set(key, level);
      this.#last = key;
      this.#evict();
    }
    return ok ? TAKEN : { ok: false, key, retryAfterMs: Math.ceil((missing / bucket.perSecond) * 1000) };
  }

  #evict(): void {
    for (const key of this.#levels.keys()) {
      if (this.#levels.size <= this.#maxBuckets) break;
      this.#levels.delete(key);
    }
  }
}

const TAKEN: TakeResult = Object.freeze({ ok: true });
