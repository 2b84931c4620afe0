// The stateless era (2026-07-28) over Streamable HTTP, on the wire: toolwire's server with raw fetch
// (statuses, JSON-RPC codes, request metadata headers, x-mcp-header, cancellation by closing the
// stream), toolwire's client transport (the headers it sends, cancellation), and both against the
// official SDK 2.x.
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client as SdkClient, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { McpServer, createMcpHandler, fromJsonSchema } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import { Peer } from '../src/protocol/engine/peer.js';
import { ProtocolError } from '../src/protocol/errors.js';
import type { JsonObject } from '../src/protocol/jsonrpc.js';
import type { Server } from '../src/server/index.js';
import {
  serveHttp,
  toNodeHandler,
  type HttpServerHandle,
  type ServeHttpOptions,
} from '../src/transports/http/index.js';
import {
  FallbackHttpClientTransport,
  StreamableHttpClientTransport,
} from '../src/transports/http-client/index.js';
import { SseReader } from './_sse.js';

const FIXTURE = new URL('./fixtures/http-stateless-server.mjs', import.meta.url).href;
const STATELESS = '2026-07-28';
const META = (extra: JsonObject = {}): JsonObject => ({
  'io.modelcontextprotocol/protocolVersion': STATELESS,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'raw-http', version: '1' },
  ...extra,
});
const SERVER_INFO = { name: 'protocol-fixture', version: '1.0.0', title: 'Protocol fixture' };

let handle: HttpServerHandle | undefined;
let http: HttpServer | undefined;
afterEach(async () => {
  await handle?.close();
  handle = undefined;
  http?.closeAllConnections();
  await new Promise((resolve) => (http ? http.close(resolve) : resolve(undefined)));
  http = undefined;
});

async function start(options: ServeHttpOptions & { versions?: string[] } = {}): Promise<string> {
  const { versions, ...http } = options;
  const mod = (await import(FIXTURE)) as { default: (options?: object) => Server };
  handle = await serveHttp(mod.default(versions ? { versions } : {}), { port: 0, ...http });
  return handle.url;
}

interface Call {
  id?: number;
  method: string;
  params?: JsonObject;
  /** Header overrides; `undefined` removes a header. */
  headers?: Record<string, string | undefined>;
}

/** POSTs a stateless-era request with the headers a conforming client sends (unless overridden). */
function stateless(url: string, { id = 1, method, params = {}, headers = {} }: Call): Promise<Response> {
  const body = { jsonrpc: '2.0', id, method, params: { ...params, _meta: params._meta ?? META() } };
  const name = method === 'resources/read' ? params.uri : params.name;
  const all: Record<string, string | undefined> = {
    accept: 'application/json, text/event-stream',
    'content-type': 'application/json',
    'mcp-protocol-version': STATELESS,
    'mcp-method': method,
    ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
    ...headers,
  };
  const sent = Object.fromEntries(
    Object.entries(all).filter((e): e is [string, string] => e[1] !== undefined),
  );
  return fetch(url, { method: 'POST', headers: sent, body: JSON.stringify(body) });
}

/** The one JSON-RPC message of a JSON response, or the last of an SSE stream. */
async function answer(response: Response): Promise<Record<string, unknown>> {
  if (response.headers.get('content-type') === 'application/json')
    return (await response.json()) as Record<string, unknown>;
  const reader = new SseReader(response);
  let last: Record<string, unknown> | undefined;
  for (let message = await reader.nextMessage(); message; message = await reader.nextMessage())
    last = message;
  return last!;
}

const text = (message: Record<string, unknown>) =>
  ((message.result as { content: { text: string }[] }).content[0] ?? { text: '' }).text;

/** An SDK server's tool whose `region` is mirrored into `Mcp-Param-Region`. */
const QUERY_SCHEMA = {
  type: 'object',
  properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, sql: { type: 'string' } },
  required: ['region', 'sql'],
};
const QUERY = { name: 'query', arguments: { region: 'us-west1', sql: 'select 1' } };

describe('Streamable HTTP server, stateless era', () => {
  it('serves a request on its own: SSE ending with the response, no session id, X-Accel-Buffering: no', async () => {
    const url = await start();
    const response = await stateless(url, {
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'hi' } },
      headers: { 'mcp-session-id': 'not-a-session', 'last-event-id': 'not-an-event' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('x-accel-buffering')).toBe('no');
    expect(response.headers.get('mcp-session-id')).toBeNull();
    const reader = new SseReader(response);
    const event = await reader.next();
    expect(event?.id).toBeUndefined(); // nothing to resume from
    expect(JSON.parse(event!.data)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: {
        resultType: 'complete',
        content: [{ type: 'text', text: 'hi' }],
        _meta: { 'io.modelcontextprotocol/serverInfo': SERVER_INFO },
      },
    });
    expect(await reader.next()).toBeUndefined(); // the response ends the stream
    expect(handle!.handler.sessionCount).toBe(0);
    expect(handle!.handler.load).toEqual({ streams: 0, pendingRequests: 0 });
  });

  it('sends progress on the request stream before the response', async () => {
    const url = await start();
    const reader = new SseReader(
      await stateless(url, {
        method: 'tools/call',
        params: { name: 'slow', arguments: { steps: 2, ms: 5 }, _meta: META({ progressToken: 'p' }) },
      }),
    );
    const messages = [];
    for (let message = await reader.nextMessage(); message; message = await reader.nextMessage())
      messages.push(message);
    expect(messages.map((m) => m.method ?? `response ${String(m.id)}`)).toEqual([
      'notifications/progress',
      'notifications/progress',
      'response 1',
    ]);
  });

  it('answers with one JSON body in JSON mode', async () => {
    const url = await start({ responseMode: 'json' });
    const response = await stateless(url, { method: 'tools/list' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('mcp-session-id')).toBeNull();
    expect(await response.json()).toMatchObject({
      id: 1,
      result: { resultType: 'complete', ttlMs: 0, cacheScope: 'public' },
    });
  });

  it.each([
    ['MCP-Protocol-Version is missing', { 'mcp-protocol-version': undefined }, 'MCP-Protocol-Version'],
    ['MCP-Protocol-Version differs from _meta', { 'mcp-protocol-version': '2025-11-25' }, '"2025-11-25"'],
    ['Mcp-Method is missing', { 'mcp-method': undefined }, 'Mcp-Method'],
    ['Mcp-Method differs from the method', { 'mcp-method': 'tools/list' }, '"tools/list"'],
    ['Mcp-Name is missing', { 'mcp-name': undefined }, 'Mcp-Name'],
    ['Mcp-Name differs from params.name', { 'mcp-name': 'add' }, '"add"'],
    ['Mcp-Name differs in case only', { 'mcp-name': 'ECHO' }, '"ECHO"'],
    ['Mcp-Name is a sentinel with bad Base64', { 'mcp-name': '=?base64?!!?=' }, 'invalid'],
  ])('refuses a request whose %s with 400 and -32020', async (_what, headers, mentioned) => {
    const url = await start();
    const response = await stateless(url, {
      id: 7,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'x' } },
      headers,
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { id: number; error: { code: number; message: string } };
    expect(body).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32020 } });
    expect(body.error.message).toContain(mentioned);
  });

  it('accepts header names in any case and Mcp-Name as a Base64 sentinel', async () => {
    const url = await start();
    const response = await stateless(url, {
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'x' } },
      headers: { 'mcp-name': undefined, 'MCP-NAME': `=?base64?${btoa('echo')}?=` },
    });
    expect(response.status).toBe(200);
    expect(text(await answer(response))).toBe('x');
  });

  it('compares Mcp-Name with a resource URI that is not header-safe, Base64-encoded', async () => {
    const url = await start();
    const uri = 'test://template/über/data';
    const encoded = `=?base64?${Buffer.from(uri).toString('base64')}?=`;
    const ok = await stateless(url, {
      method: 'resources/read',
      params: { uri },
      headers: { 'mcp-name': encoded },
    });
    expect(ok.status).toBe(200);
    expect(await answer(ok)).toMatchObject({ result: { contents: [{ uri, text: '{"id":"über"}' }] } });
    const other = `=?base64?${Buffer.from('test://template/uber/data').toString('base64')}?=`;
    const bad = await stateless(url, {
      method: 'resources/read',
      params: { uri },
      headers: { 'mcp-name': other },
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { code: -32020 } });
  });

  it('maps the errors of stateless requests to HTTP statuses', async () => {
    const url = await start();
    const unsupported = await stateless(url, {
      method: 'tools/list',
      params: { _meta: META({ 'io.modelcontextprotocol/protocolVersion': '2099-01-01' }) },
      headers: { 'mcp-protocol-version': '2099-01-01' },
    });
    expect(unsupported.status).toBe(400);
    expect(await unsupported.json()).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: {
        code: -32022,
        message: 'Unsupported protocol version',
        data: { supported: [STATELESS], requested: '2099-01-01' },
      },
    });
    const noCapabilities = await stateless(url, {
      method: 'tools/list',
      params: { _meta: { 'io.modelcontextprotocol/protocolVersion': STATELESS } },
    });
    expect(noCapabilities.status).toBe(400);
    expect(await noCapabilities.json()).toMatchObject({ error: { code: -32602 } });
    const unknownMethod = await stateless(url, { method: 'tools/unknown' });
    expect(unknownMethod.status).toBe(404);
    expect(await unknownMethod.json()).toMatchObject({ id: 1, error: { code: -32601 } });
    const unknownTool = await stateless(url, {
      method: 'tools/call',
      params: { name: 'nope', arguments: {} },
    });
    expect(unknownTool.status).toBe(400);
    expect(await unknownTool.json()).toMatchObject({
      error: { code: -32602, message: 'Unknown tool: nope' },
    });
    const ping = await stateless(url, { method: 'ping' }); // a handshake-era method only
    expect(ping.status).toBe(404);
    expect(await ping.json()).toMatchObject({ error: { code: -32601 } });
  });

  it('refuses a request that names the stateless era in its header but not in _meta (400, -32602)', async () => {
    const url = await start();
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        accept: 'application/json, text/event-stream',
        'content-type': 'application/json',
        'mcp-protocol-version': STATELESS,
        'mcp-method': 'tools/list',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: {} }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ id: 3, error: { code: -32602 } });
  });

  it('accepts a stateless-era notification with 202 and refuses stateless requests in a batch', async () => {
    const url = await start();
    const headers = {
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
      'mcp-protocol-version': STATELESS,
    };
    const note = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/whatever', params: {} }),
    });
    expect(note.status).toBe(202);
    expect(note.headers.get('mcp-session-id')).toBeNull();
    const batch = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: META() } }]),
    });
    expect(batch.status).toBe(400);
  });

  describe('x-mcp-header', () => {
    const call = (url: string, args: JsonObject, headers: Record<string, string | undefined>) =>
      stateless(url, { method: 'tools/call', params: { name: 'query', arguments: args }, headers });

    it('serves a call whose Mcp-Param headers match its arguments', async () => {
      const url = await start();
      const response = await call(
        url,
        { region: 'us-west1', limit: 42, dryRun: false, options: { tenant: 'acme' }, sql: 'select 1' },
        {
          'mcp-param-region': 'us-west1',
          'Mcp-Param-Limit': '42.0', // integers compare numerically
          'mcp-param-dry-run': 'false',
          'mcp-param-tenant': 'acme',
        },
      );
      expect(response.status).toBe(200);
      expect(JSON.parse(text(await answer(response)))).toEqual({
        region: 'us-west1',
        limit: 42,
        dryRun: false,
        tenant: 'acme',
        sql: 'select 1',
      });
    });

    it('expects no header for an absent or null argument', async () => {
      const url = await start();
      const response = await call(url, { region: 'eu', limit: null, sql: 'x' }, { 'mcp-param-region': 'eu' });
      expect(response.status).toBe(200);
    });

    it('decodes a Base64 sentinel before comparing', async () => {
      const url = await start();
      const region = 'Hello, 世界';
      const response = await call(
        url,
        { region, sql: 'x' },
        { 'mcp-param-region': '=?base64?SGVsbG8sIOS4lueVjA==?=' },
      );
      expect(response.status).toBe(200);
      expect(JSON.parse(text(await answer(response)))).toMatchObject({ region });
    });

    const REGION = { 'mcp-param-region': 'us-west1' };
    it.each([
      ['the header is missing', QUERY.arguments, {}, 'Mcp-Param-Region header is required'],
      ['the value differs', QUERY.arguments, { 'mcp-param-region': 'eu-west1' }, '"eu-west1"'],
      [
        'an integer differs',
        { ...QUERY.arguments, limit: 3 },
        { ...REGION, 'mcp-param-limit': '4' },
        'Mcp-Param-Limit',
      ],
      [
        'a boolean differs',
        { ...QUERY.arguments, dryRun: true },
        { ...REGION, 'mcp-param-dry-run': 'TRUE' },
        'Mcp-Param-Dry-Run',
      ],
      [
        'a nested parameter is missing',
        { ...QUERY.arguments, options: { tenant: 'acme' } },
        REGION,
        'Mcp-Param-Tenant header is required',
      ],
      [
        'a plain value looks like the sentinel',
        { ...QUERY.arguments, region: '=?base64?abc?=' },
        { 'mcp-param-region': '=?base64?abc?=' },
        'invalid',
      ],
    ])('refuses a call where %s with 400 and -32020', async (_what, args, headers, mentioned) => {
      const url = await start();
      const response = await call(url, args, headers);
      expect(response.status).toBe(400);
      const body = (await response.json()) as { error: { code: number; message: string } };
      expect(body.error.code).toBe(-32020);
      expect(body.error.message).toContain(mentioned);
    });
  });

  describe('cancellation', () => {
    const lastCancel = async (url: string) =>
      text(
        await answer(
          await stateless(url, {
            id: 9,
            method: 'tools/call',
            params: { name: 'last_cancel', arguments: {} },
          }),
        ),
      );

    it('cancels the call when the client closes its SSE stream', async () => {
      const url = await start({ keepAliveMs: 50 });
      const response = await stateless(url, {
        method: 'tools/call',
        params: { name: 'wait_for_cancel', arguments: {} },
      });
      expect(response.status).toBe(200); // the stream starts with its first keep-alive
      expect(handle!.handler.load).toEqual({ streams: 1, pendingRequests: 1 });
      await response.body!.cancel();
      await expect.poll(() => lastCancel(url)).toBe('The client closed the connection');
      expect(handle!.handler.load).toEqual({ streams: 0, pendingRequests: 0 });
    });

    it('cancels the call when the client aborts the POST in JSON mode', async () => {
      const url = await start({ responseMode: 'json' });
      const controller = new AbortController();
      const body = {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'wait_for_cancel', arguments: {}, _meta: META() },
      };
      const pending = fetch(url, {
        method: 'POST',
        signal: controller.signal,
        headers: {
          accept: 'application/json, text/event-stream',
          'content-type': 'application/json',
          'mcp-protocol-version': STATELESS,
          'mcp-method': 'tools/call',
          'mcp-name': 'wait_for_cancel',
        },
        body: JSON.stringify(body),
      });
      await expect.poll(() => handle!.handler.load.pendingRequests).toBe(1);
      controller.abort();
      await expect(pending).rejects.toThrow();
      await expect.poll(() => lastCancel(url)).toBe('The client closed the connection');
    });
  });

  describe('a server that speaks only the stateless era', () => {
    it('answers GET and DELETE with 405', async () => {
      const url = await start({ versions: [STATELESS] });
      for (const method of ['GET', 'DELETE']) {
        const response = await fetch(url, { method, headers: { accept: 'text/event-stream' } });
        expect(response.status).toBe(405);
        expect(response.headers.get('allow')).toBe('POST');
      }
    });

    it('answers initialize with 400 naming its versions, and mints no session', async () => {
      const url = await start({ versions: [STATELESS] });
      const response = await fetch(url, {
        method: 'POST',
        headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 0,
          method: 'initialize',
          params: {
            protocolVersion: '2025-11-25',
            capabilities: {},
            clientInfo: { name: 'old', version: '1' },
          },
        }),
      });
      expect(response.status).toBe(400);
      expect(response.headers.get('mcp-session-id')).toBeNull();
      expect(await response.json()).toMatchObject({
        id: 0,
        error: { code: -32602, data: { supported: [STATELESS], requested: '2025-11-25' } },
      });
    });

    it('serves stateless requests', async () => {
      const url = await start({ versions: [STATELESS] });
      expect(
        text(
          await answer(
            await stateless(url, {
              method: 'tools/call',
              params: { name: 'echo', arguments: { text: 'm' } },
            }),
          ),
        ),
      ).toBe('m');
    });
  });

  it('keeps handshake-era GET and DELETE on a server that speaks both eras', async () => {
    const url = await start();
    const response = await fetch(url, { method: 'DELETE' });
    expect(response.status).toBe(400); // no session id: handshake-era meaning, not 405
  });
});

function headerRecord(headers: Headers): Record<string, string> {
  const record: Record<string, string> = {};
  headers.forEach((value, name) => (record[name] = value));
  return record;
}

/** A toolwire Peer on the client transport, sending raw stateless-era requests. */
async function peerOn(url: string, record: { method: string; headers: Headers; body: string }[] = []) {
  const transport = new StreamableHttpClientTransport({
    url,
    fetch: async (input, init) => {
      record.push({
        method: init?.method ?? 'GET',
        headers: new Headers(init?.headers),
        body: typeof init?.body === 'string' ? init.body : '',
      });
      return fetch(input, init);
    },
  });
  const peer = new Peer({ defaultTimeout: 5000 });
  await peer.connect(transport);
  return { peer, transport, record };
}

describe('Streamable HTTP client transport, stateless era', () => {
  it('sends the request metadata headers, learning x-mcp-header marks from tools/list', async () => {
    const url = await start();
    const { peer, transport, record } = await peerOn(url);
    for (let cursor: unknown; ;) {
      const page = await peer.request('tools/list', { ...(cursor ? { cursor } : {}), _meta: META() });
      cursor = page.nextCursor;
      if (cursor === undefined) break;
    }
    const result = await peer.request('tools/call', {
      name: 'query',
      arguments: { region: ' padded ', limit: 7, dryRun: true, options: { tenant: 'acme' }, sql: 'x' },
      _meta: META(),
    });
    expect(result).toMatchObject({ resultType: 'complete' });
    const call = record.at(-1)!;
    expect(headerRecord(call.headers)).toEqual({
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
      'mcp-protocol-version': STATELESS,
      'mcp-method': 'tools/call',
      'mcp-name': 'query',
      'mcp-param-region': `=?base64?${btoa(' padded ')}?=`,
      'mcp-param-limit': '7',
      'mcp-param-dry-run': 'true',
      'mcp-param-tenant': 'acme',
    });
    await peer.close();
    expect(transport.sessionId).toBeUndefined();
    expect(new Set(record.map((r) => r.method))).toEqual(new Set(['POST'])); // no GET stream, no DELETE
  });

  it('delivers stateless HTTP errors as the request’s JSON-RPC error', async () => {
    const url = await start();
    const { peer } = await peerOn(url);
    const error = await peer
      .request('tools/list', { _meta: META({ 'io.modelcontextprotocol/protocolVersion': '2099-01-01' }) })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error).toMatchObject({ code: -32022, data: { supported: [STATELESS], requested: '2099-01-01' } });
    await expect(peer.request('tools/unknown', { _meta: META() })).rejects.toMatchObject({ code: -32601 });
    await peer.close();
  });

  it('cancels a request by closing its stream, without posting notifications/cancelled', async () => {
    const url = await start({ keepAliveMs: 20 });
    const { peer, record } = await peerOn(url);
    const controller = new AbortController();
    const call = peer.request(
      'tools/call',
      { name: 'wait_for_cancel', arguments: {}, _meta: META() },
      { signal: controller.signal },
    );
    await expect.poll(() => handle!.handler.load.pendingRequests).toBe(1);
    controller.abort();
    await expect(call).rejects.toMatchObject({ code: 'REQUEST_CANCELLED' });
    await expect.poll(() => handle!.handler.load).toEqual({ streams: 0, pendingRequests: 0 });
    const last = await peer.request('tools/call', { name: 'last_cancel', arguments: {}, _meta: META() });
    expect(text({ result: last })).toBe('The client closed the connection');
    expect(record.map((r) => (JSON.parse(r.body) as { method: string }).method)).toEqual([
      'tools/call',
      'tools/call',
    ]);
    await peer.close();
  });
});

describe('toolwire Client over Streamable HTTP, stateless era', () => {
  it('negotiates 2026-07-28 and calls a tool whose parameters travel in Mcp-Param headers', async () => {
    const url = await start();
    const record: { method: string; headers: Headers; body: string }[] = [];
    const client = new Client({ name: 'toolwire-stateless', version: '1' });
    await client.connect(
      new StreamableHttpClientTransport({
        url,
        fetch: async (input, init) => {
          record.push({ method: init?.method ?? 'GET', headers: new Headers(init?.headers), body: '' });
          return fetch(input, init);
        },
      }),
    );
    expect(client.protocolVersion).toBe(STATELESS);
    expect((await client.listTools()).map((t) => t.name)).toContain('query');
    const result = await client.callTool('query', { region: 'eu-west1', limit: 2, sql: 'x' });
    expect(JSON.parse((result.content[0] as { text: string }).text)).toMatchObject({
      region: 'eu-west1',
      limit: 2,
    });
    const call = record.find((r) => r.headers.get('mcp-name') === 'query')!;
    expect(call.headers.get('mcp-param-region')).toBe('eu-west1');
    expect(call.headers.get('mcp-param-limit')).toBe('2');
    await client.close();
    expect(record.every((r) => r.method === 'POST' && !r.headers.has('mcp-session-id'))).toBe(true);
    expect(handle!.handler.sessionCount).toBe(0);
  });
});

describe('FallbackHttpClientTransport and the stateless-era probe', () => {
  it('falls back to initialize when the probe gets no answer in time, closing the probe’s POST', async () => {
    await start();
    let probeClosed = false;
    // A proxy that holds every stateless-era POST and passes the rest to toolwire's handler.
    const forward = toNodeHandler({ handle: (request) => handle!.handler.handle(request) });
    http = createHttpServer((req, res) => {
      if (req.headers['mcp-method'] !== undefined) {
        res.on('close', () => (probeClosed = true));
        return;
      }
      forward(req, res);
    });
    await new Promise<void>((resolve) => http!.listen(0, '127.0.0.1', resolve));
    const proxied = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
    const client = new Client({ name: 'fallback', version: '1' }, { discoverTimeout: 200 });
    const transport = new FallbackHttpClientTransport({ url: proxied });
    await client.connect(transport);
    expect(client.protocolVersion).toBe('2025-11-25');
    expect(transport.kind).toBe('streamable-http');
    expect(probeClosed).toBe(true);
    expect(await client.callTool('echo', { text: 'handshake' })).toMatchObject({
      content: [{ type: 'text', text: 'handshake' }],
    });
    await client.close();
  });
});

describe('stateless era against the official SDK 2.x', () => {
  it.each([['auto'], ['pinned']])(
    'SDK client (%s negotiation) lists and calls tools on toolwire',
    async (mode) => {
      const url = await start();
      const client = new SdkClient(
        { name: 'sdk-stateless', version: '1' },
        { versionNegotiation: { mode: mode === 'auto' ? 'auto' : { pin: STATELESS } } },
      );
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      expect(client.getNegotiatedProtocolVersion()).toBe(STATELESS);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['echo', 'query']));
      expect((await client.callTool({ name: 'echo', arguments: { text: 'über' } })).content).toEqual([
        { type: 'text', text: 'über' },
      ]);
      const query = await client.callTool({
        name: 'query',
        arguments: { region: 'Hello, 世界', limit: 5, sql: 'x' },
      });
      expect(JSON.parse((query.content as { text: string }[])[0]!.text)).toMatchObject({
        region: 'Hello, 世界',
        limit: 5,
      });
      expect(handle!.handler.sessionCount).toBe(0);
      await client.close();
    },
  );

  it('toolwire client transport sends stateless requests an SDK server accepts', async () => {
    const handler = createMcpHandler(() => {
      const server = new McpServer({ name: 'sdk-stateless-server', version: '2.0.0' });
      server.registerTool(
        'query',
        {
          inputSchema: fromJsonSchema(QUERY_SCHEMA as Parameters<typeof fromJsonSchema>[0]),
        },
        async (args) => ({ content: [{ type: 'text', text: JSON.stringify(args) }] }),
      );
      return server as never;
    });
    http = createHttpServer(toNodeHandler({ handle: (request) => handler.fetch(request) }));
    await new Promise<void>((resolve) => http!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
    const { peer, record } = await peerOn(url);
    const discover = await peer.request('server/discover', { _meta: META() });
    expect(discover.supportedVersions).toContain(STATELESS);
    const list = await peer.request('tools/list', { _meta: META() });
    expect((list.tools as { name: string }[]).map((t) => t.name)).toEqual(['query']);
    const result = await peer.request('tools/call', {
      name: 'query',
      arguments: { region: 'Hello, 世界', sql: 'select 1' },
      _meta: META(),
    });
    expect(JSON.parse(text({ result }))).toEqual({ region: 'Hello, 世界', sql: 'select 1' });
    expect(record.at(-1)!.headers.get('mcp-param-region')).toBe('=?base64?SGVsbG8sIOS4lueVjA==?=');
    await expect(peer.request('tools/unknown', { _meta: META() })).rejects.toMatchObject({ code: -32601 });
    await peer.close();
  });
});
