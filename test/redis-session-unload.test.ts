// Idle copies of shared sessions are unloaded (`sessionUnloadMs`): two Streamable HTTP handlers in this
// process on one real Redis. A copy idle at two looks in a row leaves the process (its live-session count
// drops); its next request, on the same instance or the other, takes it up from its record with its log
// level, resource subscriptions and principal. A copy with an open stream, a running call, a server
// request waiting or a task running is kept. The looks are the handler's `unloadIdle()`, called here
// (the instances' own timer is an hour); one instance with a 20 ms unload time shows the timer does it.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { structured, type Server } from '../src/server/index.js';
import { redisStores } from '../src/stores/redis.js';
import { StreamableHttpHandler, serveHttp } from '../src/transports/http/index.js';
import { INIT, asSubject, openSession as openHttpSession, post } from './_http.js';
import { startRedis, type RedisServerHandle } from './_redis.js';
import {
  CLUSTER_FIXTURE,
  closeInstances,
  startRedisInstance,
  subjectAuth,
  type RedisInstance as Instance,
} from './_redis-instance.js';
import { SseReader } from './_sse.js';

let redis: RedisServerHandle;
let A: Instance;
let B: Instance;
/** Releases the `hold` tool's calls and tasks. */
let release: () => void = () => undefined;
let held = new Promise<void>((resolve) => (release = resolve));

function instance(sessionUnloadMs: number): Promise<Instance> {
  const stores = redisStores(redis.url, { sessions: { ttlMs: 60_000 } });
  return startRedisInstance(stores, { sessionUnloadMs, auth: subjectAuth() }, (server) => {
    // Runs until the test releases it (as a call, or as a 2025-11-25 task).
    server.tool('hold', { rateLimit: false, task: 'optional' }, async () => {
      await held;
      return structured({ released: true });
    });
  });
}

beforeAll(async () => {
  redis = await startRedis();
  [A, B] = await Promise.all([instance(3_600_000), instance(3_600_000)]);
});

afterAll(async () => {
  release();
  await closeInstances([A, B]);
  await redis?.close();
});

const as = asSubject;

const openSession = (on: Instance, who: string = 'alice'): Promise<string> =>
  openHttpSession(on.url, (sessionId) => as(who, sessionId));

/** A request on a session; its SSE events until the answer. */
async function call(on: Instance, sessionId: string, method: string, params: object = {}, who = 'alice') {
  const response = await post(on.url, { jsonrpc: '2.0', id: 1, method, params }, as(who, sessionId));
  if (response.status !== 200) return { status: response.status, messages: [], answer: undefined };
  const reader = new SseReader(response);
  const messages: Record<string, unknown>[] = [];
  for (;;) {
    const message = await reader.nextMessage();
    if (!message || 'result' in message || 'error' in message)
      return { status: response.status, messages, answer: message };
    messages.push(message);
  }
}

/** Two looks: a copy idle at both leaves the process. */
async function unloadIdle(on: Instance): Promise<void> {
  await on.http.handler.unloadIdle();
  await on.http.handler.unloadIdle();
}

const getStream = (on: Instance, sessionId: string) =>
  fetch(on.url, { headers: { accept: 'text/event-stream', ...as('alice', sessionId) } });

describe('idle copies of shared sessions are unloaded', () => {
  it('an idle copy leaves the process; the session goes on here and elsewhere with its state', async () => {
    const sessionId = await openSession(A);
    expect((await call(A, sessionId, 'logging/setLevel', { level: 'warning' })).answer).toMatchObject({
      result: {},
    });
    expect((await call(A, sessionId, 'resources/subscribe', { uri: 'cluster://note' })).answer).toMatchObject(
      {
        result: {},
      },
    );
    expect(A.http.handler.sessionCount).toBe(1);
    // One look finds it used since the last: it stays; the second finds it idle: it goes.
    await A.http.handler.unloadIdle();
    expect(A.http.handler.sessionCount).toBe(1);
    await A.http.handler.unloadIdle();
    expect(A.http.handler.sessionCount).toBe(0);
    // Not ended: the record holds its state.
    expect(await A.stores.sessions.get(sessionId)).toMatchObject({
      principal: 'alice',
      logLevel: 'warning',
      subscriptions: ['cluster://note'],
    });
    // Another subject still gets 404 (and nothing is taken up for it).
    expect((await call(A, sessionId, 'ping', {}, 'mallory')).status).toBe(404);
    expect(A.http.handler.sessionCount).toBe(0);

    // Taken up again on the same instance, its log level kept: the debug line is not sent.
    const here = await call(A, sessionId, 'tools/call', { name: 'log_level', arguments: {} });
    expect(here.answer).toMatchObject({ result: { structuredContent: { pid: process.pid } } });
    expect(here.messages.map((m) => (m.params as { data?: unknown }).data)).toEqual(['a warning line']);
    expect(A.http.handler.sessionCount).toBe(1);

    // Unloaded again, taken up on the other instance: its subscription holds there (a GET stream on B
    // hears the update A makes).
    await unloadIdle(A);
    expect(A.http.handler.sessionCount).toBe(0);
    const stream = await getStream(B, sessionId);
    expect(stream.status).toBe(200);
    const events = new SseReader(stream);
    expect(await events.next()).toMatchObject({ data: '' }); // the priming event
    const touched = await call(A, sessionId, 'tools/call', { name: 'touch', arguments: {} });
    expect(touched.answer).toMatchObject({ result: { structuredContent: { pid: process.pid } } });
    expect(await events.nextMessage()).toMatchObject({
      method: 'notifications/resources/updated',
      params: { uri: 'cluster://note' },
    });
    // B keeps the copy whose GET stream it holds; A lets its idle one go.
    await unloadIdle(A);
    await unloadIdle(B);
    expect(A.http.handler.sessionCount).toBe(0);
    expect(B.http.handler.sessionCount).toBe(1);
    await events.cancel();
    // Once the stream's end reaches B, B unloads its copy too, and the session still answers.
    await vi.waitFor(
      async () => {
        await B.http.handler.unloadIdle();
        expect(B.http.handler.sessionCount).toBe(0);
      },
      { timeout: 5000 },
    );
    expect((await call(B, sessionId, 'ping')).answer).toMatchObject({ result: {} });
    await unloadIdle(B);
  });

  it('keeps a copy with an open GET stream, a running call or a running task', async () => {
    held = new Promise<void>((resolve) => (release = resolve));
    const idle = await openSession(A);
    const streaming = await openSession(A);
    const calling = await openSession(A);
    const tasking = await openSession(A);
    const stream = await getStream(A, streaming);
    expect(stream.status).toBe(200);
    const events = new SseReader(stream);
    await events.next();
    // A call that runs until released (its POST stream open, its request waiting).
    const running = post(
      A.url,
      { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'hold', arguments: {} } },
      as('alice', calling),
    );
    const runningReader = new SseReader(await running);
    // A task that runs until released: its call is answered at once.
    const started = await call(A, tasking, 'tools/call', {
      name: 'hold',
      arguments: {},
      task: { ttl: 60_000 },
    });
    const taskId = (started.answer as { result: { task: { taskId: string } } }).result.task.taskId;
    expect(taskId).toEqual(expect.any(String));
    expect(A.http.handler.sessionCount).toBe(4);
    await unloadIdle(A);
    await unloadIdle(A);
    // Only the idle one went.
    expect(A.http.handler.sessionCount).toBe(3);
    expect(await A.stores.sessions.get(idle)).toMatchObject({ principal: 'alice' });
    release();
    expect(await runningReader.nextMessage()).toMatchObject({
      id: 9,
      result: { structuredContent: { released: true } },
    });
    const finished = async () =>
      ((await call(A, tasking, 'tasks/get', { taskId })).answer as { result: { status: string } }).result
        .status;
    await vi.waitFor(async () => expect(await finished()).toBe('completed'), { timeout: 5000 });
    // Call and task over: those two go at the next two looks; the GET stream's still keeps its copy.
    await unloadIdle(A);
    expect(A.http.handler.sessionCount).toBe(1);
    // Once its client has gone, that one goes too.
    await events.cancel();
    await vi.waitFor(
      async () => {
        await A.http.handler.unloadIdle();
        expect(A.http.handler.sessionCount).toBe(0);
      },
      { timeout: 5000 },
    );
  });

  it('a copy unloaded while it was being taken up is taken up again', async () => {
    const sessionId = await openSession(A);
    expect(B.http.handler.sessionCount).toBe(0);
    const sessions = B.stores.sessions;
    const update = sessions.update.bind(sessions);
    let unloaded = false;
    // B records the take-up's use; meanwhile two looks unload the copy it has just made.
    sessions.update = async (id, patch) => {
      await update(id, patch);
      if (unloaded || id !== sessionId) return;
      unloaded = true;
      await unloadIdle(B);
      expect(B.http.handler.sessionCount).toBe(0);
    };
    try {
      expect((await call(B, sessionId, 'ping')).answer).toMatchObject({ result: {} });
      expect(unloaded).toBe(true);
      expect(B.http.handler.sessionCount).toBe(1);
    } finally {
      delete (sessions as { update?: unknown }).update;
    }
    await unloadIdle(A);
    await unloadIdle(B);
  });

  it('unloads on its own every sessionUnloadMs; the next request takes the session up', async () => {
    const C = await instance(20);
    try {
      const sessionId = await openSession(C);
      await vi.waitFor(() => expect(C.http.handler.sessionCount).toBe(0), { timeout: 5000, interval: 10 });
      expect((await call(C, sessionId, 'ping')).answer).toMatchObject({ result: {} });
    } finally {
      await closeInstances([C]);
    }
  });

  it('never unloads without a shared store; refuses a bad sessionUnloadMs', async () => {
    const mod = (await import(CLUSTER_FIXTURE)) as { default: () => Server };
    const server = mod.default();
    expect(() => new StreamableHttpHandler(server, { sessionUnloadMs: 0 })).toThrow(RangeError);
    expect(() => new StreamableHttpHandler(server, { sessionUnloadMs: 1.5 })).toThrow(RangeError);
    const http = await serveHttp(server, { port: 0, sessionUnloadMs: 1 });
    try {
      const response = await post(http.url, INIT(), { 'mcp-protocol-version': '2025-11-25' });
      expect(response.status).toBe(200);
      await new SseReader(response).nextMessage();
      const sessionId = response.headers.get('mcp-session-id')!;
      await post(
        http.url,
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        {
          'mcp-protocol-version': '2025-11-25',
          'mcp-session-id': sessionId,
        },
      );
      await http.handler.unloadIdle();
      await http.handler.unloadIdle();
      expect(http.handler.sessionCount).toBe(1);
    } finally {
      await http.close();
      await server.close();
    }
  });
});
