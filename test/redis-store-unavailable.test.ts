// A `tools/call` whose rate-limit store (a real Redis) cannot be reached: HTTP 503 with `Retry-After` and a
// JSON-RPC error naming the store, as a failed session store gets — in the stateless era, on a session
// whose answers are JSON, and on one whose answers are SSE streams while nothing went out on the stream —
// never -32603 "Internal error" with HTTP 500 (or 200). Once a stream has started, the failure is the
// request's JSON-RPC error response on it. Sessions stay in memory here, so the rate limit is the only
// thing that needs Redis.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Server } from '../src/server/index.js';
import { redisStores, type RedisStores } from '../src/stores/redis.js';
import type { SessionStore } from '../src/stores/session-store.js';
import { storeOperation } from '../src/stores/store-error.js';
import { serveHttp, type HttpServerHandle } from '../src/transports/http/index.js';
import { INIT, post } from './_http.js';
import { PATIENT_TIMEOUT_MS, startRedis, timingOutAfter, type RedisServerHandle } from './_redis.js';
import { SseReader } from './_sse.js';

const FIXTURE = new URL('./fixtures/cluster-server.mjs', import.meta.url).href;
const STATELESS = '2026-07-28';

let redis: RedisServerHandle;
/**
 * The server's stores: what they are asked while Redis runs succeeds however busy the machine; with Redis
 * down a command fails at once (its connection refused), and frozen after 500 ms (`timingOutAfter`).
 */
let stores: RedisStores;
let server: Server;
let http: HttpServerHandle;
/** The same server answering with SSE streams (keep-alives every 15 s), and with keep-alives every 50 ms. */
let sse: HttpServerHandle;
let sseQuick: HttpServerHandle;
/** What the server's onError heard. */
const errors: Error[] = [];

beforeAll(async () => {
  redis = await startRedis();
  stores = redisStores(redis.url, { commandTimeoutMs: PATIENT_TIMEOUT_MS });
  const mod = (await import(FIXTURE)) as { default: (options: object) => Server };
  server = mod.default({ rateLimitStore: stores.rateLimits, onError: (error: Error) => errors.push(error) });
  http = await serveHttp(server, { port: 0, responseMode: 'json' });
  sse = await serveHttp(server, { port: 0 });
  sseQuick = await serveHttp(server, { port: 0, keepAliveMs: 50 });
});

afterAll(async () => {
  await sseQuick?.close();
  await sse?.close();
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

async function openSession(url = http.url, version = '2025-11-25'): Promise<Record<string, string>> {
  const response = await post(url, INIT(version));
  expect(response.status).toBe(200);
  const headers = {
    'mcp-session-id': response.headers.get('mcp-session-id')!,
    'mcp-protocol-version': version,
  };
  await response.text();
  expect((await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers)).status).toBe(
    202,
  );
  return headers;
}

const callLimited = (id: number, url: string, headers: Record<string, string>) =>
  post(
    url,
    { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'limited', arguments: {} } },
    headers,
  );

async function expectStoreUnavailable(
  response: Response,
  id: number,
  store = 'Redis rate limit store',
): Promise<void> {
  expect(response.status).toBe(503);
  expect(response.headers.get('retry-after')).toBe('1');
  const body = (await response.json()) as { id: unknown; error: { code: number; message: string } };
  expect(body.id).toBe(id);
  expect(body.error.code).toBe(-32603);
  // Which store and operation, never why (Redis's reply, where Redis is): that is for the server's onError.
  expect(body.error.message).toMatch(new RegExp(`^Service Unavailable: ${store}: \\w+ failed$`));
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
    // Why it failed is the server's to hear (onError), not the peer's.
    expect(errors.map((error) => error.message)).toContainEqual(
      expect.stringMatching(
        /^Redis rate limit store: \w+ failed: Redis at 127\.0\.0\.1:\d+ is not connected/,
      ),
    );

    await redis.start();
    let again: Response | undefined;
    for (let attempt = 0; attempt < 50 && again?.status !== 200; attempt++) {
      if (again) await new Promise((resolve) => setTimeout(resolve, 100));
      again = await statelessCall(5, 'limited');
    }
    expect(again!.status).toBe(200);
  });
});

describe('a session answering with SSE, its rate-limit store down', () => {
  it('answers 503 with the JSON-RPC error while nothing went out on the stream (a priming event or none)', async () => {
    // 2025-11-25 streams start with a priming event (the memory event store), 2025-06-18 ones do not.
    const sessions = [await openSession(sse.url), await openSession(sse.url, '2025-06-18')];
    await redis.kill();
    try {
      for (const [i, headers] of sessions.entries())
        await expectStoreUnavailable(await callLimited(10 + i, sse.url, headers), 10 + i);
    } finally {
      await redis.start();
    }
  });

  it("once the stream has started (a keep-alive), the failure is the request's error response on it", async () => {
    const headers = await openSession(sseQuick.url, '2025-06-18');
    // Frozen: the store's command times out after 500 ms, long after the 50 ms keep-alive started the stream.
    let response!: Response;
    let answer: Record<string, unknown> | undefined;
    await timingOutAfter(stores.client, 500, async () => {
      process.kill(redis.pid!, 'SIGSTOP');
      try {
        response = await callLimited(20, sseQuick.url, headers);
        answer = await new SseReader(response).nextMessage();
      } finally {
        process.kill(redis.pid!, 'SIGCONT');
      }
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(answer).toMatchObject({
      jsonrpc: '2.0',
      id: 20,
      error: { code: -32603, data: { reason: 'store_unavailable', retryAfterMs: 1000 } },
    });
    expect((answer!.error as { message: string }).message).toMatch(
      /^Service Unavailable: Redis rate limit store: \w+ failed$/,
    );
  });
});

describe("a shared session whose record cannot be brought up to date before a request's answer", () => {
  it('answers that request with 503 and the store error; the next answer writes the record', async () => {
    // The Redis session store, whose writes of a session's state fail while `failing` is set.
    const sessions = stores.sessions;
    let failing = false;
    const store: SessionStore = {
      expires: true,
      create: (record) => sessions.create(record),
      get: (id) => sessions.get(id),
      update: (id, patch) =>
        failing && 'logLevel' in patch
          ? storeOperation('Redis session store', 'update', () =>
              Promise.reject(new Error('connection lost')),
            )
          : sessions.update(id, patch),
      delete: (id) => sessions.delete(id),
      idleSince: (before) => sessions.idleSince(before),
      count: () => sessions.count(),
    };
    const shared = await serveHttp(server, { port: 0, redis: stores, sessionStore: store });
    try {
      const headers = await openSession(shared.url, '2025-06-18');
      const setLevel = (id: number) =>
        post(
          shared.url,
          { jsonrpc: '2.0', id, method: 'logging/setLevel', params: { level: 'warning' } },
          headers,
        );
      failing = true;
      await expectStoreUnavailable(await setLevel(40), 40, 'Redis session store');
      failing = false;
      // The next answer, of a request that changes nothing, writes the record.
      const ping = await post(shared.url, { jsonrpc: '2.0', id: 41, method: 'ping' }, headers);
      expect(await new SseReader(ping).nextMessage()).toMatchObject({ id: 41, result: {} });
      expect(await sessions.get(headers['mcp-session-id']!)).toMatchObject({ logLevel: 'warning' });
    } finally {
      await shared.close();
    }
  });
});
