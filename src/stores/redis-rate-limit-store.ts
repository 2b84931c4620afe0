/**
 * Token buckets in Redis, shared by every process that uses the same Redis and prefix: the sum of their
 * calls is limited, not each one's. A bucket is a hash (`<prefix>rate:<key>`: tokens, at); one Lua script
 * refills, checks and takes from all the buckets of a call at once, on the Redis server's clock, so
 * concurrent calls from any number of processes never take more than there is. A bucket expires when it
 * would be full again (a missing bucket is a full one), so idle callers cost nothing.
 * @module
 */
import type { Redis } from 'ioredis';
import type { BucketTake, RateLimitStore, TakeResult } from './rate-limit-store.js';
import { prefixOf, type RedisStoreOptions } from './redis-options.js';
import { RedisScript } from './redis-script.js';
import { redisOperation } from './redis-operation.js';

export type RedisRateLimitStoreOptions = RedisStoreOptions;

// KEYS: the buckets. ARGV: burst, perSecond, cost for each bucket in turn.
// Returns {0, 0} when every bucket had enough (and took), else {i, ms}: the 1-based bucket with the
// longest wait and that wait (nothing taken).
const TAKE = new RedisScript(`
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local levels = {}
local refused, wait = 0, -1
for i, key in ipairs(KEYS) do
  local burst, rate, cost = tonumber(ARGV[3 * i - 2]), tonumber(ARGV[3 * i - 1]), tonumber(ARGV[3 * i])
  local tokens = burst
  local stored = redis.call('HMGET', key, 'tokens', 'at')
  if stored[1] and stored[2] then
    local elapsed = math.max(0, now - tonumber(stored[2]))
    tokens = math.min(burst, tonumber(stored[1]) + elapsed / 1000 * rate)
  end
  levels[i] = tokens
  local missing = cost - tokens
  if missing > 1e-9 then
    local ms = math.ceil(missing / rate * 1000)
    if ms > wait then refused, wait = i, ms end
  end
end
for i, key in ipairs(KEYS) do
  local burst, rate, cost = tonumber(ARGV[3 * i - 2]), tonumber(ARGV[3 * i - 1]), tonumber(ARGV[3 * i])
  local tokens = levels[i]
  if refused == 0 then tokens = tokens - cost end
  redis.call('HSET', key, 'tokens', string.format('%.17g', tokens), 'at', string.format('%d', now))
  local full = math.min(1e15, math.max(1, math.ceil((burst - tokens) / rate * 1000)))
  redis.call('PEXPIRE', key, string.format('%d', full))
end
if refused == 0 then return {0, 0} end
return {refused, wait}`);

const NAME = 'Redis rate limit store';

export class RedisRateLimitStore implements RateLimitStore {
  readonly #client: Redis;
  readonly #prefix: string;

  constructor(client: Redis, options: RedisRateLimitStoreOptions = {}) {
    this.#client = client;
    this.#prefix = `${prefixOf(options)}rate:`;
  }

  async take(takes: readonly BucketTake[]): Promise<TakeResult> {
    if (takes.length === 0) return { ok: true };
    const keys = takes.map(({ key }) => this.#prefix + key);
    const args = takes.flatMap(({ bucket, cost = 1 }) => [bucket.burst, bucket.perSecond, cost]);
    const [refused, retryAfterMs] = (await redisOperation(this.#client, NAME, 'take', () =>
      TAKE.run(this.#client, keys, args),
    )) as [number, number];
    if (refused === 0) return { ok: true };
    return { ok: false, key: takes[refused - 1]!.key, retryAfterMs };
  }
}
