// Two Streamable HTTP handlers in this process, each with its own Server and Redis connections, sharing
// sessions on one real Redis (the `redis` option): a shared session stays its principal's, one handler's
// idle sweep never deletes a record another handler serves, and a session ended with DELETE leaves
// nothing behind (its route to the other instances was kept for good: ≈2.7 KB per ended session).
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisStores } from '../src/stores/redis.js';
import { INIT, asSubject, openSession as openHttpSession, post } from './_http.js';
import { PATIENT_TIMEOUT_MS, startRedis, type RedisServerHandle } from './_redis.js';
import {
  closeInstances,
  startRedisInstance,
  subjectAuth,
  type RedisInstance as Instance,
} from './_redis-instance.js';
import { SseReader } from './_sse.js';

const IDLE_MS = 60_000;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

let redis: RedisServerHandle;
let A: Instance;
let B: Instance;

function instance(): Promise<Instance> {
  const stores = redisStores(redis.url, { sessions: { ttlMs: IDLE_MS } });
  return startRedisInstance(stores, { sessionIdleTimeoutMs: IDLE_MS, auth: subjectAuth() });
}

beforeAll(async () => {
  redis = await startRedis();
  [A, B] = await Promise.all([instance(), instance()]);
});

afterAll(async () => {
  await closeInstances([A, B]);
  await redis?.close();
});

const as = asSubject;

const openSession = (on: Instance, who: string): Promise<string> =>
  openHttpSession(on.url, (sessionId) => as(who, sessionId));

const ping = (on: Instance, who: string, sessionId: string) =>
  post(on.url, { jsonrpc: '2.0', id: 1, method: 'ping' }, as(who, sessionId));

describe('sessions shared on Redis, in one process', () => {
  it('serves a session on another instance to its principal only', async () => {
    const sessionId = await openSession(A, 'alice');
    const before = B.http.handler.sessionCount;
    // Another subject with alice's session id: 404, and B took nothing up.
    expect((await ping(B, 'mallory', sessionId)).status).toBe(404);
    expect(B.http.handler.sessionCount).toBe(before);
    expect((await ping(B, 'alice', sessionId)).status).toBe(200);
    expect(B.http.handler.sessionCount).toBe(before + 1);
    // Taken up for alice, still not mallory's.
    expect((await ping(B, 'mallory', sessionId)).status).toBe(404);
  });

  it("one instance's idle sweep drops its own copy, never the record another instance serves", async () => {
    const sessionId = await openSession(A, 'alice');
    expect((await ping(B, 'alice', sessionId)).status).toBe(200);
    const count = A.http.handler.sessionCount;
    // Long past the idle timeout for A (which has not seen the session since it opened it).
    await A.http.handler.sweep(Date.now() + 2 * IDLE_MS);
    expect(A.http.handler.sessionCount).toBeLessThan(count);
    expect(await A.stores.sessions.get(sessionId)).toMatchObject({ id: sessionId, principal: 'alice' });
    expect((await ping(B, 'alice', sessionId)).status).toBe(200);
    // A takes it up again from its record.
    expect((await ping(A, 'alice', sessionId)).status).toBe(200);
  });

  it('keeps the record fresh in Redis: its TTL is the idle timeout', async () => {
    const sessionId = await openSession(A, 'alice');
    const ttl = await A.stores.client.pttl(`toolwire:session:${sessionId}`);
    expect(ttl).toBeGreaterThan(IDLE_MS - 10_000);
    expect(ttl).toBeLessThanOrEqual(IDLE_MS);
    expect(await A.stores.sessions.get(sessionId)).toMatchObject({
      protocolVersion: '2025-11-25',
      clientInfo: { name: 'raw' },
      clientCapabilities: { elicitation: {} },
    });
  });

  it("a stream's events outlive the copy of the instance that wrote them: resumed on the other", async () => {
    const sessionId = await openSession(A, 'alice');
    const answer = await post(
      A.url,
      { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'pid', arguments: {} } },
      as('alice', sessionId),
    );
    const reader = new SseReader(answer);
    const priming = await reader.next();
    expect(priming).toMatchObject({ data: '' });
    expect(await reader.nextMessage()).toMatchObject({ id: 7 });
    // A drops its copy (idle there); the client resumes the call's stream on B.
    await A.http.handler.sweep(Date.now() + 2 * IDLE_MS);
    const resumed = await fetch(B.url, {
      headers: { accept: 'text/event-stream', 'last-event-id': priming!.id!, ...as('alice', sessionId) },
    });
    expect(resumed.status).toBe(200);
    expect(await new SseReader(resumed).nextMessage()).toMatchObject({
      id: 7,
      result: { structuredContent: { pid: process.pid } },
    });
  });

  // Last: it stops Redis.
  it('Redis down: an idle sweep does not reject (the handler sweeps on a timer), initialize gets 503', async () => {
    const sessionId = await openSession(A, 'alice');
    expect((await ping(B, 'alice', sessionId)).status).toBe(200);
    await redis.stop();
    await expect(A.http.handler.sweep(Date.now() + 2 * IDLE_MS)).resolves.toBeUndefined();
    await expect(B.http.handler.sweep(Date.now() + 2 * IDLE_MS)).resolves.toBeUndefined();
    // An initialize gets 503 and leaves no session behind.
    const count = A.http.handler.sessionCount;
    const refused = await post(A.url, INIT(), as('alice'));
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(A.http.handler.sessionCount).toBe(count);
  });

  // After the test above: Redis is down.
  it('a process started while Redis is down hears its messages once Redis is back', async () => {
    const late = redisStores(redis.url, { commandTimeoutMs: PATIENT_TIMEOUT_MS });
    try {
      const bus = late.sessionBus;
      const heard = new Promise((resolve) => (bus.onmessage = resolve));
      // Its subscriptions failed; Redis comes back.
      await expect(bus.listen('s1')).rejects.toThrow(/Redis session bus: listen failed/);
      await redis.start();
      // Until it hears (ioredis reconnects at most a second apart), a message to it reaches nobody.
      let delivered = false;
      for (let attempt = 0; attempt < 40 && !delivered; attempt++) {
        if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 100));
        delivered = await A.stores.sessionBus.toInstance(bus.instanceId, { kind: 'ping' }).catch(() => false);
      }
      expect(delivered).toBe(true);
      await expect(heard).resolves.toEqual({ kind: 'ping' });
    } finally {
      await late.close();
    }
  });

  it('keeps nothing of a session ended with DELETE', async () => {
    let gone = false;
    const registry = new FinalizationRegistry<string>(() => (gone = true));
    const endOne = async (): Promise<void> => {
      const before = new Set(A.server.connections);
      const sessionId = await openSession(A, 'alice');
      const connection = [...A.server.connections].find((c) => !before.has(c));
      expect(connection).toBeDefined();
      registry.register(connection!, sessionId);
      const ended = await fetch(A.url, { method: 'DELETE', headers: as('alice', sessionId) });
      expect(ended.status).toBe(200);
      // Not expect.poll: the test keeps its callback (and so the connection) until it ends.
      for (let i = 0; i < 100 && A.server.connections.has(connection!); i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(A.server.connections.has(connection!)).toBe(false);
      expect(await A.stores.sessions.get(sessionId)).toBeUndefined();
    };
    await endOne();
    for (let i = 0; i < 20 && !gone; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      gc();
    }
    expect(gone).toBe(true);
  });
});
