/**
 * "Approve always" grants in Redis, shared by every gateway instance: a hash per scope
 * (`<prefix>gateway:grants:<scope>`, field: the grant's key, value: until when, in ms since the epoch),
 * kept as long as its longest grant. A grant with an end lasts until then (`MAX_GRANT_MS` at most, as in
 * every grant store), one without an end `maxGrantMs` (every key has a TTL). A scope past 1,024 grants drops
 * those that ran out whenever it gets a new one.
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

// KEYS: the scope's hash. ARGV: the grant's key, until (ms).
const GRANT = new RedisScript(`
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local left = redis.call('PTTL', KEYS[1])
if left < 0 or now + left < tonumber(ARGV[2]) then redis.call('PEXPIREAT', KEYS[1], ARGV[2]) end
if redis.call('HLEN', KEYS[1]) > 1024 then
  local all = redis.call('HGETALL', KEYS[1])
  for i = 1, #all, 2 do
    if tonumber(all[i + 1]) <= now then redis.call('HDEL', KEYS[1], all[i]) end
  end
end
return 1`);

// KEYS: the scope's hash. ARGV: the grant's key, now (ms). Returns 1 when it held (and removes it).
const TAKE = new RedisScript(`
local ends = redis.call('HGET', KEYS[1], ARGV[1])
if not ends then return 0 end
redis.call('HDEL', KEYS[1], ARGV[1])
if tonumber(ends) > tonumber(ARGV[2]) then return 1 end
return 0`);

const NAME = 'Redis grant store';

export class RedisGrantStore implements GrantStore {
  readonly #client: Redis;
  readonly #prefix: string;
  readonly #maxMs: number;

  constructor(client: Redis, options: RedisGrantStoreOptions = {}) {
    this.#client = client;
    this.#prefix = `${prefixOf(options)}gateway:grants:`;
    this.#maxMs = positiveOption(options.maxGrantMs ?? DEFAULT_MAX_GRANT_MS, 'maxGrantMs');
  }

  async grant(scope: string, key: string, until?: number): Promise<void> {
    const now = Date.now();
    checkGrantEnd(until, now);
    const end = until ?? now + this.#maxMs;
    await redisOperation(this.#client, NAME, 'grant', () =>
      GRANT.run(this.#client, [this.#prefix + scope], [key, Math.floor(end)]),
    );
  }

  has(scope: string, key: string): Promise<boolean> {
    return redisOperation(this.#client, NAME, 'has', async () => {
      const until = await this.#client.hget(this.#prefix + scope, key);
      return until !== null && Number(until) > Date.now();
    });
  }

  take(scope: string, key: string): Promise<boolean> {
    return redisOperation(this.#client, NAME, 'take', async () => {
      const held = await TAKE.run(this.#client, [this.#prefix + scope], [key, Date.now()]);
      return held === 1;
    });
  }

  async forget(scope: string): Promise<void> {
    await redisOperation(this.#client, NAME, 'forget', () => this.#client.del(this.#prefix + scope));
  }

  /** Always 0: a grant is kept until its end (its scope's key expires with its longest grant). */
  droppedUntil(): Promise<number> {
    return Promise.resolve(0);
  }
}
