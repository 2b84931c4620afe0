/**
 * Token buckets in Redis, shared by every process that uses the same Redis and prefix: the sum of their
 * calls is limited, not each one's. A bucket is a hash (`<prefix>rate:<key>`: tokens, at); one Lua script
 * refills, checks and takes from all the buckets of a call at once, on the Redis server's clock, so
 * concurrent calls from any number of processes never take more than there is. A bucket expires when it
 * would be full again (a missing bucket is a full one), so idle callers cost nothing. A take carries until
 * when it may run, on Redis's clock: one that Redis reads later than its command timeout (Redis was frozen or
 * busy, and its caller was told the store failed) takes nothing.
 * @module
 */
import type { Redis } from 'ioredis';
import type { BucketTake, RateLimitStore, TakeResult } from './rate-limit-store.js';
import { prefixOf, type RedisStoreOptions } from './redis-options.js';
import { TAKE } from './redis-rate-limit-scripts.js';
import { redisOperation } from './redis-operation.js';

export type RedisRateLimitStoreOptions = RedisStoreOptions;

const NAME = 'Redis rate limit store';

export class RedisRateLimitStore implements RateLimitStore {
  readonly #client: Redis;
  readonly #prefix: string;
  /** How long a command may wait for its reply (the connection's `commandTimeout`), if it has a bound. */
  readonly #timeoutMs: number | undefined;
  /**
   * How far Redis's clock is ahead of this one (ms; behind when negative), at most, as the replies tell:
   * undefined before the first.
   */
  #ahead: number | undefined;

  constructor(client: Redis, options: RedisRateLimitStoreOptions = {}) {
    this.#client = client;
    this.#prefix = `${prefixOf(options)}rate:`;
    const timeout = commandTimeoutOf(client);
    this.#timeoutMs = timeout !== undefined && Number.isFinite(timeout) && timeout > 0 ? timeout : undefined;
  }

  /**
   * Takes from the buckets, as one script, which takes nothing when Redis runs it after the command timed
   * out here (with a connection that has a `commandTimeout`, once Redis has answered a first take).
   */
  async take(takes: readonly BucketTake[]): Promise<TakeResult> {
    if (takes.length === 0) return { ok: true };
    const keys = takes.map(({ key }) => this.#prefix + key);
    const args = takes.flatMap(({ bucket, cost = 1 }) => [bucket.burst, bucket.perSecond, cost]);
    const [refused, retryAfterMs] = await redisOperation(this.#client, NAME, 'take', async () => {
      for (let tries = 1; ; tries++) {
        const sent = Date.now();
        const until =
          this.#timeoutMs === undefined || this.#ahead === undefined
            ? ''
            : sent + this.#timeoutMs + this.#ahead;
        const reply = (await TAKE.run(this.#client, keys, [until, ...args])) as [number, number, number];
        this.#learn(sent, Date.now(), reply[2]);
        // Answered in time, yet too late on Redis's clock: that clock moved ahead (learnt now); once more.
        if (reply[0] !== -1) return reply;
        if (tries === 2) throw new Error("Redis's clock and this one's disagree: nothing was taken");
      }
    });
    if (refused === 0) return { ok: true };
    return { ok: false, key: takes[refused - 1]!.key, retryAfterMs };
  }

  /**
   * Learns from a reply how far Redis's clock is ahead: it ran the take between `sent` and `answered`, so by
   * no more than `now - sent`; the least such bound so far, unless this reply shows more than it (`now -
   * answered`, at least): then the clock moved, and this reply's bound replaces it.
   */
  #learn(sent: number, answered: number, now: number): void {
    if (!Number.isFinite(now)) return;
    const most = now - sent;
    const least = now - answered;
    if (this.#ahead === undefined || least > this.#ahead) this.#ahead = most;
    else this.#ahead = Math.min(this.#ahead, most);
  }
}

/** The connection's command timeout (a cluster's is in its nodes' options). */
function commandTimeoutOf(client: Redis): number | undefined {
  const options = client.options as { commandTimeout?: number; redisOptions?: { commandTimeout?: number } };
  return options.commandTimeout ?? options.redisOptions?.commandTimeout;
}
