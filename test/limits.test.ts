// What one connection may ask at once, on the wire: the size of a JSON-RPC batch (2025-03-26) and the
// requests in flight, over stdio (a real `toolwire serve` child) and over Streamable HTTP (real sockets).
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { Server, ServerOptions } from '../src/server/index.js';
import { serveHttp, type HttpServerHandle } from '../src/transports/http/index.js';
import { SseReader } from './_sse.js';
import { RawWire } from './_wire.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/limits-server.mjs', import.meta.url));
const ACCEPT = 'application/json, text/event-stream';

const pings = (count: number, from = 1) =>
  Array.from({ length: count }, (_, i) => ({ jsonrpc: '2.0', id: from + i, method: 'ping' }));
const call = (id: number, name: string, args: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});

/** A stdio child serving the fixture with `options`. */
function stdioServer(options: ServerOptions = {}): RawWire {
  return new RawWire(FIXTURE, { env: { LIMITS_SERVER_OPTIONS: JSON.stringify(options) } });
}

let handle: HttpServerHandle | undefined;
afterEach(async () => {
  await handle?.close();
  handle = undefined;
});

async function httpServer(options: ServerOptions = {}): Promise<string> {
  const mod = (await import(FIXTURE)) as { default: (options: ServerOptions) => Server };
  handle = await serveHttp(mod.default(options), { port: 0 });
  return handle.url;
}

function post(url: string, body: unknown, sessionId?: string): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      accept: ACCEPT,
      'content-type': 'application/json',
      ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
    },
    body: JSON.stringify(body),
  });
}

/** A 2025-03-26 session (the revision that takes batches); returns its id. */
async function openSession(url: string): Promise<string> {
  const response = await post(url, {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });
  const sessionId = response.headers.get('mcp-session-id')!;
  await new SseReader(response).nextMessage();
  await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, sessionId);
  return sessionId;
}

/** Every JSON-RPC message of an SSE response, until the stream ends. */
async function messagesOf(response: Response): Promise<Array<Record<string, unknown>>> {
  const reader = new SseReader(response);
  const out: Array<Record<string, unknown>> = [];
  for (;;) {
    const message = await reader.nextMessage(10_000);
    if (!message) return out;
    out.push(message);
  }
}

describe('JSON-RPC batches', () => {
  it('answers a batch of 100 over stdio, and refuses one of 101 whole with -32600', async () => {
    await using wire = stdioServer();
    await wire.initialize('2025-03-26');
    wire.send(pings(100));
    const answers = (await wire.next()) as Array<{ id: number }>;
    expect(answers.map((a) => a.id)).toEqual(pings(100).map((p) => p.id));
    wire.send(pings(101, 1000));
    expect(await wire.next()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Invalid request: a batch of 101 messages is over the limit of 100' },
    });
    expect(await wire.call(5, 'ping')).toEqual({ jsonrpc: '2.0', id: 5, result: {} }); // the connection lives on
  });

  it('takes its limit from maxBatchSize', async () => {
    await using wire = stdioServer({ maxBatchSize: 3 });
    await wire.initialize('2025-03-26');
    wire.send(pings(4));
    expect(await wire.next()).toMatchObject({ id: null, error: { code: -32600 } });
    wire.send(pings(3));
    expect(await wire.next()).toHaveLength(3);
  });

  it('refuses a batch over the limit with 400 and -32600 over Streamable HTTP, before running any of it', async () => {
    const url = await httpServer();
    const sessionId = await openSession(url);
    const refused = await post(url, pings(101), sessionId);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Invalid request: a batch of 101 messages is over the limit of 100' },
    });
    const answered = await messagesOf(await post(url, pings(100), sessionId));
    expect(answered.map((m) => m.id)).toEqual(pings(100).map((p) => p.id));
  });
});

describe('requests in flight', () => {
  const cancel = (requestId: number) => ({
    jsonrpc: '2.0',
    method: 'notifications/cancelled',
    params: { requestId },
  });
  const released = (id: number) => ({
    jsonrpc: '2.0',
    id,
    result: { content: [{ type: 'text', text: 'released' }] },
  });

  it('answers a request past maxRequestsInFlight with -31429 at once over stdio, and takes more once a place is free', async () => {
    await using wire = stdioServer({ maxRequestsInFlight: 3 });
    await wire.initialize('2025-11-25');
    for (const id of [1, 2, 3]) wire.send(call(id, 'hold'));
    wire.send({ jsonrpc: '2.0', id: 4, method: 'ping' });
    expect(await wire.next()).toEqual({
      jsonrpc: '2.0',
      id: 4,
      error: {
        code: -31429,
        message:
          'Too many requests in flight: 3 requests of this connection are still being answered (the limit); send more once answers arrive',
        data: { retryAfterMs: 1000, limit: 'in-flight' },
      },
    });
    wire.send(call(5, 'release')); // over the limit too: the handler does not run
    expect(await wire.next()).toMatchObject({ id: 5, error: { code: -31429 } });
    wire.send(cancel(1)); // frees a place once its handler has stopped
    await expect.poll(() => wire.stderr).toContain('aborted hold');
    wire.send(call(6, 'release'));
    const answers = [await wire.next(), await wire.next(), await wire.next()];
    expect(answers).toEqual(
      expect.arrayContaining([
        released(2),
        released(3),
        { jsonrpc: '2.0', id: 6, result: { content: [{ type: 'text', text: 'ok' }] } },
      ]),
    );
  });

  it('counts every item of a batch', async () => {
    await using wire = stdioServer({ maxRequestsInFlight: 2 });
    await wire.initialize('2025-03-26');
    wire.send([call(1, 'hold'), call(2, 'hold'), call(3, 'hold')]);
    wire.send({ jsonrpc: '2.0', id: 4, method: 'ping' });
    expect(await wire.next()).toMatchObject({ id: 4, error: { code: -31429 } });
    wire.send(cancel(1));
    await expect.poll(() => wire.stderr).toContain('aborted hold');
    wire.send(call(5, 'release'));
    const answers = [await wire.next(), await wire.next()];
    // The batch's answer: its third item was refused at once, its first cancelled (no answer).
    expect(answers).toEqual(
      expect.arrayContaining([
        [released(2), expect.objectContaining({ id: 3, error: expect.objectContaining({ code: -31429 }) })],
        expect.objectContaining({ id: 5, result: expect.anything() }),
      ]),
    );
  });

  it('refuses a request past the limit with -31429 over Streamable HTTP, on that session only', async () => {
    const url = await httpServer({ maxRequestsInFlight: 2 });
    const sessionId = await openSession(url);
    const held = [post(url, call(1, 'hold'), sessionId), post(url, call(2, 'hold'), sessionId)];
    const streams = await Promise.all(held);
    const refused = await messagesOf(await post(url, call(3, 'hold'), sessionId));
    expect(refused).toEqual([
      expect.objectContaining({ id: 3, error: expect.objectContaining({ code: -31429 }) }),
    ]);
    // Another session has its own places: its `release` lets the first session's calls finish.
    const other = await openSession(url);
    expect(await messagesOf(await post(url, call(9, 'release'), other))).toMatchObject([{ id: 9 }]);
    for (const stream of streams) {
      expect(await messagesOf(stream)).toMatchObject([{ result: { content: [{ text: 'released' }] } }]);
    }
  });
});
