// Three `toolwire serve --http --redis URL` processes on one real Redis: any instance serves any
// handshake-era session. Raw requests name the instance each goes to (A, B, C), so every crossing is
// deterministic; the official SDK 1.x client goes through a round-robin proxy.
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstance, stopInstance, type Instance } from './_cluster.js';
import { roundRobin } from './_round-robin.js';
import { INIT, post } from './_http.js';
import { startRedis, type RedisServerHandle } from './_redis.js';
import { SseReader } from './_sse.js';

type Message = Record<string, unknown>;

let redis: RedisServerHandle;
let A: Instance;
let B: Instance;
let C: Instance;

beforeAll(async () => {
  redis = await startRedis();
  [A, B, C] = await Promise.all([
    startInstance(redis.url),
    startInstance(redis.url),
    startInstance(redis.url),
  ]);
}, 30_000);

afterAll(async () => {
  await Promise.all([A, B, C].filter(Boolean).map((instance) => stopInstance(instance)));
  await redis?.close();
});

/** Opens a session: `initialize` on `on`, `notifications/initialized` on `ack`; its id. */
async function openSession(on: Instance, ack: Instance, version = '2025-11-25'): Promise<string> {
  const response = await post(on.url, INIT(version));
  expect(response.status).toBe(200);
  const sessionId = response.headers.get('mcp-session-id')!;
  expect(await new SseReader(response).nextMessage()).toMatchObject({
    id: 0,
    result: { protocolVersion: version },
  });
  const acked = await post(
    ack.url,
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    headers(sessionId),
  );
  expect(acked.status).toBe(202);
  return sessionId;
}

function headers(sessionId: string, version = '2025-11-25'): Record<string, string> {
  return { 'mcp-session-id': sessionId, 'mcp-protocol-version': version };
}

let nextId = 1;

/** Sends a request to `to` and reads its SSE stream up to the response; the response and what came before. */
async function request(
  to: Instance,
  sessionId: string,
  method: string,
  params: Message = {},
): Promise<{ response: Message; before: Message[] }> {
  const id = nextId++;
  const answer = await post(to.url, { jsonrpc: '2.0', id, method, params }, headers(sessionId));
  expect(answer.status).toBe(200);
  const reader = new SseReader(answer);
  const before: Message[] = [];
  for (;;) {
    const message = await reader.nextMessage();
    if (!message) throw new Error(`the stream of ${method} ended without its response`);
    if (message.id === id && !('method' in message)) return { response: message, before };
    before.push(message);
  }
}

async function call(to: Instance, sessionId: string, name: string, args: Message = {}): Promise<Message> {
  return (await request(to, sessionId, 'tools/call', { name, arguments: args })).response;
}

const pidOf = (response: Message) =>
  ((response.result as { structuredContent?: { pid?: number } }).structuredContent ?? {}).pid;

/** Opens the session's GET stream on `on`; resolves once it is open (primed). */
async function listen(on: Instance, sessionId: string, lastEventId?: string): Promise<SseReader> {
  const response = await fetch(on.url, {
    headers: {
      accept: 'text/event-stream',
      ...headers(sessionId),
      ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
    },
  });
  expect(response.status).toBe(200);
  return new SseReader(response);
}

describe('three instances on one Redis', () => {
  it('serve a session opened on A on B and C, as negotiated there', async () => {
    const sessionId = await openSession(A, B);
    const pids = [];
    for (const on of [A, B, C]) pids.push(pidOf(await call(on, sessionId, 'pid')));
    expect(new Set(pids).size).toBe(3);
    expect(pids).toEqual([A.child.pid, B.child.pid, C.child.pid]);
    // The log level set on B is in the record C takes the session up from (C never saw it before).
    const other = await openSession(A, A);
    await request(B, other, 'logging/setLevel', { level: 'warning' });
    const { before } = await request(C, other, 'tools/call', { name: 'log_level', arguments: {} });
    expect(before.map((m) => (m.params as Message).level)).toEqual(['warning']);
    // An unknown session is unknown everywhere.
    const unknown = await post(
      C.url,
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      headers(crypto.randomUUID()),
    );
    expect(unknown.status).toBe(404);
  });

  it('DELETE on B ends the session on every instance', async () => {
    const sessionId = await openSession(A, C);
    await call(C, sessionId, 'pid');
    const deleted = await fetch(B.url, { method: 'DELETE', headers: headers(sessionId) });
    expect(deleted.status).toBe(200);
    for (const on of [A, B, C]) {
      const after = await post(on.url, { jsonrpc: '2.0', id: 1, method: 'ping' }, headers(sessionId));
      expect(after.status).toBe(404);
    }
  });

  it('a GET stream on B gets a notification caused on A', async () => {
    // Subscribed on C; the resource changes on A, which never served the session.
    const sessionId = await openSession(C, C);
    await request(C, sessionId, 'resources/subscribe', { uri: 'cluster://note' });
    const stream = await listen(B, sessionId);
    const other = await openSession(A, A);
    expect(pidOf(await call(A, other, 'touch'))).toBe(A.child.pid);
    expect(await stream.nextMessage()).toMatchObject({
      method: 'notifications/resources/updated',
      params: { uri: 'cluster://note' },
    });
    await stream.cancel();
  });

  it('an elicitation asked on A is answered through B', async () => {
    const sessionId = await openSession(A, A);
    const id = nextId++;
    const answer = await post(
      A.url,
      { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'ask', arguments: {} } },
      headers(sessionId),
    );
    const stream = new SseReader(answer);
    const asked = (await stream.nextMessage())!;
    expect(asked).toMatchObject({ method: 'elicitation/create', params: { message: 'Name?' } });
    const reply = { jsonrpc: '2.0', id: asked.id, result: { action: 'accept', content: { name: 'Ada' } } };
    expect((await post(B.url, reply, headers(sessionId))).status).toBe(202);
    expect(await stream.nextMessage()).toMatchObject({
      id,
      result: { structuredContent: { pid: A.child.pid, action: 'accept', name: 'Ada' } },
    });
  });

  it('a GET stream lost on B resumes on C with Last-Event-ID, and goes on live there', async () => {
    const sessionId = await openSession(A, B);
    await request(A, sessionId, 'resources/subscribe', { uri: 'cluster://note' });
    const first = await listen(B, sessionId);
    await call(A, sessionId, 'touch');
    await call(A, sessionId, 'touch');
    const seen = [await first.next(), await first.next(), await first.next()].filter((e) => e?.data);
    expect(seen).toHaveLength(2);
    await first.cancel();
    // Resumed after the first of them, on C: the second is replayed, then C serves the stream live.
    const resumed = await listen(C, sessionId, seen[0]!.id);
    const replayed = await resumed.next();
    expect(replayed).toMatchObject({ id: seen[1]!.id, data: seen[1]!.data });
    await call(A, sessionId, 'touch');
    expect(await resumed.nextMessage()).toMatchObject({ method: 'notifications/resources/updated' });
    await resumed.cancel();
  });

  it('a tool registered on A: tools/list_changed on the GET streams held by B and C, once', async () => {
    // One session's stream on B (the session is on A too), another's on C (never on A).
    const first = await openSession(A, B);
    await request(A, first, 'resources/subscribe', { uri: 'cluster://note' });
    const second = await openSession(C, C);
    const [onB, onC] = await Promise.all([listen(B, first), listen(C, second)]);
    expect(pidOf(await call(A, first, 'add_tool'))).toBe(A.child.pid);
    const changed = { method: 'notifications/tools/list_changed' };
    expect(await onB.nextMessage()).toMatchObject(changed);
    expect(await onC.nextMessage()).toMatchObject(changed);
    // Once: what comes next on B is the next notification, not the same one again.
    await call(A, first, 'touch');
    expect(await onB.nextMessage()).toMatchObject({ method: 'notifications/resources/updated' });
    await Promise.all([onB.cancel(), onC.cancel()]);
  });

  it('counts a rate limit across instances (the sum, not each)', async () => {
    const sessionId = await openSession(A, B);
    const codes = [];
    for (const on of [A, B, C, A, B]) {
      const response = await call(on, sessionId, 'limited');
      codes.push(response.error ? (response.error as { code: number }).code : 'ok');
    }
    expect(codes).toEqual(['ok', 'ok', 'ok', -31429, -31429]);
    // Another caller (session) has its own bucket.
    const other = await openSession(C, C);
    expect((await call(B, other, 'limited')).result).toBeDefined();
  });

  it('a task started on A is read on B and its result taken on C', async () => {
    const sessionId = await openSession(A, A);
    const started = await request(A, sessionId, 'tools/call', {
      name: 'slow',
      arguments: {},
      task: { ttl: 60_000 },
    });
    const task = (started.response.result as { task: { taskId: string } }).task;
    expect(task.taskId).toEqual(expect.any(String));
    const got = await request(B, sessionId, 'tasks/get', { taskId: task.taskId });
    expect(got.response.result).toMatchObject({ taskId: task.taskId });
    const result = await request(C, sessionId, 'tasks/result', { taskId: task.taskId });
    expect(pidOf(result.response)).toBe(A.child.pid);
  });

  it('the SDK 1.x client works through a round-robin proxy, elicitation included', async () => {
    const proxy = await roundRobin([A.url, B.url, C.url]);
    const client = new Client({ name: 'sdk-v1', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { name: 'Grace' } }));
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(`${proxy.base}/mcp`)));
      const tools = await client.listTools();
      expect(tools.tools.map((t) => t.name)).toContain('ask');
      const pids = new Set<unknown>();
      for (let i = 0; i < 3; i++)
        pids.add((await client.callTool({ name: 'pid', arguments: {} })).structuredContent);
      expect(pids.size).toBeGreaterThan(1);
      const asked = await client.callTool({ name: 'ask', arguments: {} });
      expect(asked.structuredContent).toMatchObject({ action: 'accept', name: 'Grace' });
      expect(proxy.served.every((count) => count > 0)).toBe(true);
    } finally {
      await client.close();
      await proxy.close();
    }
  });

  it.each([
    { era: 'handshake', mode: undefined, version: '2025-11-25' },
    { era: 'stateless', mode: 'auto' as const, version: '2026-07-28' },
  ])('the SDK 2.x client ($era era) works through a round-robin proxy', async ({ mode, version }) => {
    const proxy = await roundRobin([A.url, B.url, C.url]);
    const client = new ClientV2(
      { name: 'sdk-v2', version: '2.0.0' },
      mode ? { versionNegotiation: { mode, probe: { timeoutMs: 5_000 } } } : {},
    );
    try {
      await client.connect(new HttpV2(new URL(`${proxy.base}/mcp`)));
      expect(client.getNegotiatedProtocolVersion()).toBe(version);
      const pids = new Set<unknown>();
      for (let i = 0; i < 3; i++)
        pids.add((await client.callTool({ name: 'pid', arguments: {} })).structuredContent);
      expect(pids.size).toBeGreaterThan(1);
    } finally {
      await client.close();
      await proxy.close();
    }
  });
});
