// The stateless era (2026-07-28) over Streamable HTTP from the client side: toolwire's client transport
// (the request metadata headers it sends, HTTP errors, cancellation by closing the stream), toolwire's
// Client, the fallback when the stateless-era probe gets no answer, and both ends against the official
// SDK 2.x.
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client as SdkClient, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { McpServer, createMcpHandler, fromJsonSchema } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import { Peer } from '../src/protocol/engine/peer.js';
import { ProtocolError } from '../src/protocol/errors.js';
import { toNodeHandler } from '../src/transports/http/index.js';
import {
  FallbackHttpClientTransport,
  StreamableHttpClientTransport,
} from '../src/transports/http-client/index.js';
import { META, STATELESS, closeServer, handle, start, text } from './_http-stateless.js';

let http: HttpServer | undefined;
afterEach(async () => {
  await closeServer();
  http?.closeAllConnections();
  await new Promise((resolve) => (http ? http.close(resolve) : resolve(undefined)));
  http = undefined;
});

/** An SDK server's tool whose `region` is mirrored into `Mcp-Param-Region`. */
const QUERY_SCHEMA = {
  type: 'object',
  properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, sql: { type: 'string' } },
  required: ['region', 'sql'],
};

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

describe('x-mcp-header of a tool the client has not listed', () => {
  it('lists the tools after a HeaderMismatch and sends the call again, once, with its Mcp-Param headers', async () => {
    const url = await start();
    const posts: { method: string; region: string | null; status: number }[] = [];
    const client = new Client({ name: 'toolwire-stateless', version: '1' });
    await client.connect(
      new StreamableHttpClientTransport({
        url,
        fetch: async (input, init) => {
          const response = await fetch(input, init);
          const headers = new Headers(init?.headers);
          const method = headers.get('mcp-method') ?? '';
          posts.push({ method, region: headers.get('mcp-param-region'), status: response.status });
          return response;
        },
      }),
    );
    posts.length = 0; // what connecting sent
    const result = await client.callTool('query', { region: 'eu-west1', sql: 'x' });
    expect(JSON.parse((result.content[0] as { text: string }).text)).toMatchObject({ region: 'eu-west1' });
    const listed = posts.filter((post) => post.method === 'tools/list');
    expect(listed.length).toBeGreaterThan(0); // the pages up to the tool's
    expect(posts).toEqual([
      { method: 'tools/call', region: null, status: 400 },
      ...listed.map(() => ({ method: 'tools/list', region: null, status: 200 })),
      { method: 'tools/call', region: 'eu-west1', status: 200 },
    ]);
    // Learnt: the next call goes out with its header at once.
    posts.length = 0;
    await client.callTool('query', { region: 'us-east1', sql: 'y' });
    expect(posts).toEqual([{ method: 'tools/call', region: 'us-east1', status: 200 }]);
    await client.close();
  });

  it('sends the call once more at most, and then answers with the HeaderMismatch', async () => {
    const url = await start();
    let calls = 0;
    const client = new Client({ name: 'toolwire-stateless', version: '1' });
    await client.connect(
      new StreamableHttpClientTransport({
        url,
        fetch: async (input, init) => {
          const headers = new Headers(init?.headers);
          if (headers.get('mcp-method') === 'tools/call') {
            calls++;
            headers.set('mcp-param-region', 'somewhere-else'); // a proxy that rewrites the header
          }
          return fetch(input, { ...init, headers });
        },
      }),
    );
    const error = await client.callTool('query', { region: 'eu-west1', sql: 'x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error).toMatchObject({ code: -32020, message: expect.stringContaining('Mcp-Param-Region') });
    expect(calls).toBe(2);
    // The schema it lists unchanged (the headers would be the same), a refused call is not sent again.
    await client.callTool('query', { region: 'eu-west1', sql: 'x' }).catch(() => undefined);
    expect(calls).toBe(3);
    await client.close();
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
