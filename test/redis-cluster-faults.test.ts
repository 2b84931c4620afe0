// Faults of a cluster of `toolwire serve --http --redis URL` processes on a real Redis: an instance
// killed with SIGKILL mid-session loses nothing of the session; Redis down gets clear 503s within the
// command timeout (never a hang, never per-instance memory); Redis back, the instances carry on without
// a restart (stores and the bus's subscriptions).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstance, stopInstance, type Instance } from './_cluster.js';
import { INIT, openSession as openHttpSession, post } from './_http.js';
import { startRedis, type RedisServerHandle } from './_redis.js';
import { SseReader } from './_sse.js';

type Message = Record<string, unknown>;

let redis: RedisServerHandle;
let D: Instance;
let E: Instance;
let F: Instance;

beforeAll(async () => {
  redis = await startRedis();
  [D, E, F] = await Promise.all([
    startInstance(redis.url),
    startInstance(redis.url),
    startInstance(redis.url),
  ]);
}, 30_000);

afterAll(async () => {
  await Promise.all([D, E, F].filter(Boolean).map((instance) => stopInstance(instance)));
  await redis?.close();
});

const headers = (sessionId: string) => ({
  'mcp-session-id': sessionId,
  'mcp-protocol-version': '2025-11-25',
});

const openSession = (on: Instance): Promise<string> =>
  openHttpSession(on.url, (sessionId) => (sessionId === undefined ? {} : headers(sessionId)));

let nextId = 1;
async function call(on: Instance, sessionId: string, name: string): Promise<Message> {
  const id = nextId++;
  const response = await post(
    on.url,
    { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } },
    headers(sessionId),
  );
  expect(response.status).toBe(200);
  const reader = new SseReader(response);
  for (;;) {
    const message = await reader.nextMessage();
    if (!message || message.id === id) return message ?? {};
  }
}

const pidOf = (response: Message) =>
  (response.result as { structuredContent: { pid: number } }).structuredContent.pid;

describe('faults', () => {
  it('an instance killed with SIGKILL mid-call: the call fails, the session goes on elsewhere', async () => {
    const sessionId = await openSession(D);
    expect(pidOf(await call(D, sessionId, 'pid'))).toBe(D.child.pid);
    // A call waiting on D (for the client's answer to an elicitation) when D dies.
    const running = await post(
      D.url,
      { jsonrpc: '2.0', id: 99, method: 'tools/call', params: { name: 'ask', arguments: {} } },
      headers(sessionId),
    );
    const stream = new SseReader(running);
    expect(await stream.nextMessage()).toMatchObject({ method: 'elicitation/create' });
    await stopInstance(D, 'SIGKILL');
    // Its stream breaks off without an answer (the client sees the connection end, and may call again).
    await expect(stream.nextMessage()).rejects.toThrow(/terminated/);
    // The next request, on E, continues the session.
    expect(pidOf(await call(E, sessionId, 'pid'))).toBe(E.child.pid);
    expect(pidOf(await call(F, sessionId, 'pid'))).toBe(F.child.pid);
  });

  it('Redis down: 503 with Retry-After within the timeout; Redis back: the instances carry on', async () => {
    const sessionId = await openSession(E);
    await redis.kill();
    const started = performance.now();
    const [onSession, opening] = await Promise.all([
      post(F.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, headers(sessionId)),
      post(E.url, INIT()),
    ]);
    const elapsed = performance.now() - started;
    for (const response of [onSession, opening]) {
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('1');
      const body = (await response.json()) as { error: { code: number; message: string } };
      expect(body.error.code).toBe(-32603);
      expect(body.error.message).toMatch(
        /^Service Unavailable: Redis session store: \w+ failed$/, // not where Redis is, nor its reply
      );
    }
    // Within the 2 s command timeout (and one reconnection), on a loaded machine too.
    expect(elapsed).toBeLessThan(5000);

    // Redis back (empty: the test's Redis keeps nothing), the instances recover without a restart.
    await redis.start();
    let opened: Response | undefined;
    for (let attempt = 0; attempt < 50 && opened?.status !== 200; attempt++) {
      if (opened) await new Promise((resolve) => setTimeout(resolve, 200));
      opened = await post(E.url, INIT());
    }
    expect(opened!.status).toBe(200);
    const fresh = opened!.headers.get('mcp-session-id')!;
    await new SseReader(opened!).nextMessage();
    expect(pidOf(await call(F, fresh, 'pid'))).toBe(F.child.pid);
    // The bus subscribed again: a GET stream on F gets what E sends for the session.
    const subscribed = await post(
      E.url,
      { jsonrpc: '2.0', id: 5, method: 'resources/subscribe', params: { uri: 'cluster://note' } },
      headers(fresh),
    );
    await new SseReader(subscribed).nextMessage();
    const listening = await fetch(F.url, { headers: { accept: 'text/event-stream', ...headers(fresh) } });
    expect(listening.status).toBe(200);
    const events = new SseReader(listening);
    await call(E, fresh, 'touch');
    expect(await events.nextMessage()).toMatchObject({ method: 'notifications/resources/updated' });
    await events.cancel();
  });
});
