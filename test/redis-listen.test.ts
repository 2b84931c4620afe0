// Stateless-era (2026-07-28) `subscriptions/listen` streams of processes sharing sessions on a real Redis
// (two Streamable HTTP handlers in this process, each with its own Server and Redis connections): a
// registry change or a resource update on one instance reaches the listen streams of every instance,
// exactly once per stream (the instance that made it sends on its own streams, the others hear it on the
// session bus).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Server } from '../src/server/index.js';
import { redisStores } from '../src/stores/redis.js';
import { serveHttp } from '../src/transports/http/index.js';
import { startRedis, type RedisServerHandle } from './_redis.js';
import { closeInstances, type RedisInstance as Instance } from './_redis-instance.js';
import { SseReader } from './_sse.js';
import { serverCore } from '../src/server/server.js';

const FIXTURE = new URL('./fixtures/cluster-server.mjs', import.meta.url).href;
const STATELESS = '2026-07-28';
const META = {
  'io.modelcontextprotocol/protocolVersion': STATELESS,
  'io.modelcontextprotocol/clientInfo': { name: 'test', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

let redis: RedisServerHandle;
const started: Instance[] = [];

async function instance(stateless: boolean): Promise<Instance> {
  const stores = redisStores(redis.url);
  const mod = (await import(FIXTURE)) as { default: () => Server };
  const server = mod.default();
  const http = await serveHttp(server, { port: 0, redis: stores, stateless });
  const made = { url: http.url, stores, http, server };
  started.push(made);
  return made;
}

beforeAll(async () => {
  redis = await startRedis();
});

afterAll(async () => {
  await closeInstances(started);
  await redis?.close();
});

/** A stateless-era request, with the headers a conforming client sends. */
function stateless(
  on: Instance,
  id: number,
  method: string,
  params: Record<string, unknown>,
): Promise<Response> {
  const name = method === 'tools/call' ? (params.name as string) : undefined;
  return fetch(on.url, {
    method: 'POST',
    headers: {
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
      'mcp-protocol-version': STATELESS,
      'mcp-method': method,
      ...(name ? { 'mcp-name': name } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: META } }),
  });
}

/** A listen stream on `on`, past its acknowledgement. */
async function listen(on: Instance, id: number): Promise<SseReader> {
  const notifications = { toolsListChanged: true, resourceSubscriptions: ['cluster://note'] };
  const response = await stateless(on, id, 'subscriptions/listen', { notifications });
  expect(response.status).toBe(200);
  const reader = new SseReader(response);
  expect(await reader.nextMessage()).toMatchObject({ method: 'notifications/subscriptions/acknowledged' });
  return reader;
}

let nextId = 100;
async function callTool(on: Instance, name: string): Promise<void> {
  const response = await stateless(on, nextId++, 'tools/call', { name, arguments: {} });
  expect(response.status).toBe(200);
  const reader = new SseReader(response);
  let last: Record<string, unknown> | undefined;
  for (let message = await reader.nextMessage(); message; message = await reader.nextMessage())
    last = message;
  expect(last).toHaveProperty('result');
}

describe('stateless-era listen streams across instances', () => {
  it.each([
    { handlers: 'handlers sharing sessions', stateless: false },
    { handlers: 'stateless handlers', stateless: true },
  ])(
    "hear every instance's list_changed and resource updates, once per stream ($handlers)",
    async ({ stateless }) => {
      const [A, B] = await Promise.all([instance(stateless), instance(stateless)]);
      const onA = await listen(A, 1);
      const onB = await listen(B, 2);
      const streams = [onA, onB];
      // The listen streams are open on both instances before the changes.
      expect(serverCore(A.server).subscriptionCount).toBe(1);
      expect(serverCore(B.server).subscriptionCount).toBe(1);

      await callTool(A, 'add_tool');
      for (const stream of streams)
        expect(await stream.nextMessage()).toMatchObject({ method: 'notifications/tools/list_changed' });
      await callTool(A, 'touch');
      // No second list_changed on either stream: the next message is the update, then a change from B.
      for (const stream of streams)
        expect(await stream.nextMessage()).toMatchObject({
          method: 'notifications/resources/updated',
          params: { uri: 'cluster://note' },
        });
      await callTool(B, 'add_tool');
      for (const stream of streams)
        expect(await stream.nextMessage()).toMatchObject({ method: 'notifications/tools/list_changed' });
      await callTool(B, 'touch');
      for (const stream of streams)
        expect(await stream.nextMessage()).toMatchObject({ method: 'notifications/resources/updated' });
      for (const stream of streams) await stream.cancel();
    },
  );
});
