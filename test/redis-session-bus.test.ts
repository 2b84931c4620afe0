// The session bus on a real Redis, around the end of a session's stream: `unlisten` forgets the session at
// once and unsubscribes after a round trip. A message published in between still reaches the process (Redis
// counts it as a listener) and is heard as `released`, so the legacy HTTP+SSE forwarding answers "no such
// session" (404) at once instead of leaving the process that forwarded a POST to wait 5 s for a 503.
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '../src/protocol/jsonrpc.js';
import type { ServerRuntime } from '../src/server/server-runtime.js';
import { RedisSessionBus } from '../src/stores/redis-session-bus.js';
import type { BusAddress } from '../src/stores/session-bus.js';
import { SharedLegacySse, type LegacyHost } from '../src/transports/http/shared-legacy-sse.js';
import { startRedis, type RedisServerHandle } from './_redis.js';

let redis: RedisServerHandle;
const opened: Array<{ bus: RedisSessionBus; client: Redis }> = [];

beforeAll(async () => {
  redis = await startRedis();
}, 30_000);

afterEach(async () => {
  for (const { bus, client } of opened.splice(0)) {
    await bus.close();
    client.disconnect();
  }
});

afterAll(async () => {
  await redis?.close();
});

/**
 * A bus whose unsubscribes wait for `release()`: the window between `unlisten` forgetting a session and
 * Redis dropping the subscription, held open (on a network it lasts a round trip).
 */
function gatedBus(): { bus: RedisSessionBus; release: () => void; heard: Array<[JsonObject, BusAddress]> } {
  const client = new Redis(redis.url);
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const duplicate = client.duplicate.bind(client);
  client.duplicate = () => {
    const subscriber = duplicate();
    const unsubscribe = subscriber.unsubscribe.bind(subscriber) as (
      ...channels: string[]
    ) => Promise<unknown>;
    subscriber.unsubscribe = ((...channels: string[]) =>
      gate.then(() => unsubscribe(...channels))) as typeof subscriber.unsubscribe;
    return subscriber;
  };
  const bus = new RedisSessionBus(client);
  const heard: Array<[JsonObject, BusAddress]> = [];
  bus.onmessage = (payload, address) => heard.push([payload, address]);
  opened.push({ bus, client });
  return { bus, release, heard };
}

function plainBus(): RedisSessionBus {
  const client = new Redis(redis.url);
  const bus = new RedisSessionBus(client);
  opened.push({ bus, client });
  return bus;
}

/** Waits for what Redis delivers (as long as expect.poll waits: 200 turns of 10 ms was 2 s, short on a busy machine). */
const until = (test: () => boolean): Promise<void> => expect.poll(test).toBe(true);

describe('the Redis session bus around unlisten', () => {
  it('hears a session message sent before its unsubscribe lands as released, and none after', async () => {
    const a = gatedBus();
    const b = plainBus();
    const session = crypto.randomUUID();
    await a.bus.listen(session);
    expect(await b.toSession(session, { n: 1 })).toBe(1);
    await until(() => a.heard.length === 1);
    expect(a.heard[0]).toEqual([{ n: 1 }, { to: 'session', sessionId: session }]);

    const unlistened = a.bus.unlisten(session); // forgotten now, unsubscribed once the gate opens
    expect(a.bus.listening).toBe(0);
    expect(await b.toSession(session, { n: 2 })).toBe(1); // Redis still counts a as a listener
    await until(() => a.heard.length === 2);
    expect(a.heard[1]).toEqual([{ n: 2 }, { to: 'session', sessionId: session, released: true }]);

    a.release();
    await unlistened;
    expect(await b.toSession(session, { n: 3 })).toBe(0);
  });
});

describe('legacy HTTP+SSE forwarding while the holder lets its stream go', () => {
  it('answers the forwarding process "unknown" (its 404) at once, not after the 5 s wait', async () => {
    const holder = gatedBus();
    const forwarder = plainBus();
    const accepted: string[] = [];
    // The holder's legacy endpoints: the session was served here until its stream ended (gone from the map).
    const served = new Set<string>();
    const host = (sessions: Set<string>): LegacyHost => ({
      sessions: () => [],
      accept: (sessionId) => {
        accepted.push(sessionId);
        return sessions.has(sessionId) ? 'foreign' : 'unknown';
      },
      onError: (error) => {
        throw error;
      },
    });
    const server = {} as ServerRuntime; // only registry changes read it; none are sent here
    const atHolder = new SharedLegacySse(holder.bus, server, host(served));
    const atForwarder = new SharedLegacySse(forwarder, server, host(new Set()));
    const session = crypto.randomUUID();
    served.add(session);
    await atHolder.held(session);
    // While held: the holder serves it (here: another subject's session, its 404 "foreign").
    await expect(atForwarder.forward(session, { jsonrpc: '2.0', method: 'x' }, undefined)).resolves.toBe(
      'foreign',
    );

    served.delete(session); // the stream ended: the session left the holder's map, then …
    atHolder.released(session); // … it stops listening; Redis drops the subscription only later
    const started = performance.now();
    await expect(atForwarder.forward(session, { jsonrpc: '2.0', method: 'x' }, undefined)).resolves.toBe(
      'unknown',
    );
    expect(performance.now() - started).toBeLessThan(2_000); // the 503 came after 5 s
    expect(accepted).toEqual([session, session]);

    holder.release();
    const watcher = new Redis(redis.url);
    try {
      const listeners = async () =>
        ((await watcher.pubsub('NUMSUB', `toolwire:bus:session:${session}`)) as [string, number])[1];
      await expect.poll(listeners).toBe(0);
    } finally {
      watcher.disconnect();
    }
    // Unsubscribed: nobody hears the session, "unknown" without asking anyone.
    await expect(atForwarder.forward(session, { jsonrpc: '2.0', method: 'x' }, undefined)).resolves.toBe(
      'unknown',
    );
    expect(accepted).toHaveLength(2);
  });
});
