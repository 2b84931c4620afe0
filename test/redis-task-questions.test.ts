// The questions of a task across processes sharing a real Redis (three Streamable HTTP servers in this
// process, A, B and C, each with its own Server and Redis connections). 2025-11-25: a task runs on A, the
// client's `tasks/result` reaches B, which carries the task's questions (once, however many `tasks/result`
// wait) and gets the answers to A; toolwire's client and the official SDK 1.x client, each request sent to
// the instance its method names. And an answer given while A's Redis subscriber is away still reaches
// the handler once it is back (the answers wait in Redis).
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import type { JsonObject } from '../src/protocol/jsonrpc.js';
import type { Server } from '../src/server/index.js';
import { redisStores } from '../src/stores/redis.js';
import { serveHttp } from '../src/transports/http/index.js';
import { StreamableHttpClientTransport } from '../src/transports/http-client/index.js';
import { open, post, rpcTo } from './_http.js';
import { startRedis, type RedisServerHandle } from './_redis.js';
import { closeInstances, type RedisInstance as Instance } from './_redis-instance.js';
import { SseReader } from './_sse.js';

const FIXTURE = new URL('./fixtures/tasks-server.mjs', import.meta.url).href;
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {
    elicitation: {},
    extensions: { 'io.modelcontextprotocol/tasks': {} },
  },
  'io.modelcontextprotocol/clientInfo': { name: 'raw-tasks', version: '1' },
};
/** The names `two_names` asks for, answered by the clients below. */
const nameFor = (message: unknown) => (message === 'First?' ? 'Ada' : 'Bo');

let redis: RedisServerHandle;
let A: Instance;
let B: Instance;
let C: Instance;
/** A's own connection, and the pub/sub connections its stores made of it (the subscriber's). */
let clientOfA: Redis;
const subscribersOfA: Redis[] = [];

/** An instance; a lease renewed only every 20 s unless told: answers reach A by pub/sub or a reconnection. */
async function instance(connection: string | Redis, leaseMs = 60_000): Promise<Instance> {
  const stores = redisStores(connection, { tasks: { leaseMs } });
  const mod = (await import(FIXTURE)) as { default: (options: object) => Server };
  const server = mod.default({ tasks: { store: stores.tasks } });
  const http = await serveHttp(server, { port: 0, redis: stores });
  return { url: http.url, stores, http, server };
}

beforeAll(async () => {
  redis = await startRedis();
  clientOfA = new Redis(redis.url);
  const duplicate = clientOfA.duplicate.bind(clientOfA);
  clientOfA.duplicate = (override) => {
    const copy = duplicate(override);
    if (override?.autoResubscribe === false) subscribersOfA.push(copy);
    return copy;
  };
  [A, B, C] = await Promise.all([instance(clientOfA), instance(redis.url), instance(redis.url)]);
});

afterAll(async () => {
  await closeInstances([A, B, C]);
  await clientOfA?.quit();
  await redis?.close();
});

/**
 * A fetch that sends each POST to the instance its JSON-RPC method names in `routes` (`response` for the
 * client's answers to the server's requests), anything else to A; each routing is noted in `seen`.
 */
function routed(routes: Record<string, Instance>, seen: string[]): typeof fetch {
  const names = new Map([
    [A, 'A'],
    [B, 'B'],
    [C, 'C'],
  ]);
  return (input, init) => {
    if (input instanceof Request) throw new Error('routed() takes a URL and its init');
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as Record<string, unknown>) : {};
    const key = typeof body.method === 'string' ? body.method : 'id' in body ? 'response' : 'other';
    const target = routes[key] ?? A;
    seen.push(`${key}→${names.get(target)}`);
    const url = new URL(String(input));
    return fetch(new URL(url.pathname + url.search, target.url), init);
  };
}

const textOf = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;

/** A session opened on `on` and a 2025-11-25 task of `confirm` (one question) started there. */
async function confirmTask(on: Instance) {
  const sessionId = await open(on.url, '2025-11-25', { elicitation: {}, tasks: { requests: {} } });
  const session = { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' };
  const call = { name: 'confirm', arguments: {}, task: { ttl: 60_000 } };
  const created = await new SseReader(
    await post(on.url, { jsonrpc: '2.0', id: 'call', method: 'tools/call', params: call }, session),
  ).nextMessage();
  return { session, taskId: (created!.result as { task: { taskId: string } }).task.taskId };
}

/** A `tasks/result` of `taskId` posted to `on`, its stream. */
async function taskResult(on: Instance, session: Record<string, string>, taskId: string, id: string) {
  const body = { jsonrpc: '2.0', id, method: 'tasks/result', params: { taskId } };
  return new SseReader(await post(on.url, body, session));
}

describe('2025-11-25 tasks: the questions of a task on A, through a tasks/result on B', () => {
  it("toolwire's client: both questions asked on B, answered through C, the result read on C", async () => {
    const seen: string[] = [];
    const routes = { 'tasks/result': B, 'tasks/get': C, response: C };
    const client = new Client(
      { name: 'questions', version: '1' },
      {
        protocolVersion: '2025-11-25',
        elicitation: (params) => ({ action: 'accept', content: { name: nameFor(params.message) } }),
      },
    );
    await client.connect(new StreamableHttpClientTransport({ url: A.url, fetch: routed(routes, seen) }));
    try {
      const task = await client.callToolAsTask('two_names');
      expect(textOf(await task.result())).toBe('Ada and Bo');
      expect(seen).toContain('tools/call→A');
      expect(seen).toContain('tasks/result→B');
      expect(seen.filter((routing) => routing === 'response→C')).toHaveLength(2);
      expect(await client.getTask(task.taskId!)).toMatchObject({ status: 'completed' });
      const onC = { ...routes, 'tasks/result': C };
      Object.assign(routes, onC);
      expect(textOf(await client.taskResult(task.taskId!))).toBe('Ada and Bo');
      expect(seen.at(-1)).toBe('tasks/result→C');
    } finally {
      await client.close();
    }
  });

  it('the official SDK 1.x client (callToolStream): tasks/get on C, tasks/result on B', async () => {
    const seen: string[] = [];
    const client = new SdkClient({ name: 'sdk-v1', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, (request) => ({
      action: 'accept',
      content: { name: nameFor(request.params.message) },
    }));
    const fetch = routed({ 'tasks/result': B, 'tasks/get': C, response: C }, seen);
    await client.connect(new StreamableHTTPClientTransport(new URL(A.url), { fetch }));
    try {
      const stream = client.experimental.tasks.callToolStream(
        { name: 'two_names', arguments: {} },
        CallToolResultSchema,
        { task: { ttl: 60_000 } },
      );
      let result: { content: unknown[] } | undefined;
      for await (const message of stream) {
        if (message.type === 'error') throw message.error;
        if (message.type === 'result') result = message.result as { content: unknown[] };
      }
      expect(textOf(result!)).toBe('Ada and Bo');
      expect(seen).toContain('tasks/result→B');
      expect(seen.filter((routing) => routing === 'response→C')).toHaveLength(2);
    } finally {
      await client.close();
    }
  });

  it('sends a question once when tasks/result waits on B and on C at once', async () => {
    const { session, taskId } = await confirmTask(A);
    /** Every message of a tasks/result stream up to its answer; a question on it is answered through A. */
    const wait = async (on: Instance, id: string): Promise<Record<string, unknown>[]> => {
      const stream = await taskResult(on, session, taskId, id);
      const got: Record<string, unknown>[] = [];
      for (
        let message = await stream.nextMessage(20_000);
        message;
        message = await stream.nextMessage(20_000)
      ) {
        got.push(message);
        if (message.id === id) break;
        if (message.method !== 'elicitation/create') continue;
        const answer = { jsonrpc: '2.0', id: message.id, result: { action: 'decline' } };
        expect((await post(A.url, answer, session)).status).toBe(202);
      }
      await stream.cancel();
      return got;
    };
    const [onB, onC] = await Promise.all([wait(B, 'on-b'), wait(C, 'on-c')]);
    const questions = [...onB, ...onC].filter((message) => message.method === 'elicitation/create');
    expect(questions).toHaveLength(1);
    expect(questions[0]).toMatchObject({
      params: { message: 'Delete it?', _meta: { 'io.modelcontextprotocol/related-task': { taskId } } },
    });
    for (const messages of [onB, onC])
      expect(messages.at(-1)).toMatchObject({ result: { content: [{ text: 'confirm: decline' }] } });
  });
});

describe('2025-11-25 tasks: an instance that dies with a question it sent', () => {
  // Instances of their own, on a short lease (1.5 s): a claim of a dead instance lapses as its leases do.
  let X: Instance;
  let Y: Instance;
  let Z: Instance;
  beforeAll(async () => {
    [X, Y, Z] = await Promise.all([
      instance(redis.url, 1500),
      instance(redis.url, 1500),
      instance(redis.url, 1500),
    ]);
  });
  afterAll(async () => {
    await closeInstances([X, Z]);
    await Y?.stores.close();
  });

  it('the next tasks/result sends the question again once the dead one’s claim lapses', async () => {
    const { session, taskId } = await confirmTask(X);
    const first = await taskResult(Y, session, taskId, 'on-y');
    const question = await first.nextMessage(10_000);
    expect(question).toMatchObject({ method: 'elicitation/create', params: { message: 'Delete it?' } });
    // Y stops (its tasks/result, its claims and the question it waits on with it), unanswered.
    await Y.http.close({ graceMs: 0 });
    await Y.server.close();
    const again = await taskResult(Z, session, taskId, 'on-z');
    const asked = await again.nextMessage(10_000);
    expect(asked).toMatchObject({ method: 'elicitation/create', params: question!.params as JsonObject });
    const answer = { jsonrpc: '2.0', id: asked!.id, result: { action: 'accept' } };
    expect((await post(X.url, answer, session)).status).toBe(202);
    expect(await again.nextMessage(10_000)).toMatchObject({
      id: 'on-z',
      result: { content: [{ text: 'confirm: accept' }] },
    });
  });
});

/** `taskId`'s task as `on` reads it (the 2026-07-28 extension), once `done(task)` (bounded: 10 s). */
async function taskOn(on: Instance, taskId: string, done: (task: Record<string, unknown>) => boolean) {
  for (const deadline = Date.now() + 10_000; ;) {
    const task = (await rpcTo(on.url, 'tasks/get', { taskId }, META)).result!;
    if (done(task) || Date.now() > deadline) return task;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('answers kept in Redis until the instance running the task takes them', () => {
  it("reaches the handler on A when it was given while A's subscriber was disconnected", async () => {
    const created = await rpcTo(A.url, 'tools/call', { name: 'confirm', arguments: {} }, META);
    const taskId = created.result!.taskId as string;
    await taskOn(B, taskId, (task) => task.status === 'input_required');
    // A's subscriber goes away (and stays away until told to come back).
    const subscriber = subscribersOfA[0]!;
    const ended = new Promise((resolve) => subscriber.once('end', resolve));
    subscriber.disconnect();
    await ended;
    const update = { taskId, inputResponses: { 'elicit-1': { action: 'accept' } } } satisfies JsonObject;
    expect((await rpcTo(B.url, 'tasks/update', update, META)).result).toMatchObject({
      resultType: 'complete',
    });
    expect(await taskOn(C, taskId, () => true)).toMatchObject({ status: 'input_required' });
    // Back: it subscribes again and takes the answers waiting for its tasks.
    const ready = new Promise((resolve) => subscriber.once('ready', resolve));
    await subscriber.connect();
    await ready;
    const done = await taskOn(C, taskId, (task) => task.status === 'completed');
    expect(done).toMatchObject({ status: 'completed', result: { content: [{ text: 'confirm: accept' }] } });
  });
});
