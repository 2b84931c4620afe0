// Legacy HTTP+SSE (2024-11-05) sessions shared on one real Redis by two handlers in this process, with
// bearer authentication: a message posted to the instance that does not hold the stream is forwarded for
// the stream's principal only, and when Redis is down it gets 503 with `Retry-After` at once; Redis back,
// the forwarding goes on without a restart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisStores } from '../src/stores/redis.js';
import type { AuthRefusal } from '../src/transports/http/index.js';
import { INIT } from './_http.js';
import { PATIENT_TIMEOUT_MS, startRedis, type RedisServerHandle } from './_redis.js';
import {
  closeInstances,
  startRedisInstance,
  subjectAuth,
  type RedisInstance as Instance,
} from './_redis-instance.js';
import { SseReader } from './_sse.js';

let redis: RedisServerHandle;
let A: Instance;
let B: Instance;
const refusals: AuthRefusal[] = [];

function instance(): Promise<Instance> {
  // What is asked of Redis while it runs must succeed however busy the machine; with Redis down a command
  // fails at once (its connection refused), not at the timeout.
  const stores = redisStores(redis.url, { commandTimeoutMs: PATIENT_TIMEOUT_MS });
  return startRedisInstance(stores, {
    auth: subjectAuth({ onRefused: (refusal) => refusals.push(refusal) }),
  });
}

beforeAll(async () => {
  redis = await startRedis();
  [A, B] = await Promise.all([instance(), instance()]);
});

afterAll(async () => {
  await closeInstances([A, B]);
  await redis?.close();
});

const origin = (on: Instance) => new URL(on.url).origin;

/** Opens alice's legacy stream on A and initializes it through B; the stream and where to post. */
async function openAsAlice(): Promise<{ stream: SseReader; endpoint: string }> {
  const response = await fetch(`${origin(A)}/sse`, {
    headers: { accept: 'text/event-stream', authorization: 'Bearer alice' },
  });
  expect(response.status).toBe(200);
  const stream = new SseReader(response);
  const endpoint = (await stream.next())!.data;
  expect((await send(B, endpoint, 'alice', INIT('2024-11-05'))).status).toBe(202);
  expect(await stream.nextMessage()).toMatchObject({ id: 0, result: { protocolVersion: '2024-11-05' } });
  return { stream, endpoint };
}

function send(to: Instance, endpoint: string, who: string, message: object): Promise<Response> {
  return fetch(`${origin(to)}${endpoint}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${who}` },
    body: JSON.stringify(message),
  });
}

describe('legacy HTTP+SSE sessions shared on Redis, with principals', () => {
  it("refuses another subject's message on the instance that does not hold the stream (404)", async () => {
    const { stream, endpoint } = await openAsAlice();
    const before = refusals.length;
    const hijack = {
      jsonrpc: '2.0',
      id: 'mallory',
      method: 'tools/call',
      params: { name: 'pid', arguments: {} },
    };
    const refused = await send(B, endpoint, 'mallory', hijack);
    expect(refused.status).toBe(404);
    expect(await refused.json()).toMatchObject({ error: { message: 'Not Found: unknown sessionId' } });
    expect(refusals.slice(before)).toMatchObject([
      { status: 404, error: 'session_of_another_subject', subject: 'mallory' },
    ]);
    // Nothing of mallory's reached alice's stream: the next message there answers alice's ping.
    expect((await send(B, endpoint, 'alice', { jsonrpc: '2.0', id: 'alice', method: 'ping' })).status).toBe(
      202,
    );
    expect(await stream.nextMessage()).toMatchObject({ id: 'alice', result: {} });
    await stream.cancel();
  });

  it('answers 503 with Retry-After at once while Redis is down; forwards again once it is back', async () => {
    const { stream, endpoint } = await openAsAlice();
    await redis.kill();
    try {
      const started = performance.now();
      const refused = await send(B, endpoint, 'alice', { jsonrpc: '2.0', id: 1, method: 'ping' });
      const elapsed = performance.now() - started;
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('1');
      const body = (await refused.json()) as { id: unknown; error: { code: number; message: string } };
      expect(body).toMatchObject({ id: null, error: { code: -32603 } });
      expect(body.error.message).toMatch(/^Service Unavailable: Redis session bus: publish failed$/);
      // At once: the connection is refused (long before the 10 s command timeout).
      expect(elapsed).toBeLessThan(2_000);
      // A new stream cannot be shared either: 503 rather than a stream no other instance could reach.
      const opened = await fetch(`${origin(A)}/sse`, { headers: { authorization: 'Bearer alice' } });
      expect(opened.status).toBe(503);
    } finally {
      await redis.start();
    }
    // A subscribes again by itself: B's forwarding reaches the stream again.
    let status = 0;
    for (let attempt = 0; attempt < 100 && status !== 202; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 100));
      status = (await send(B, endpoint, 'alice', { jsonrpc: '2.0', id: 2, method: 'ping' })).status;
    }
    expect(status).toBe(202);
    expect(await stream.nextMessage()).toMatchObject({ id: 2, result: {} });
    await stream.cancel();
  });
});
