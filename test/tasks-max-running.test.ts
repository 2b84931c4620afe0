// A caller's running tasks are capped (`tasks.maxRunning`, 100 by default): a task-augmented `tools/call`
// answers at once, so `maxRequestsInFlight` never counts it, and without the cap a caller looping on a slow
// tool made the server hold a running handler and a record for each call. Over Streamable HTTP (JSON
// answers): 2025-11-25 calls with `params.task` from anonymous sessions (counted per session) and
// 2026-07-28 calls with the tasks extension from principals (a handler's own startTask() too); past the
// cap the call gets 429 with -31429 (`data.limit: 'tasks'`) and no handler runs; a task that ends
// (completed, cancelled) frees its place; and on a real Redis the count is shared, so a task cancelled
// through another instance frees it too.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { JsonObject } from '../src/protocol/jsonrpc.js';
import { Server, structured } from '../src/server/index.js';
import { redisStores, type RedisStores } from '../src/stores/redis.js';
import { serveHttp, type HttpServerHandle } from '../src/transports/http/index.js';
import { INIT, post } from './_http.js';
import { startRedis, type RedisServerHandle } from './_redis.js';
import { subjectAuth } from './_redis-instance.js';
import type { TasksOptions } from '../src/server/index.js';

const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': TASKS,
  'io.modelcontextprotocol/clientInfo': { name: 'raw-tasks', version: '1' },
};

interface Served {
  url: string;
  /** How many `hold` handlers have started. */
  started: () => number;
  /** Ends every `hold` handler running now. */
  releaseAll: () => void;
  close: () => Promise<void>;
}

/** A server with a `hold` tool that runs until released (or aborted), served with JSON answers. */
async function serve(tasks: TasksOptions, options: { auth?: boolean; stores?: RedisStores } = {}) {
  const server = new Server({ name: 'max-running', version: '1' }, { tasks });
  let started = 0;
  let releases: Array<() => void> = [];
  // Becomes a task once it has started (2026-07-28 `start: 'handler'`), then holds as `hold` does.
  server.tool(
    'hold_later',
    { rateLimit: false, task: { support: 'optional', start: 'handler' } },
    async (_args, ctx) => {
      await ctx.startTask();
      started++;
      return new Promise((resolve, reject) => {
        releases.push(() => resolve(structured({ released: true })));
        ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason as Error), { once: true });
      });
    },
  );
  server.tool('hold', { rateLimit: false, task: 'optional' }, (_args, ctx) => {
    started++;
    return new Promise((resolve, reject) => {
      releases.push(() => resolve(structured({ released: true })));
      ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason as Error), { once: true });
    });
  });
  const http: HttpServerHandle = await serveHttp(server, {
    port: 0,
    responseMode: 'json',
    ...(options.auth ? { auth: subjectAuth() } : {}),
    ...(options.stores ? { redis: options.stores } : {}),
  });
  const served: Served = {
    url: http.url,
    started: () => started,
    releaseAll: () => {
      const now = releases;
      releases = [];
      for (const release of now) release();
    },
    close: async () => {
      served.releaseAll();
      await http.close();
      await server.close();
    },
  };
  return served;
}

let nextId = 1;

/** A 2025-11-25 request on a session; its HTTP status and JSON-RPC answer. */
async function inSession(url: string, sessionId: string, method: string, params: JsonObject) {
  const headers = { 'mcp-protocol-version': '2025-11-25', 'mcp-session-id': sessionId };
  const response = await post(url, { jsonrpc: '2.0', id: nextId++, method, params }, headers);
  return { status: response.status, answer: (await response.json()) as JsonObject };
}

/** A 2026-07-28 request with the tasks extension, as `who`; its HTTP status and JSON-RPC answer. */
async function stateless(url: string, who: string, method: string, params: JsonObject) {
  const name = (method === 'tools/call' ? params.name : params.taskId) as string;
  const headers = {
    authorization: `Bearer ${who}`,
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': method,
    'mcp-name': name,
  };
  const body = { jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: META } };
  const response = await post(url, body, headers);
  return { status: response.status, answer: (await response.json()) as JsonObject };
}

/** A 2025-11-25 session (anonymous), initialized and acknowledged; its id. */
async function openSession(url: string): Promise<string> {
  const response = await post(url, INIT());
  expect(response.status).toBe(200);
  const sessionId = response.headers.get('mcp-session-id')!;
  const headers = { 'mcp-protocol-version': '2025-11-25', 'mcp-session-id': sessionId };
  expect((await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers)).status).toBe(
    202,
  );
  return sessionId;
}

const HOLD_AS_TASK = { name: 'hold', arguments: {}, task: {} };
const HOLD = { name: 'hold', arguments: {} };

/** The refusal of a call past the cap. */
const REFUSED = {
  status: 429,
  answer: {
    error: {
      code: -31429,
      message: expect.stringMatching(/^Too many running tasks: this caller has 2 \(the limit\)/) as unknown,
      data: { retryAfterMs: 50, limit: 'tasks' },
    },
  },
};

/** The id of the task a 2025-11-25 call started (it must have started one). */
function coreTaskId(answered: { status: number; answer: JsonObject }): string {
  expect(answered.status).toBe(200);
  return ((answered.answer.result as JsonObject).task as JsonObject).taskId as string;
}

/** The id of the task a 2026-07-28 call started (it must have started one). */
function taskId(answered: { status: number; answer: JsonObject }): string {
  expect(answered.status).toBe(200);
  return (answered.answer.result as JsonObject).taskId as string;
}

describe('tasks.maxRunning: a caller’s running tasks are capped', () => {
  let served: Served | undefined;
  afterEach(async () => {
    await served?.close();
    served = undefined;
  });

  it('2025-11-25: refuses a session’s third task with -31429 until one of its tasks completes or is cancelled', async () => {
    served = await serve({ maxRunning: 2, pollIntervalMs: 50 });
    const { url } = served;
    const one = await openSession(url);
    const first = coreTaskId(await inSession(url, one, 'tools/call', HOLD_AS_TASK));
    coreTaskId(await inSession(url, one, 'tools/call', HOLD_AS_TASK));
    await vi.waitFor(() => expect(served!.started()).toBe(2));
    expect(await inSession(url, one, 'tools/call', HOLD_AS_TASK)).toMatchObject(REFUSED);
    // Nothing ran for it; another session (another caller) has places of its own.
    const other = await openSession(url);
    coreTaskId(await inSession(url, other, 'tools/call', HOLD_AS_TASK));
    await vi.waitFor(() => expect(served!.started()).toBe(3));

    // A cancelled task frees its place.
    const cancelled = await inSession(url, one, 'tasks/cancel', { taskId: first });
    expect(cancelled.answer).toMatchObject({ result: { status: 'cancelled' } });
    const third = coreTaskId(await inSession(url, one, 'tools/call', HOLD_AS_TASK));
    expect(await inSession(url, one, 'tools/call', HOLD_AS_TASK)).toMatchObject(REFUSED);

    // So do completed ones.
    served.releaseAll();
    await vi.waitFor(async () => {
      const got = await inSession(url, one, 'tasks/get', { taskId: third });
      expect(got.answer).toMatchObject({ result: { status: 'completed' } });
    });
    coreTaskId(await inSession(url, one, 'tools/call', HOLD_AS_TASK));
    coreTaskId(await inSession(url, one, 'tools/call', HOLD_AS_TASK));
    expect(await inSession(url, one, 'tools/call', HOLD_AS_TASK)).toMatchObject(REFUSED);
    // A call that does not ask for a task is not counted.
    const inline = inSession(url, one, 'tools/call', HOLD);
    await vi.waitFor(() => expect(served!.started()).toBe(7));
    served.releaseAll();
    expect((await inline).answer).toMatchObject({ result: { structuredContent: { released: true } } });
  });

  it('2025-11-25: keeps a session’s latest maxKept ended tasks; an older one reads as no task once it starts another', async () => {
    served = await serve({ maxRunning: 2, maxKept: 2, pollIntervalMs: 50 });
    const { url } = served;
    const one = await openSession(url);
    const other = await openSession(url);
    const otherTask = coreTaskId(await inSession(url, other, 'tools/call', HOLD_AS_TASK));
    // Short tasks in a loop, each read to its end.
    const ended: string[] = [];
    for (let i = 0; i < 3; i++) {
      const task = coreTaskId(await inSession(url, one, 'tools/call', HOLD_AS_TASK));
      await vi.waitFor(() => expect(served!.started()).toBe(i + 2));
      served.releaseAll();
      await vi.waitFor(async () => {
        const got = await inSession(url, one, 'tasks/get', { taskId: task });
        expect(got.answer).toMatchObject({ result: { status: 'completed' } });
      });
      ended.push(task);
    }
    const latest = coreTaskId(await inSession(url, one, 'tools/call', HOLD_AS_TASK));
    // The oldest of the three ended went as the fourth started; the other two, and the other session's, stay.
    const [oldest, ...kept] = ended;
    expect((await inSession(url, one, 'tasks/get', { taskId: oldest! })).answer).toMatchObject({
      error: { code: -32602 },
    });
    for (const task of kept) {
      expect((await inSession(url, one, 'tasks/result', { taskId: task })).answer).toMatchObject({
        result: { structuredContent: { released: true } },
      });
    }
    expect((await inSession(url, one, 'tasks/get', { taskId: latest })).answer).toMatchObject({
      result: { status: 'working' },
    });
    expect((await inSession(url, other, 'tasks/get', { taskId: otherTask })).answer).toMatchObject({
      result: { status: 'completed' },
    });
  });

  it('holds 100 running tasks of one caller by default, and refuses the 101st', async () => {
    served = await serve({});
    const { url } = served;
    const session = await openSession(url);
    for (let i = 0; i < 100; i++) coreTaskId(await inSession(url, session, 'tools/call', HOLD_AS_TASK));
    const refused = await inSession(url, session, 'tools/call', HOLD_AS_TASK);
    expect(refused).toMatchObject({
      status: 429,
      answer: { error: { code: -31429, data: { limit: 'tasks' } } },
    });
    expect((refused.answer.error as { message: string }).message).toContain('this caller has 100');
    await vi.waitFor(() => expect(served!.started()).toBe(100));
  });

  it('2026-07-28: counts a principal’s tasks, not another’s', async () => {
    served = await serve({ maxRunning: 2, pollIntervalMs: 50 }, { auth: true });
    const { url } = served;
    const first = taskId(await stateless(url, 'alice', 'tools/call', HOLD));
    taskId(await stateless(url, 'alice', 'tools/call', HOLD));
    expect(await stateless(url, 'alice', 'tools/call', HOLD)).toMatchObject(REFUSED);
    taskId(await stateless(url, 'bob', 'tools/call', HOLD));
    await vi.waitFor(() => expect(served!.started()).toBe(3));
    const cancelled = await stateless(url, 'alice', 'tasks/cancel', { taskId: first });
    expect(cancelled.status).toBe(200);
    await vi.waitFor(async () => {
      const got = await stateless(url, 'alice', 'tasks/get', { taskId: first });
      expect(got.answer).toMatchObject({ result: { status: 'cancelled' } });
    });
    taskId(await stateless(url, 'alice', 'tools/call', HOLD));
  });

  it('2026-07-28, a task the handler starts: past the cap its startTask() rejects with the -31429', async () => {
    served = await serve({ maxRunning: 2, pollIntervalMs: 50 }, { auth: true });
    const { url } = served;
    const later = { name: 'hold_later', arguments: {} };
    taskId(await stateless(url, 'alice', 'tools/call', later));
    taskId(await stateless(url, 'alice', 'tools/call', HOLD));
    // The handler did not catch it: the call ends with it, and the handler got no further.
    expect(await stateless(url, 'alice', 'tools/call', later)).toMatchObject(REFUSED);
    expect(served.started()).toBe(2);
  });
});

describe('tasks.maxRunning on Redis: the count is shared by the instances', () => {
  let redis: RedisServerHandle;
  const instances: Array<{ served: Served; stores: RedisStores }> = [];

  beforeAll(async () => {
    redis = await startRedis();
    for (let i = 0; i < 2; i++) {
      const stores = redisStores(redis.url);
      const served = await serve(
        { store: stores.tasks, maxRunning: 2, pollIntervalMs: 50 },
        { auth: true, stores },
      );
      instances.push({ served, stores });
    }
  });

  afterAll(async () => {
    for (const { served, stores } of instances) {
      await served.close();
      await stores.close();
    }
    await redis?.close();
  });

  it('refuses a task past the cap on either instance until one ends, on whichever instance', async () => {
    const [A, B] = instances.map(({ served }) => served.url) as [string, string];
    taskId(await stateless(A, 'carol', 'tools/call', HOLD));
    const onB = taskId(await stateless(B, 'carol', 'tools/call', HOLD));
    expect(await stateless(A, 'carol', 'tools/call', HOLD)).toMatchObject(REFUSED);
    expect(await stateless(B, 'carol', 'tools/call', HOLD)).toMatchObject(REFUSED);
    // Cancelled through A, the task B runs frees the place for A.
    expect((await stateless(A, 'carol', 'tasks/cancel', { taskId: onB })).status).toBe(200);
    taskId(await stateless(A, 'carol', 'tools/call', HOLD));
    expect(await stateless(B, 'carol', 'tools/call', HOLD)).toMatchObject(REFUSED);
  });
});
