// What the Redis stores do beyond the shared contracts (test/stores-redis.test.ts): their keys, and that
// every key has a TTL or a bound, on a real redis-server this file starts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import {
  RedisEventStore,
  RedisRateLimitStore,
  RedisSessionStore,
  RedisTaskStore,
  redisStores,
  type RedisStores,
} from '../src/stores/redis.js';
import { startRedis, type RedisServerHandle } from './_redis.js';
import { realClock } from './store-contracts/harness.js';

let redis: RedisServerHandle;
let stores: RedisStores;
let client: Redis;

beforeAll(async () => {
  redis = await startRedis();
  stores = redisStores(redis.url);
  client = stores.client;
});

afterAll(async () => {
  await stores?.close();
  await redis?.close();
});

let tests = 0;
const prefix = () => `t${++tests}:`;
const message = {
  jsonrpc: '2.0',
  method: 'notifications/message',
  params: { level: 'info', data: 'x' },
} as const;

describe('Redis session store', () => {
  it('keeps a record under <prefix>session:<id> for ttlMs after it was last seen, then forgets it', async () => {
    const p = prefix();
    const store = new RedisSessionStore(client, { prefix: p, ttlMs: 60_000 });
    const now = Date.now();
    await store.create({ id: 's1', createdAt: now, lastSeenAt: now });
    expect(await client.pttl(`${p}session:s1`)).toSatisfy((ms: number) => ms > 50_000 && ms <= 60_000);
    expect(await client.pttl(`${p}sessions`)).toSatisfy((ms: number) => ms > 50_000 && ms <= 60_000);
    // Being seen again restarts the clock; other changes do not.
    await client.pexpire(`${p}session:s1`, 5_000);
    await store.update('s1', { protocolVersion: '2025-11-25' });
    expect(await client.pttl(`${p}session:s1`)).toBeLessThanOrEqual(5_000);
    await store.update('s1', { lastSeenAt: Date.now() });
    expect(await client.pttl(`${p}session:s1`)).toBeGreaterThan(50_000);

    const short = new RedisSessionStore(client, { prefix: prefix(), ttlMs: 300 });
    await short.create({ id: 's2', createdAt: Date.now(), lastSeenAt: Date.now() });
    expect(await short.count()).toBe(1);
    await realClock.after(300, async () => {
      expect(await short.get('s2')).toBeUndefined();
      // The index sheds it too: it counts no more.
      expect(await short.count()).toBe(0);
    });
    expect(await store.get('s1')).toBeDefined();
  });
});

describe('Redis event store', () => {
  it('keeps a stream under <prefix>events:<id>, trimmed to maxEventsPerStream, for ttlMs after its last write or resume', async () => {
    const p = prefix();
    const store = new RedisEventStore(client, { prefix: p, maxEventsPerStream: 5, ttlMs: 60_000 });
    const first = await store.append('s1', null);
    for (let i = 0; i < 20; i++) await store.append('s1', message);
    expect(await client.xlen(`${p}events:s1`)).toBe(5);
    expect(await client.pttl(`${p}events:s1`)).toSatisfy((ms: number) => ms > 50_000 && ms <= 60_000);
    await client.pexpire(`${p}events:s1`, 5_000);
    expect((await store.replayAfter(first))?.events).toHaveLength(5);
    expect(await client.pttl(`${p}events:s1`)).toBeGreaterThan(50_000);

    const short = new RedisEventStore(client, { prefix: p, ttlMs: 300 });
    const id = await short.append('s2', message);
    // Watched from outside: a resume would keep it.
    await realClock.after(300, async () => {
      expect(await client.exists(`${p}events:s2`)).toBe(0);
    });
    expect(await short.replayAfter(id)).toBeUndefined();
  });
});

describe('Redis rate limit store', () => {
  it('keeps a bucket under <prefix>rate:<key> only until it would be full again', async () => {
    const p = prefix();
    const store = new RedisRateLimitStore(client, { prefix: p });
    await store.take([{ key: 'caller:alice', bucket: { burst: 10, perSecond: 0.01 }, cost: 3 }]);
    // 3 tokens at 0.01/s: full again in 300 s.
    expect(await client.pttl(`${p}rate:caller:alice`)).toSatisfy(
      (ms: number) => ms > 290_000 && ms <= 300_000,
    );
    await store.take([{ key: 'fast', bucket: { burst: 1, perSecond: 100 } }]);
    await realClock.after(10, async () => {
      expect(await client.exists(`${p}rate:fast`)).toBe(0);
    });
  });
});

describe('Redis task store', () => {
  it('keeps a task under <prefix>task:<id> until createdAt + ttlMs, and a null ttl for maxTtlMs', async () => {
    const p = prefix();
    const store = new RedisTaskStore(client, { prefix: p, maxTtlMs: 120_000 });
    const task = (taskId: string, ttlMs: number | null) => ({
      taskId,
      status: 'working' as const,
      createdAt: new Date(Date.now() - 10_000).toISOString(),
      lastUpdatedAt: new Date().toISOString(),
      ttlMs,
      method: 'tools/call',
    });
    await store.create(task('t1', 60_000));
    await store.create(task('forever', null));
    await store.create(task('long', 10 * 60_000));
    expect(await client.pttl(`${p}task:t:t1`)).toSatisfy((ms: number) => ms > 40_000 && ms <= 50_000);
    expect(await client.pttl(`${p}task:t:forever`)).toSatisfy((ms: number) => ms > 100_000 && ms <= 110_000);
    expect(await client.pttl(`${p}task:t:long`)).toSatisfy((ms: number) => ms > 100_000 && ms <= 110_000);
    // Updates keep the TTL.
    await store.update('t1', { status: 'completed', result: { content: [] } });
    expect(await client.pttl(`${p}task:t:t1`)).toBeLessThanOrEqual(50_000);
  });
});

describe('redisStores', () => {
  it('builds every store on one connection, under one prefix (default toolwire:), apart from other prefixes', async () => {
    const shared = redisStores(client);
    const other = redisStores(client, { prefix: 'other:' });
    const now = Date.now();
    await shared.sessions.create({ id: 'p1', createdAt: now, lastSeenAt: now });
    expect(await client.exists('toolwire:session:p1')).toBe(1);
    expect(await other.sessions.get('p1')).toBeUndefined();
    const bucket = { burst: 1, perSecond: 0.001 };
    expect(await shared.rateLimits.take([{ key: 'k', bucket }])).toEqual({ ok: true });
    expect(await other.rateLimits.take([{ key: 'k', bucket }])).toEqual({ ok: true });
    expect(await shared.rateLimits.take([{ key: 'k', bucket }])).toMatchObject({ ok: false });
    // A client it was given stays open when the stores close.
    await shared.close();
    expect(await client.ping()).toBe('PONG');
  });

  it('refuses a URL that is not redis:// or rediss://, and options that make no sense', () => {
    expect(() => redisStores('localhost:6379')).toThrow(/redis:\/\/ or rediss:\/\//);
    expect(() => redisStores(client, { events: { maxEventsPerStream: 0 } })).toThrow(/maxEventsPerStream/);
    expect(() => redisStores(client, { sessions: { ttlMs: 1.5 } })).toThrow(/ttlMs/);
  });

  it('runs no KEYS or SCAN: every operation names its keys', async () => {
    await client.config('RESETSTAT');
    const all = redisStores(client, { prefix: prefix() });
    const now = Date.now();
    await all.sessions.create({ id: 's', createdAt: now, lastSeenAt: now });
    await all.sessions.update('s', { lastSeenAt: now + 1 });
    await all.sessions.get('s');
    await all.sessions.idleSince(now + 10);
    await all.sessions.count();
    await all.sessions.delete('s');
    const id = await all.events.append('e', message);
    await all.events.replayAfter(id);
    await all.events.deleteStream('e');
    await all.rateLimits.take([{ key: 'k', bucket: { burst: 1, perSecond: 1 } }]);
    const iso = new Date(now).toISOString();
    await all.tasks.create({
      taskId: 't',
      status: 'working',
      createdAt: iso,
      lastUpdatedAt: iso,
      ttlMs: 1000,
      method: 'x',
    });
    await all.tasks.update('t', { status: 'failed' });
    await all.tasks.get('t');
    await all.tasks.delete('t');
    const stats = String(await client.info('commandstats'));
    expect(stats).toMatch(/cmdstat_hset/);
    expect(stats).not.toMatch(/cmdstat_(keys|scan)\b/);
  });
});
