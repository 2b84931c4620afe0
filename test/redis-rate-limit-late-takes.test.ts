// The Redis rate-limit store when a take times out: Redis was frozen (SIGSTOP) after the take reached its
// socket, so the caller was told the store failed (its call refused), and Redis runs the take when it thaws.
// That late take must charge nothing: it carries until when it may run, on Redis's clock, as this process
// learns it from the replies; a clock that steps back (here this process's) refuses no take for it.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { StoreError, redisStores, type RedisStores } from '../src/stores/redis.js';
import { startRedis, type RedisServerHandle } from './_redis.js';

const COMMAND_TIMEOUT_MS = 300;
/** Two calls at once, then one every 1,000 s: the test never sees a token come back. */
const bucket = { burst: 2, perSecond: 0.001 };

describe('rate-limit takes on a Redis that answers late', () => {
  let redis: RedisServerHandle;
  let admin: Redis;
  let stores: RedisStores;

  beforeAll(async () => {
    redis = await startRedis();
    admin = new Redis(redis.url);
    stores = redisStores(redis.url, { commandTimeoutMs: COMMAND_TIMEOUT_MS });
  });

  afterAll(async () => {
    if (redis?.pid !== undefined) process.kill(redis.pid, 'SIGCONT');
    admin?.disconnect();
    await stores?.close();
    await redis?.close();
  });

  /** The scripts Redis has run by their SHA-1 (INFO commandstats), the late take among them once it ran. */
  async function scriptsRun(): Promise<number> {
    const stats = await admin.info('commandstats');
    return Number(/cmdstat_evalsha:calls=(\d+)/.exec(stats)?.[1] ?? 0);
  }

  /** The tokens Redis holds for a bucket (its hash), as the last take left them. */
  async function tokens(key: string): Promise<number> {
    return Number(await admin.hget(`toolwire:rate:${key}`, 'tokens'));
  }

  it('charges nothing for a take that timed out on a frozen Redis and ran when it thawed', async () => {
    const take = () => stores.rateLimits.take([{ key: 'late', bucket }]);
    // A first take: Redis knows the script, and this process how its clock stands to Redis's.
    expect(await take()).toEqual({ ok: true });
    const before = await scriptsRun();
    process.kill(redis.pid!, 'SIGSTOP');
    try {
      const failed = await take().catch((error: unknown) => error);
      expect(failed).toBeInstanceOf(StoreError);
      expect((failed as StoreError).message).toMatch(/Redis rate limit store: take failed: .*timed out/);
      await expect.poll(() => stores.client.status, { timeout: 10_000 }).not.toBe('ready');
    } finally {
      process.kill(redis.pid!, 'SIGCONT');
    }
    // Redis runs the take it read before it froze: too late, it takes nothing.
    await expect.poll(scriptsRun, { timeout: 10_000 }).toBe(before + 1);
    expect(await tokens('late')).toBeCloseTo(1, 3);
    // The caller told the store failed keeps its token: the second call of the burst goes through.
    expect(await take()).toEqual({ ok: true });
    expect(await take()).toMatchObject({ ok: false, key: 'late' });
  });

  it("takes as before once this process's clock falls 5 s behind Redis's (it learns the step)", async () => {
    const step = -5_000;
    const take = () => stores.rateLimits.take([{ key: 'stepped', bucket }]);
    await expect.poll(() => stores.client.status, { timeout: 10_000 }).toBe('ready');
    expect(await take()).toEqual({ ok: true });
    const now = Date.now.bind(Date);
    const clock = vi.spyOn(Date, 'now').mockImplementation(() => now() + step);
    try {
      expect(await take()).toEqual({ ok: true });
      expect(await take()).toMatchObject({ ok: false, key: 'stepped' });
      expect(await tokens('stepped')).toBeCloseTo(0, 3);
    } finally {
      clock.mockRestore();
    }
  });
});
