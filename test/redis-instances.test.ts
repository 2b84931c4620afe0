// Two toolwire servers (two HTTP listeners, each with its own Server and its own Redis connection) on one
// Redis: what already works across instances in the stateless era (2026-07-28), where every request is
// served on its own. Rate limits count the sum of both instances' calls; a task started on one is read
// and cancelled through the other. (Sessions of the handshake era are not shared yet: see README,
// "Running many instances".)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '../src/protocol/jsonrpc.js';
import type { Server } from '../src/server/index.js';
import { redisStores } from '../src/stores/redis.js';
import { serveHttp } from '../src/transports/http/index.js';
import { startRedis, type RedisServerHandle } from './_redis.js';
import { closeInstances, type RedisInstance as Instance } from './_redis-instance.js';

const FIXTURE = new URL('./fixtures/tasks-server.mjs', import.meta.url).href;
const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };

let redis: RedisServerHandle;
const instances: Instance[] = [];

/** An instance on the Redis, keeping its data under `prefix` (the instances of one test share theirs). */
async function instance(prefix: string): Promise<Instance> {
  const stores = redisStores(redis.url, { prefix });
  const mod = (await import(FIXTURE)) as { default: (options?: object) => Server };
  const server = mod.default({
    rateLimit: { perCaller: { burst: 4, perSecond: 0.001 }, store: stores.rateLimits },
    tasks: { store: stores.tasks },
  });
  const http = await serveHttp(server, { port: 0, responseMode: 'json' });
  const started = { url: http.url, stores, http, server };
  instances.push(started);
  return started;
}

let id = 0;
/** One stateless-era request to `to`; its JSON-RPC answer and HTTP status. */
async function rpc(
  to: Instance,
  method: string,
  params: JsonObject,
): Promise<{ status: number; result?: JsonObject; error?: { code: number } }> {
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': TASKS,
    'io.modelcontextprotocol/clientInfo': { name: 'two-instances', version: '1' },
  };
  // Mcp-Name: the tool's name, or the task's id.
  const named = params.name ?? params.taskId;
  const name: Record<string, string> = typeof named === 'string' ? { 'mcp-name': named } : {};
  const response = await fetch(to.url, {
    method: 'POST',
    headers: {
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...name,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params: { ...params, _meta: meta } }),
  });
  return { status: response.status, ...((await response.json()) as object) };
}

beforeAll(async () => {
  redis = await startRedis();
});

afterAll(async () => {
  await closeInstances(instances);
  await redis?.close();
});

describe('two instances on one Redis (stateless era)', () => {
  it('count one caller’s calls on both instances against one limit: the sum, not each', async () => {
    const [a, b] = [await instance('limits:'), await instance('limits:')];
    const outcomes = [];
    for (let i = 0; i < 10; i++) {
      const { status, error } = await rpc(i % 2 ? b : a, 'tools/call', {
        name: 'greet',
        arguments: { name: 'Ada' },
      });
      outcomes.push(error ? `${status} ${error.code}` : String(status));
    }
    // The burst is 4 for the (anonymous) caller, whichever instance serves it.
    expect(outcomes).toEqual(['200', '200', '200', '200', ...Array<string>(6).fill('429 -31429')]);
  });

  it('serve a task started on one instance from the other: tasks/get, its result, tasks/cancel', async () => {
    const [a, b] = [await instance('tasks:'), await instance('tasks:')];
    const created = await rpc(a, 'tools/call', { name: 'sleepy', arguments: { ms: 300 } });
    expect(created.result).toMatchObject({ resultType: 'task', status: 'working' });
    const taskId = created.result!.taskId as string;
    await expect
      .poll(async () => (await rpc(b, 'tasks/get', { taskId })).result)
      .toMatchObject({ taskId, status: 'completed', result: { content: [{ text: 'slept 300 ms' }] } });

    const long = await rpc(a, 'tools/call', { name: 'sleepy', arguments: { ms: 60_000 } });
    const longId = long.result!.taskId as string;
    expect((await rpc(b, 'tasks/get', { taskId: longId })).result).toMatchObject({ status: 'working' });
    expect((await rpc(b, 'tasks/cancel', { taskId: longId })).result).toMatchObject({});
    expect((await rpc(a, 'tasks/get', { taskId: longId })).result).toMatchObject({ status: 'cancelled' });
  });
});
