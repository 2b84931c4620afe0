// What a session's resource subscriptions cost on Redis, with two in-process instances sharing one real
// Redis: each subscribe and unsubscribe writes and publishes only its own URI, so N subscriptions cost
// O(N) bytes (they rewrote and broadcast the session's whole list: 300 URIs of 4,000 characters made
// Redis take in 363 MB for the 1.2 MB sent), and every instance's copy of the session follows.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisStores } from '../src/stores/redis.js';
import { RedisSessionStore } from '../src/stores/redis-session-store.js';
import { open, rpcTo } from './_http.js';
import { closeInstances, startRedisInstance, type RedisInstance } from './_redis-instance.js';
import { startRedis, type RedisServerHandle } from './_redis.js';

let redis: RedisServerHandle;
let probe: Redis;
let A: RedisInstance;
let B: RedisInstance;

beforeAll(async () => {
  redis = await startRedis();
  probe = new Redis(redis.url);
  const prefix = 'subscriptions-cost:';
  A = await startRedisInstance(redisStores(redis.url, { prefix }), {});
  B = await startRedisInstance(redisStores(redis.url, { prefix }), {});
}, 30_000);

afterAll(async () => {
  await closeInstances([A, B]);
  probe?.disconnect();
  await redis?.close();
});

/** Redis's counters of bytes taken in (commands) and sent out (replies and published messages). */
async function traffic(): Promise<{ input: number; output: number }> {
  const stats = await probe.info('stats');
  const field = (name: string) => Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(stats)?.[1]);
  return { input: field('total_net_input_bytes'), output: field('total_net_output_bytes') };
}

const session = (id: string) => ({ 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' });

describe('resource subscriptions of a session shared on Redis', () => {
  it('cost Redis bytes in proportion to the URIs sent, and reach every copy of the session', async () => {
    const id = await open(A.url);
    // B takes the session up now, so that it holds a copy the subscriptions must reach over the bus.
    expect((await rpcTo(B.url, 'ping', {}, {}, session(id))).result).toEqual({});
    const uris = Array.from(
      // 60 of 4 KB: what a session may hold (256 Ki characters in all).
      { length: 60 },
      (_, i) => `cluster://${String(i).padStart(4, '0')}/${'x'.repeat(3_984)}`,
    );
    // The URI characters the requests carry: 60 subscribes, then 20 unsubscribes (the whole list written
    // on each, as before, is 2,820 URIs written: 35 times that).
    const sent = (uris.length + 20) * uris[0]!.length;
    const before = await traffic();
    for (const uri of uris) {
      const answered = await rpcTo(A.url, 'resources/subscribe', { uri }, {}, session(id));
      expect(answered.result).toEqual({});
    }
    // B's copy knows A's subscriptions: it unsubscribes from them, and the record follows.
    for (const uri of uris.slice(0, 20)) {
      const answered = await rpcTo(B.url, 'resources/unsubscribe', { uri }, {}, session(id));
      expect(answered.result).toEqual({});
    }
    const after = await traffic();
    // Each request's URI is written to the record and published once (2× what was sent), plus small
    // writes; the publication reaches each of the two instances (2× out).
    expect(after.input - before.input).toBeLessThan(3 * sent);
    expect(after.output - before.output).toBeLessThan(3 * sent);

    const record = await new RedisSessionStore(probe, { prefix: 'subscriptions-cost:' }).get(id);
    expect([...(record?.subscriptions ?? [])].sort()).toEqual(uris.slice(20));
    // A's copy took B's unsubscriptions: unsubscribing one again there changes nothing in the record...
    await rpcTo(A.url, 'resources/unsubscribe', { uri: uris[0]! }, {}, session(id));
    // ...and unsubscribing one it still holds does.
    await rpcTo(A.url, 'resources/unsubscribe', { uri: uris[20]! }, {}, session(id));
    const changed = await new RedisSessionStore(probe, { prefix: 'subscriptions-cost:' }).get(id);
    expect([...(changed?.subscriptions ?? [])].sort()).toEqual(uris.slice(21));
  }, 120_000);
});
