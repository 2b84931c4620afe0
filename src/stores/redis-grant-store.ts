/**
 * "Approve always" grants in Redis, shared by every gateway instance: a sorted set per scope
 * (`<prefix>gateway:grant-ends:<scope>`, member: the grant's key, score: until when, in ms since the
 * epoch), kept as long as its longest grant. A grant with an end lasts until then (`MAX_GRANT_MS` at most,
 * as in every grant store), one without an end `maxGrantMs` (every key has a TTL). Each grant also sweeps
 * out up to 64 grants of its scope that ran out (the lowest scores): its work is O(log n), however many the
 * scope holds, and what ran out goes 64 times as fast as grants come (the key itself expires with its
 * longest grant). No grant is dropped before its end (`droppedUntil` is 0).
 * @module
 */
import type { Redis } from 'ioredis';
import { checkGrantEnd, type GrantStore } from './grant-store.js';
import { positiveOption, prefixOf, type RedisStoreOptions } from './redis-options.js';
import { redisOperation } from './redis-operation.js';
import { RedisScript } from './redis-script.js';

export interface RedisGrantStoreOptions extends RedisStoreOptions {
  /** How long a grant without an end lasts, in ms (default 24 hours). */
  maxGrantMs?: number;
}

export const DEFAULT_MAX_GRANT_MS = 24 * 60 * 60_000;

/** Grants that ran out a grant sweeps out of its scope, at most. */
const SWEEP = 64;

// KEYS: the scope's sorted set. ARGV: the grant's key, until (ms), how many that ran out to sweep at most.
// Every command is O(log n) or bounded by ARGV[3].
const GRANT = new RedisScript(`
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local gone = math.min(redis.call('ZCOUNT', KEYS[1], '-inf', now), tonumber(ARGV[3]))
if gone > 0 then redis.call('ZREMRANGEBYRANK', KEYS[1], 0, gone - 1) end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
local left = redis.call('PTTL', KEYS[1])
if left < 0 or now + left < tonumber(ARGV[2]) then redis.call('PEXPIREAT', KEYS[1], ARGV[2]) end
return 1`);

// KEYS: the scope's sorted set. ARGV: the grant's key, now (ms). Returns 1 when it held (and removes it).
const TAKE = new RedisScript(`
local ends = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not ends then return 0 end
redis.call('ZREM', KEYS[1], ARGV[1])
if tonumber(ends) > tonumber(ARGV[2]) then return 1 end
return 0`);

const NAME = 'Redis grant store';

export class RedisGrantStore implements GrantStore {
  readonly #client: Redis;
  readonly #prefix: string;
  readonly #maxMs: number;

  constructor(client: Redis, options: RedisGrantStoreOptions = {}) {
    this.#client = client;
    this.#prefix = `${prefixOf(options)}gateway:grant-ends:`;
    this.#maxMs = positiveOption(options.maxGrantMs ?? DEFAULT_MAX_GRANT_MS, 'maxGrantMs');
  }

  async grant(scope: string, key: string, until?: number): Promise<void> {
    const now = Date.now();
    checkGrantEnd(until, now);
    const end = until ?? now + this.#maxMs;
    await redisOperation(this.#client, NAME, 'grant', () =>
      GRANT.run(this.#client, [this.#prefix + scope], [key, Math.floor(end), SWEEP]),
    );
  }

  has(scope: string, key: string): Promise<boolean> {
    return redisOperation(this.#client, NAME, 'has', async () => {
      const until = await this.#client.zscore(this.#prefix + scope, key);
      return until !== null && Number(until) > Date.now();
    });
  }

  take(scope: string, key: string): Promise<boolean> {
    return redisOperation(this.#client, NAME, 'take', async () => {
      const held = await TAKE.run(this.#client, [this.#prefix + scope], [key, Date.now()]);
      return held === 1;
    });
  }

  /** Forgets the scope's one key, reclaimed off Redis's main thread (`UNLINK`), however many it holds. */
  async forget(scope: string): Promise<void> {
    await redisOperation(this.#client, NAME, 'forget', () => this.#client.unlink(this.#prefix + scope));
  }

  /** Always 0: a grant is kept until its end. */
  droppedUntil(): Promise<number> {
    return Promise.resolve(0);
  }
}
