// Legacy HTTP+SSE (2024-11-05) sessions across two `toolwire serve --http --redis URL` processes on one
// real Redis: the client holds its `GET /sse` stream on one instance and its POSTs land on any; the one
// that gets a POST forwards it to the holder of the stream, whose answers go out there. The official SDK
// 1.x `SSEClientTransport` goes through a round-robin proxy; raw requests name the instance each goes to.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstance, stopInstance, type Instance } from './_cluster.js';
import { INIT, open, post } from './_http.js';
import { startRedis, type RedisServerHandle } from './_redis.js';
import { roundRobin } from './_round-robin.js';
import { SseReader } from './_sse.js';

type Message = Record<string, unknown>;

let redis: RedisServerHandle;
/** The test's own connection, to watch the instances' subscriptions. */
let watcher: Redis;
let A: Instance;
let B: Instance;

beforeAll(async () => {
  redis = await startRedis();
  watcher = new Redis(redis.url);
  [A, B] = await Promise.all([startInstance(redis.url), startInstance(redis.url)]);
}, 30_000);

afterAll(async () => {
  await Promise.all([A, B].filter(Boolean).map((instance) => stopInstance(instance)));
  watcher?.disconnect();
  await redis?.close();
});

/** Resolves once no instance listens to a legacy session's channel any more (it let the stream go). */
async function released(legacy: Legacy): Promise<void> {
  const channel = `toolwire:bus:session:${new URLSearchParams(legacy.endpoint.split('?')[1]).get('sessionId')}`;
  for (let attempt = 0; attempt < 100; attempt++) {
    const [, count] = (await watcher.pubsub('NUMSUB', channel)) as [string, number];
    if (count === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${channel} is still listened to`);
}

const origin = (instance: Instance) => new URL(instance.url).origin;

interface Legacy {
  stream: SseReader;
  /** The path and query the client posts to (`/messages?sessionId=…`). */
  endpoint: string;
}

/** Opens a legacy stream on `on` and reads its `endpoint` event. */
async function openLegacy(on: Instance): Promise<Legacy> {
  const response = await fetch(`${origin(on)}/sse`, { headers: { accept: 'text/event-stream' } });
  expect(response.status).toBe(200);
  const stream = new SseReader(response);
  const endpoint = await stream.next();
  expect(endpoint?.event).toBe('endpoint');
  return { stream, endpoint: endpoint!.data };
}

/** POSTs one message of a legacy session to `to`. */
function send(to: Instance, legacy: Legacy | string, message: Message): Promise<Response> {
  const endpoint = typeof legacy === 'string' ? legacy : legacy.endpoint;
  return fetch(`${origin(to)}${endpoint}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(message),
  });
}

/** Initializes a legacy session held on `on` through `via` (both messages posted there). */
async function initialize(on: Instance, via: Instance): Promise<Legacy> {
  const legacy = await openLegacy(on);
  expect((await send(via, legacy, INIT('2025-06-18'))).status).toBe(202);
  expect(await legacy.stream.nextMessage()).toMatchObject({
    id: 0,
    result: { protocolVersion: '2025-06-18' },
  });
  expect((await send(via, legacy, { jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(202);
  return legacy;
}

const pidOf = (response: Message | undefined) =>
  ((response?.result as { structuredContent?: { pid?: number } }).structuredContent ?? {}).pid;

describe('legacy HTTP+SSE sessions on two instances', () => {
  it('the SDK 1.x SSE client works through a round-robin proxy, elicitation included', async () => {
    const proxy = await roundRobin([A.url, B.url]);
    const client = new Client(
      { name: 'sdk-v1-sse', version: '1.0.0' },
      { capabilities: { elicitation: {} } },
    );
    client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { name: 'Grace' } }));
    try {
      await client.connect(new SSEClientTransport(new URL(`${proxy.base}/sse`)));
      const tools = await client.listTools();
      expect(tools.tools.map((t) => t.name)).toContain('ask');
      // Every call is served by the instance holding the stream, wherever it was posted.
      const pids = new Set<unknown>();
      for (let i = 0; i < 3; i++) {
        const called = await client.callTool({ name: 'pid', arguments: {} });
        pids.add((called.structuredContent as { pid: number }).pid);
      }
      expect(pids.size).toBe(1);
      const asked = await client.callTool({ name: 'ask', arguments: {} });
      expect(asked.structuredContent).toMatchObject({ action: 'accept', name: 'Grace' });
      // Both instances got the client's requests (the stream on one, POSTs on both).
      expect(proxy.served.every((count) => count >= 3)).toBe(true);
    } finally {
      await client.close();
      await proxy.close();
    }
  });

  it("a message posted to B is served on A, its answer on A's stream; an elicitation answered through B", async () => {
    const legacy = await initialize(A, B);
    expect(
      (
        await send(B, legacy, {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'pid', arguments: {} },
        })
      ).status,
    ).toBe(202);
    expect(pidOf(await legacy.stream.nextMessage())).toBe(A.child.pid);
    // The tool asks on A's stream; the answer is posted to B.
    const call = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'ask', arguments: {} } };
    expect((await send(B, legacy, call)).status).toBe(202);
    const asked = (await legacy.stream.nextMessage())!;
    expect(asked).toMatchObject({ method: 'elicitation/create', params: { message: 'Name?' } });
    const reply = { jsonrpc: '2.0', id: asked.id, result: { action: 'accept', content: { name: 'Ada' } } };
    expect((await send(B, legacy, reply)).status).toBe(202);
    expect(await legacy.stream.nextMessage()).toMatchObject({
      id: 2,
      result: { structuredContent: { pid: A.child.pid, action: 'accept', name: 'Ada' } },
    });
    await legacy.stream.cancel();
  });

  it('a resource update and a tool registered on B reach the legacy stream on A', async () => {
    const legacy = await initialize(A, B);
    const subscribe = {
      jsonrpc: '2.0',
      id: 1,
      method: 'resources/subscribe',
      params: { uri: 'cluster://note' },
    };
    expect((await send(B, legacy, subscribe)).status).toBe(202);
    expect(await legacy.stream.nextMessage()).toMatchObject({ id: 1, result: {} });
    // Another client's Streamable HTTP session on B changes the resource, then the tool list.
    const other = await open(B.url);
    const headers = { 'mcp-session-id': other, 'mcp-protocol-version': '2025-11-25' };
    for (const name of ['touch', 'add_tool']) {
      const called = await post(
        B.url,
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {} } },
        headers,
      );
      expect(pidOf(await new SseReader(called).nextMessage())).toBe(B.child.pid);
    }
    expect(await legacy.stream.nextMessage()).toMatchObject({
      method: 'notifications/resources/updated',
      params: { uri: 'cluster://note' },
    });
    expect(await legacy.stream.nextMessage()).toMatchObject({ method: 'notifications/tools/list_changed' });
    await legacy.stream.cancel();
  });

  it('an unknown session is 404 on every instance, and so is a session whose stream ended', async () => {
    const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
    for (const id of [crypto.randomUUID(), 'not-a-session', '']) {
      for (const on of [A, B]) expect((await send(on, `/messages?sessionId=${id}`, ping)).status).toBe(404);
    }
    const legacy = await initialize(A, B);
    expect((await send(B, legacy, ping)).status).toBe(202);
    await legacy.stream.cancel();
    // A lets the session go once it sees the client leave; then B finds no holder.
    await released(legacy);
    expect((await send(B, legacy, ping)).status).toBe(404);
  });

  it(`at most ${64} messages wait for a stalled holder; the rest get 503, and none is lost`, async () => {
    const legacy = await initialize(A, B);
    A.child.kill('SIGSTOP');
    let answers: Response[];
    try {
      const posts = Array.from({ length: 65 }, (_, i) =>
        send(B, legacy, { jsonrpc: '2.0', id: 100 + i, method: 'ping' }),
      );
      // One is refused at once (the other 64 wait for A).
      const refused = await Promise.race(posts);
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(
        /^Service Unavailable: a message for a legacy HTTP\+SSE session: 64 messages wait/,
      );
      A.child.kill('SIGCONT');
      answers = await Promise.all(posts);
    } finally {
      A.child.kill('SIGCONT');
    }
    expect(answers.map((answer) => answer.status).sort()).toEqual([...Array(64).fill(202), 503]);
    const pongs = new Set<unknown>();
    while (pongs.size < 64) pongs.add((await legacy.stream.nextMessage())!.id);
    await legacy.stream.cancel();
  });

  it('and at most 8 MiB of their text: a third 3 MB message gets 503 while two wait', async () => {
    const legacy = await initialize(A, B);
    const big = (id: number) => ({
      jsonrpc: '2.0',
      id,
      method: 'ping',
      params: { _meta: { pad: 'x'.repeat(3e6) } },
    });
    A.child.kill('SIGSTOP');
    let answers: Response[];
    try {
      const posts = [1, 2, 3].map((id) => send(B, legacy, big(id)));
      const refused = await Promise.race(posts);
      expect(refused.status).toBe(503);
      expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(
        /messages waiting for other instances hold 6000\d{3} characters already$/,
      );
      A.child.kill('SIGCONT');
      answers = await Promise.all(posts);
    } finally {
      A.child.kill('SIGCONT');
    }
    expect(answers.map((answer) => answer.status).sort()).toEqual([202, 202, 503]);
    const pongs = [(await legacy.stream.nextMessage())!.id, (await legacy.stream.nextMessage())!.id];
    expect(new Set(pongs).size).toBe(2); // the two that waited, answered on A's stream
    await legacy.stream.cancel();
  });

  it('the holder killed, the session is 404 on the others (a legacy stream cannot be resumed)', async () => {
    const legacy = await initialize(A, B);
    await stopInstance(A, 'SIGKILL');
    // Redis drops the dead process's subscription when its connection closes: then no instance holds it.
    await released(legacy);
    expect((await send(B, legacy, { jsonrpc: '2.0', id: 1, method: 'ping' })).status).toBe(404);
    expect(await legacy.stream.next().catch(() => undefined)).toBeUndefined();
  });
});
