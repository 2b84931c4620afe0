// A `tools/call` whose rate-limit store (a real Redis) cannot be reached: HTTP 503 with `Retry-After` and a
// JSON-RPC error naming the store, as a failed session store gets — in the stateless era, and on a session
// whose answers are JSON — never -32603 "Internal error" with HTTP 500 (or 200). Sessions stay in memory
// here, so the rate limit is the only thing that needs Redis.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Server } from '../src/server/index.js';
import { redisStores, type RedisStores } from '../src/stores/redis.js';
import { serveHttp, type HttpServerHandle } from '../src/transports/http/index.js';
import { INIT, post } from './_http.js';
import { startRedis, type RedisServerHandle } from './_redis.js';

const FIXTURE = new URL('./fixtures/cluster-server.mjs', import.meta.url).href;
const STATELESS = '2026-07-28';

let redis: RedisServerHandle;
let stores: RedisStores;
let server: Server;
let http: HttpServerHandle;

beforeAll(async () => {
  redis = await startRedis();
  stores = redisStores(redis.url, { commandTimeoutMs: 500 });
  const mod = (await import(FIXTURE)) as { default: (options: object) => Server };
  server = mod.default({ rateLimitStore: stores.rateLimits });
  http = await serveHttp(server, { port: 0, responseMode: 'json' });
});

afterAll(async () => {
  await http?.close();
  await server?.close();
  await stores?.close();
  await redis?.close();
});

/** A stateless-era `tools/call` of `name`, with the headers a conforming client sends. */
function statelessCall(id: number, name: string): Promise<Response> {
  const meta = {
    'io.modelcontextprotocol/protocolVersion': STATELESS,
    'io.modelcontextprotocol/clientInfo': { name: 'test', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  return fetch(http.url, {
    method: 'POST',
    headers: {
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
      'mcp-protocol-version': STATELESS,
      'mcp-method': 'tools/call',
      'mcp-name': name,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name, arguments: {}, _meta: meta },
    }),
  });
}

async function openSession(): Promise<Record<string, string>> {
  const response = await post(http.url, INIT());
  expect(response.status).toBe(200);
  const headers = {
    'mcp-session-id': response.headers.get('mcp-session-id')!,
    'mcp-protocol-version': '2025-11-25',
  };
  await response.json();
  expect(
    (await post(http.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers)).status,
  ).toBe(202);
  return headers;
}

async function expectStoreUnavailable(response: Response, id: number): Promise<void> {
  expect(response.status).toBe(503);
  expect(response.headers.get('retry-after')).toBe('1');
  const body = (await response.json()) as { id: unknown; error: { code: number; message: string } };
  expect(body.id).toBe(id);
  expect(body.error.code).toBe(-32603);
  expect(body.error.message).toMatch(/^Service Unavailable: Redis rate limit store: \w+ failed: /);
}

describe('a rate-limit store that cannot be reached', () => {
  it('gets 503 with Retry-After, in the stateless era and on a session; Redis back, calls go on', async () => {
    const sessionHeaders = await openSession();
    const ok = await statelessCall(1, 'limited');
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { result: { isError?: boolean } }).result.isError).toBeUndefined();

    await redis.kill();
    await expectStoreUnavailable(await statelessCall(2, 'limited'), 2);
    const onSession = await post(
      http.url,
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'limited', arguments: {} } },
      sessionHeaders,
    );
    await expectStoreUnavailable(onSession, 3);

    await redis.start();
    let again: Response | undefined;
    for (let attempt = 0; attempt < 50 && again?.status !== 200; attempt++) {
      if (again) await new Promise((resolve) => setTimeout(resolve, 100));
      again = await statelessCall(5, 'limited');
    }
    expect(again!.status).toBe(200);
  });
});
