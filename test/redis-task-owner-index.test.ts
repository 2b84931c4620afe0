// An owner's index of tasks in Redis (`task:tasks-of:<owner>`, what 2025-11-25 `tasks/list` pages through)
// lives as long as its newest task. A listing drops the ids of tasks that expired; an owner that never
// lists yet keeps starting tasks made it hold every id it ever had. Each task created drops those among
// the oldest, so the index holds about the tasks that live.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisStores, type RedisStores } from '../src/stores/redis.js';
import type { TaskRecord } from '../src/stores/task-store.js';
import { startRedis, type RedisServerHandle } from './_redis.js';

const ROUND = 40;

const task = (taskId: string, ttlMs: number): TaskRecord => {
  const now = new Date().toISOString();
  return {
    taskId,
    status: 'working',
    createdAt: now,
    lastUpdatedAt: now,
    ttlMs,
    method: 'tools/call',
    revision: '2025-11-25',
    owner: 'principal:alice',
  };
};

describe("an owner's index of tasks in Redis", () => {
  let redis: RedisServerHandle;
  let admin: Redis;
  let stores: RedisStores;

  beforeAll(async () => {
    redis = await startRedis();
    admin = new Redis(redis.url);
    stores = redisStores(redis.url);
  });

  afterAll(async () => {
    admin?.disconnect();
    await stores?.close();
    await redis?.close();
  });

  it('holds no more than the tasks that live when its owner never lists', async () => {
    const index = 'toolwire:task:tasks-of:principal:alice';
    // A task that lives on: the index lives as long as it (as it does while its owner keeps starting tasks).
    await stores.tasks.create(task('anchor', 60_000));
    for (let i = 0; i < ROUND; i++) await stores.tasks.create(task(`short-${i}`, 50));
    // Their records expire (EXISTS expires a key past its TTL as it reads it).
    const keys = Array.from({ length: ROUND }, (_, i) => `toolwire:task:t:short-${i}`);
    await expect.poll(() => admin.exists(...keys)).toBe(0);
    for (let i = 0; i < ROUND; i++) await stores.tasks.create(task(`long-${i}`, 60_000));
    expect(await admin.zcard(index)).toBe(ROUND + 1);
    const listed = await stores.tasks.list('principal:alice', { limit: 100 });
    // Every task that lives, and no other (tasks created in one ms are listed in the order of their ids).
    expect(listed.records.map(({ taskId }) => taskId).sort()).toEqual(
      ['anchor', ...Array.from({ length: ROUND }, (_, i) => `long-${i}`)].sort(),
    );
  });
});
