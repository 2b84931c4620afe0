// The session records a Redis store holds are bounded however sessions come and go. A process bounds the
// copies it holds (`maxSessions`), but it unloads idle ones (`sessionUnloadMs`), and their records stay in
// Redis for their TTL: a caller opening sessions and leaving them idle made Redis hold one more record each
// time. The store holds at most its own `maxSessions` records; past them an `initialize` gets 503, and once
// a session ends a new one opens. The looks that unload are the handler's `unloadIdle()`, called here.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisStores } from '../src/stores/redis.js';
import { INIT, asSubject, openSession, post } from './_http.js';
import { startRedis, type RedisServerHandle } from './_redis.js';
import { closeInstances, startRedisInstance, subjectAuth, type RedisInstance } from './_redis-instance.js';

/** The records the store holds at most, and the copies the process holds at most. */
const STORED = 6;
const LIVE = 3;

let redis: RedisServerHandle;
let admin: Redis;
let A: RedisInstance;

beforeAll(async () => {
  redis = await startRedis();
  admin = new Redis(redis.url);
  const stores = redisStores(redis.url, { sessions: { ttlMs: 60_000, maxSessions: STORED } });
  A = await startRedisInstance(stores, {
    maxSessions: LIVE,
    sessionUnloadMs: 3_600_000,
    auth: subjectAuth(),
  });
});

afterAll(async () => {
  admin?.disconnect();
  await closeInstances([A]);
  await redis?.close();
});

const headers = (sessionId?: string) => asSubject('alice', sessionId);

/** Two looks: the idle copies leave the process, their records stay. */
async function unloadIdle(): Promise<void> {
  await A.http.handler.unloadIdle();
  await A.http.handler.unloadIdle();
}

describe('the session records a Redis store holds', () => {
  it('refuses with -32602 an initialize whose capabilities or clientInfo have more than 64 KiB of JSON', async () => {
    const large = 'x'.repeat(64 * 1024);
    const before = await admin.zcard('toolwire:sessions');
    for (const params of [
      { capabilities: { experimental: { large } }, clientInfo: { name: 'raw', version: '1' } },
      { capabilities: {}, clientInfo: { name: 'raw', version: '1', description: large } },
    ]) {
      const init = {
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', ...params },
      };
      const response = await post(A.url, init, headers());
      const text = await response.text();
      // Its session, opened before the initialize ran, is ended here (else its handshake timeout would).
      const sessionId = response.headers.get('mcp-session-id');
      if (sessionId) await fetch(A.url, { method: 'DELETE', headers: headers(sessionId) });
      expect(text).toContain('"code":-32602');
      expect(text).toMatch(/Invalid params: \\"(capabilities|clientInfo)\\" has 655\d\d characters of JSON/);
    }
    const keys = await admin.keys('toolwire:session:*');
    const sizes = await Promise.all(keys.map((key) => admin.memory('USAGE', key)));
    expect(sizes.every((size) => Number(size) < 16 * 1024)).toBe(true);
    expect(await admin.zcard('toolwire:sessions')).toBe(before);
  });

  it('refuses an initialize with 503 once the store holds maxSessions records, however many copies were unloaded', async () => {
    const opened: string[] = [];
    while ((await admin.zcard('toolwire:sessions')) < STORED) {
      for (let i = 0; i < LIVE && (await admin.zcard('toolwire:sessions')) < STORED; i++)
        opened.push(await openSession(A.url, headers));
      await unloadIdle();
      expect(A.http.handler.sessionCount).toBe(0);
    }
    expect(await admin.zcard('toolwire:sessions')).toBe(STORED);
    const refused = await post(A.url, INIT(), headers());
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).not.toBeNull();
    expect(JSON.stringify(await refused.json())).toContain('Redis session store');
    expect(await admin.zcard('toolwire:sessions')).toBe(STORED);
    // A session that ends makes room for one more.
    const ended = await fetch(A.url, { method: 'DELETE', headers: headers(opened[0]) });
    expect(ended.status).toBe(200);
    expect(await openSession(A.url, headers)).toEqual(expect.any(String));
    expect(await admin.zcard('toolwire:sessions')).toBe(STORED);
  });
});
