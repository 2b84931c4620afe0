// `tasks/cancel` across processes sharing a real Redis task store (two Streamable HTTP servers in this
// process, each with its own Server and Redis connections): a task started on A and cancelled through B
// is `cancelled` at once, and A's running handler has its signal aborted (Redis pub/sub), for the
// 2026-07-28 extension and the 2025-11-25 core alike; and a task's question answered through B
// (`tasks/update`) reaches the handler waiting on A.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '../src/protocol/jsonrpc.js';
import type { Server } from '../src/server/index.js';
import { redisStores } from '../src/stores/redis.js';
import { serveHttp } from '../src/transports/http/index.js';
import { open, post, rpcTo } from './_http.js';
import { startRedis, type RedisServerHandle } from './_redis.js';
import { closeInstances, type RedisInstance as Instance } from './_redis-instance.js';
import { SseReader } from './_sse.js';

const FIXTURE = new URL('./fixtures/tasks-server.mjs', import.meta.url).href;
const TASKS = { elicitation: {}, extensions: { 'io.modelcontextprotocol/tasks': {} } };
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': TASKS,
  'io.modelcontextprotocol/clientInfo': { name: 'raw-tasks', version: '1' },
};

let redis: RedisServerHandle;
let A: Instance;
let B: Instance;

async function instance(): Promise<Instance> {
  const stores = redisStores(redis.url);
  const mod = (await import(FIXTURE)) as { default: (options: object) => Server };
  const server = mod.default({ tasks: { store: stores.tasks } });
  const http = await serveHttp(server, { port: 0, redis: stores, responseMode: 'json' });
  return { url: http.url, stores, http, server };
}

beforeAll(async () => {
  redis = await startRedis();
  [A, B] = await Promise.all([instance(), instance()]);
});

afterAll(async () => {
  await closeInstances([A, B]);
  await redis?.close();
});

/** A request to `on` (stateless-era unless `session` headers are given). */
function rpc(on: Instance, method: string, params: JsonObject, session?: Record<string, string>) {
  return rpcTo(on.url, method, params, META, session);
}

/** How many handlers of `on` saw their signal abort. */
async function abortedCount(on: Instance): Promise<number> {
  const probe = await rpc(on, 'tools/call', { name: 'aborted_count', arguments: {} });
  return (probe.result!.structuredContent as { aborted: number }).aborted;
}

/** The count of `on`'s aborted handlers once it passes `before` (bounded: 5 s, then what it is). */
async function abortedAfter(on: Instance, before: number): Promise<number> {
  let aborted = before;
  for (const deadline = Date.now() + 5000; aborted === before && Date.now() < deadline;) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    aborted = await abortedCount(on);
  }
  return aborted;
}

describe('tasks/cancel through another instance', () => {
  it('the 2026-07-28 extension: cancelled at once, the handler on A aborted', async () => {
    const before = await abortedCount(A);
    const created = await rpc(A, 'tools/call', { name: 'sleepy', arguments: { ms: 60_000 } });
    const taskId = created.result!.taskId as string;
    expect(created.result).toMatchObject({ resultType: 'task', status: 'working' });
    expect((await rpc(B, 'tasks/cancel', { taskId })).result).toMatchObject({ resultType: 'complete' });
    expect((await rpc(A, 'tasks/get', { taskId })).result).toMatchObject({ status: 'cancelled' });
    expect(await abortedAfter(A, before)).toBe(before + 1);
  });

  it('the 2025-11-25 core, on a session shared by A and B', async () => {
    const session = {
      'mcp-session-id': await open(A.url, '2025-11-25', { tasks: { requests: {} } }),
      'mcp-protocol-version': '2025-11-25',
    };
    const before = await abortedCount(A);
    const created = await rpc(
      A,
      'tools/call',
      { name: 'sleepy', arguments: { ms: 60_000 }, task: {} },
      session,
    );
    const taskId = (created.result!.task as { taskId: string }).taskId;
    expect((await rpc(B, 'tasks/cancel', { taskId }, session)).result).toMatchObject({ status: 'cancelled' });
    expect(await abortedAfter(A, before)).toBe(before + 1);
  });
});

/** `taskId`'s task as `on` reads it, once `done(task)` (bounded: 10 s). */
async function taskOn(on: Instance, taskId: string, done: (task: Record<string, unknown>) => boolean) {
  for (const deadline = Date.now() + 10_000; ;) {
    const task = (await rpc(on, 'tasks/get', { taskId })).result!;
    if (done(task) || Date.now() > deadline) return task;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('tasks/update and notifications/tasks through another instance (the 2026-07-28 extension)', () => {
  it("answers the question of a task that runs on A through B, and checks the answer's shape on B", async () => {
    const created = await rpc(A, 'tools/call', { name: 'confirm', arguments: {} });
    const taskId = created.result!.taskId as string;
    const waiting = await taskOn(B, taskId, (task) => task.status !== 'working');
    expect(waiting).toMatchObject({ status: 'input_required', inputRequests: { 'elicit-1': {} } });
    // An answer that is no elicitation result is refused on B (-32602, HTTP 400), as A would refuse it.
    await expect(
      rpc(B, 'tasks/update', { taskId, inputResponses: { 'elicit-1': { action: 'maybe' } } }),
    ).rejects.toThrow(/400 .*elicit-1.*not a valid elicitation\/create result/);
    const update = await rpc(B, 'tasks/update', {
      taskId,
      inputResponses: { 'elicit-1': { action: 'accept' } },
    });
    expect(update.result).toMatchObject({ resultType: 'complete' });
    const done = await taskOn(B, taskId, (task) => task.status === 'completed');
    expect(done).toMatchObject({ status: 'completed', result: { content: [{ text: 'confirm: accept' }] } });
  });

  it("tells a listen stream on B of a task's change on A (notifications/tasks)", async () => {
    const created = await rpc(A, 'tools/call', { name: 'confirm', arguments: {} });
    const taskId = created.result!.taskId as string;
    await taskOn(B, taskId, (task) => task.status === 'input_required');
    const listening = await post(
      B.url,
      {
        jsonrpc: '2.0',
        id: 'listen',
        method: 'subscriptions/listen',
        params: { notifications: { taskIds: [taskId] }, _meta: META },
      },
      { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'subscriptions/listen' },
    );
    expect(listening.status).toBe(200);
    const stream = new SseReader(listening);
    expect(await stream.nextMessage()).toMatchObject({
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: { taskIds: [taskId] } },
    });
    // The answer goes through B too; the task ends on A, and B's stream hears it.
    await rpc(B, 'tasks/update', { taskId, inputResponses: { 'elicit-1': { action: 'accept' } } });
    let heard: Record<string, unknown> | undefined;
    for (let message = await stream.nextMessage(); message; message = await stream.nextMessage()) {
      const params = message.params as Record<string, unknown> | undefined;
      if (message.method === 'notifications/tasks' && params?.status === 'completed') {
        heard = params;
        break;
      }
    }
    expect(heard).toMatchObject({ taskId, status: 'completed' });
    await stream.cancel();
  });
});

describe("a taskId naming the Redis task store's other keys", () => {
  it('is no task (-32602) for tasks/get, tasks/cancel and tasks/result, as in memory: not a store failure', async () => {
    const sid = await open(A.url, '2025-11-25', { tasks: { requests: {} } });
    const session = { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' };
    const created = await rpc(
      A,
      'tools/call',
      { name: 'sleepy', arguments: { ms: 60_000 }, task: {} },
      session,
    );
    const taskId = (created.result!.task as { taskId: string }).taskId;
    // The session's task index, and the task's answers hash (made when a question is answered).
    for (const id of [`tasks-of:session:${sid}`, `input:${taskId}`]) {
      for (const method of ['tasks/get', 'tasks/cancel', 'tasks/result']) {
        const answer = await rpc(B, method, { taskId: id }, session);
        expect(answer.error, `${method} ${id}`).toMatchObject({ code: -32602 });
      }
    }
    expect((await rpc(B, 'tasks/cancel', { taskId }, session)).result).toMatchObject({ status: 'cancelled' });
  });
});
