// The HTTP client transports against real servers on 127.0.0.1: the official SDK 1.x Streamable HTTP
// server (JSON and SSE modes, stateful, resumable), the SDK 1.x legacy HTTP+SSE server, and small
// hand-written node:http servers for what the SDK does not do on demand (retry timing, expiry, errors).
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import {
  StreamableHTTPServerTransport,
  type EventStore,
} from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ElicitResultSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { Client, type ClientOptions } from '../src/client/index.js';
import { FIXTURE } from './_setup.js';
import { ProtocolError } from '../src/protocol/index.js';
import type { Server } from '../src/server/index.js';
import { serveHttp } from '../src/transports/http/index.js';
import {
  FallbackHttpClientTransport,
  SseClientTransport,
  StreamableHttpClientTransport,
  TransportError,
} from '../src/transports/http-client/index.js';

// ---------------------------------------------------------------------------------------------
// Fixtures

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void | Promise<void>;

interface HttpFixture {
  /** `http://127.0.0.1:PORT` */
  origin: string;
  seen: Seen[];
  close(): Promise<void>;
}

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((item) => item.close().catch(() => undefined)));
});

async function listen(handler: Handler): Promise<HttpFixture> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body,
        at: performance.now(),
      });
      Promise.resolve(handler(req, res, body)).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500).end(String(error));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const fixture: HttpFixture = {
    origin: `http://127.0.0.1:${port}`,
    seen,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  open.push(fixture);
  return fixture;
}

function track<T extends { close(): Promise<void> }>(item: T): T {
  open.push(item);
  return item;
}

/** A tiny event store: ids `<stream>::<n>`; priming events (empty messages) are never replayed. */
class TestEventStore implements EventStore {
  readonly #events: Array<{ id: string; streamId: string; message: JSONRPCMessage }> = [];

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const id = `${streamId}::${this.#events.length}`;
    this.#events.push({ id, streamId, message });
    return id;
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return this.#events.find((event) => event.id === eventId)?.streamId;
  }

  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const index = this.#events.findIndex((event) => event.id === lastEventId);
    const streamId = this.#events[index]?.streamId ?? '';
    for (const event of this.#events.slice(index + 1)) {
      if (event.streamId === streamId && Object.keys(event.message).length > 0) {
        await send(event.id, event.message);
      }
    }
    return streamId;
  }
}

/** An SDK 1.x McpServer with tools that exercise progress, elicitation, polling and list changes. */
function createSdkServer(): McpServer {
  const server = new McpServer({ name: 'sdk-http', version: '1.0.0' });
  server.registerTool('echo', { inputSchema: { text: z.string() } }, ({ text }) => ({
    content: [{ type: 'text', text }],
  }));
  server.registerTool('slow', { inputSchema: { steps: z.number() } }, async ({ steps }, extra) => {
    for (let step = 1; step <= steps; step++) {
      const progressToken = extra._meta?.progressToken;
      if (progressToken !== undefined) {
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken, progress: step, total: steps },
        });
      }
    }
    return { content: [{ type: 'text', text: `done ${steps}` }] };
  });
  server.registerTool('ask', {}, async (extra) => {
    const answer = await extra.sendRequest(
      {
        method: 'elicitation/create',
        params: {
          message: 'Your name?',
          requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
        },
      },
      ElicitResultSchema,
    );
    return { content: [{ type: 'text', text: `hello ${String(answer.content?.name)}` }] };
  });
  server.registerTool('poll', {}, async (extra) => {
    extra.closeSSEStream?.(); // 2025-11-25 polling: the client must come back with Last-Event-ID
    await sleep(150);
    return { content: [{ type: 'text', text: 'after the poll' }] };
  });
  server.registerTool('add_tool', {}, () => {
    server.registerTool('added', {}, () => ({ content: [] }));
    return { content: [{ type: 'text', text: 'added' }] };
  });
  return server;
}

interface SdkStreamableFixture extends HttpFixture {
  url: string;
  closedSessions: string[];
}

/** The SDK's StreamableHTTPServerTransport, one per session, behind node:http at `/mcp`. */
async function sdkStreamableServer(enableJsonResponse: boolean): Promise<SdkStreamableFixture> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const closedSessions: string[] = [];
  const http = await listen(async (req, res, body) => {
    const sessionId = req.headers['mcp-session-id'];
    let transport = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (!transport) {
      if (sessionId !== undefined || req.method !== 'POST') {
        res.writeHead(sessionId === undefined ? 400 : 404).end();
        return;
      }
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse,
        eventStore: new TestEventStore(),
        retryInterval: 100,
        onsessioninitialized: (id) => void sessions.set(id, created),
        onsessionclosed: (id) => {
          closedSessions.push(id);
          sessions.delete(id);
        },
      });
      await createSdkServer().connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res, body ? (JSON.parse(body) as unknown) : undefined);
  });
  return { ...http, url: `${http.origin}/mcp`, closedSessions };
}

/** The SDK's legacy SSEServerTransport: GET /sse, POST /messages?sessionId=… (anything else 404). */
async function sdkLegacyServer(): Promise<HttpFixture & { url: string }> {
  const sessions = new Map<string, SSEServerTransport>();
  const http = await listen(async (req, res, body) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (req.method === 'GET' && url.pathname === '/sse') {
      const transport = new SSEServerTransport('/messages', res);
      sessions.set(transport.sessionId, transport);
      await createSdkServer().connect(transport);
      return;
    }
    const transport = sessions.get(url.searchParams.get('sessionId') ?? '');
    if (req.method === 'POST' && url.pathname === '/messages' && transport) {
      await transport.handlePostMessage(req, res, JSON.parse(body) as unknown);
      return;
    }
    res.writeHead(404).end('Not Found');
  });
  return { ...http, url: `${http.origin}/sse` };
}

const INIT_RESULT = {
  protocolVersion: '2025-11-25',
  capabilities: { tools: {} },
  serverInfo: { name: 'scripted', version: '1.0.0' },
};

/**
 * A hand-written Streamable HTTP server: answers initialize (JSON, session `s1`), accepts
 * notifications and responses (202), refuses the standalone GET (405) and hands every other
 * request to `script`.
 */
async function scriptedServer(
  script: (req: IncomingMessage, res: ServerResponse, message: { id?: number; method?: string }) => void,
  options: { standalone?: boolean } = {},
): Promise<HttpFixture & { url: string }> {
  const http = await listen((req, res, body) => {
    const message = (body ? JSON.parse(body) : {}) as { id?: number; method?: string };
    if (req.method === 'POST' && message.method === 'initialize') {
      res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's1' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: INIT_RESULT }));
    } else if (req.method === 'POST' && message.id === undefined) {
      res.writeHead(202).end();
    } else if (req.method === 'GET' && !options.standalone && req.headers['last-event-id'] === undefined) {
      res.writeHead(405).end();
    } else if (req.method === 'DELETE') {
      res.writeHead(200).end();
    } else {
      script(req, res, message);
    }
  });
  return { ...http, url: `${http.origin}/mcp` };
}

/** Starts `transport`, recording the errors and the messages it reports. */
async function recordedStart(
  transport: StreamableHttpClientTransport,
): Promise<{ errors: Error[]; messages: unknown[] }> {
  const errors: Error[] = [];
  const messages: unknown[] = [];
  transport.onerror = (error) => errors.push(error);
  transport.onmessage = (message) => messages.push(message);
  await transport.start();
  return { errors, messages };
}

function sseHead(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
}

/** These tests exercise the handshake-era transport, so the client skips the 2026-07-28 probe. */
function connectClient(options: ClientOptions = {}): Client {
  return new Client({ name: 'http-test', version: '1.0.0' }, { protocolVersion: '2025-11-25', ...options });
}

async function until(condition: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for a condition');
    await sleep(10);
  }
}

// ---------------------------------------------------------------------------------------------
// (a) the official SDK Streamable HTTP server

describe('StreamableHttpClientTransport against the SDK 1.x server (SSE responses)', () => {
  it('initializes, sends the session id and negotiated version, lists and calls tools', async () => {
    const server = await sdkStreamableServer(false);
    const transport = new StreamableHttpClientTransport({ url: server.url });
    const client = track(connectClient());
    await client.connect(transport);

    expect(client.protocolVersion).toBe('2025-11-25');
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(transport.protocolVersion).toBe('2025-11-25');
    const tools = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['echo', 'slow', 'ask', 'poll', 'add_tool']);
    const result = await client.callTool('echo', { text: 'hi' });
    expect(result.content).toEqual([{ type: 'text', text: 'hi' }]);

    const [initialize, ...later] = server.seen.filter((seen) => seen.method === 'POST');
    expect(initialize?.headers['mcp-session-id']).toBeUndefined();
    expect(initialize?.headers.accept).toBe('application/json, text/event-stream');
    for (const seen of later) {
      expect(seen.headers['mcp-session-id']).toBe(transport.sessionId);
      expect(seen.headers['mcp-protocol-version']).toBe('2025-11-25');
    }
  });

  it('delivers progress notifications that arrive on the POST stream', async () => {
    const server = await sdkStreamableServer(false);
    const client = track(connectClient());
    await client.connect(new StreamableHttpClientTransport({ url: server.url }));
    const progress: number[] = [];
    const result = await client.callTool(
      'slow',
      { steps: 3 },
      { onProgress: ({ progress: value }) => progress.push(value) },
    );
    expect(progress).toEqual([1, 2, 3]);
    expect(result.content).toEqual([{ type: 'text', text: 'done 3' }]);
  });

  it('answers an elicitation request sent during a call with a new POST', async () => {
    const server = await sdkStreamableServer(false);
    const client = track(
      connectClient({ elicitation: () => ({ action: 'accept', content: { name: 'Ada' } }) }),
    );
    await client.connect(new StreamableHttpClientTransport({ url: server.url }));
    const result = await client.callTool('ask');
    expect(result.content).toEqual([{ type: 'text', text: 'hello Ada' }]);
    const answer = server.seen.find((seen) => seen.body.includes('"action":"accept"'));
    expect(answer?.method).toBe('POST');
  });

  it('resumes a stream the server closed for polling, with Last-Event-ID, after its retry', async () => {
    const server = await sdkStreamableServer(false);
    const client = track(connectClient());
    await client.connect(new StreamableHttpClientTransport({ url: server.url }));
    const result = await client.callTool('poll');
    expect(result.content).toEqual([{ type: 'text', text: 'after the poll' }]);
    const resumed = server.seen.find((seen) => seen.method === 'GET' && seen.headers['last-event-id']);
    expect(resumed?.headers['last-event-id']).toMatch(/::\d+$/);
  });

  it('receives server-initiated notifications on the standalone GET stream', async () => {
    const server = await sdkStreamableServer(false);
    const client = track(connectClient());
    await client.connect(new StreamableHttpClientTransport({ url: server.url }));
    await until(() => server.seen.some((seen) => seen.method === 'GET'));
    const changed = new Promise<string[]>((resolve) =>
      client.onToolsChanged((tools) => resolve(tools.map((tool) => tool.name))),
    );
    await client.callTool('add_tool');
    expect(await changed).toContain('added');
    const get = server.seen.find((seen) => seen.method === 'GET');
    expect(get?.headers.accept).toBe('text/event-stream');
  });

  it('ends the session with a DELETE on close', async () => {
    const server = await sdkStreamableServer(false);
    const transport = new StreamableHttpClientTransport({ url: server.url });
    const client = connectClient();
    await client.connect(transport);
    const sessionId = transport.sessionId;
    let closed = 0;
    transport.onclose = () => closed++;
    await client.close();
    await transport.close();
    expect(server.closedSessions).toEqual([sessionId]);
    const deletes = server.seen.filter((seen) => seen.method === 'DELETE');
    expect(deletes).toHaveLength(1);
    expect(deletes[0]?.headers['mcp-session-id']).toBe(sessionId);
    expect(closed).toBe(1);
  });
});

describe('StreamableHttpClientTransport against the SDK 1.x server (JSON responses)', () => {
  it('initializes, lists and calls tools, and deletes the session on close', async () => {
    const server = await sdkStreamableServer(true);
    const transport = new StreamableHttpClientTransport({ url: server.url });
    const client = connectClient();
    await client.connect(transport);
    expect(await client.listTools()).toHaveLength(5);
    expect((await client.callTool('echo', { text: 'json' })).content).toEqual([
      { type: 'text', text: 'json' },
    ]);
    const sessionId = transport.sessionId;
    await client.close();
    expect(server.closedSessions).toEqual([sessionId]);
  });
});

// ---------------------------------------------------------------------------------------------
// (b) the legacy HTTP+SSE server, and the fallback

describe('FallbackHttpClientTransport', () => {
  it('falls back to HTTP+SSE when the POST gets a 404, and tools work over it', async () => {
    const server = await sdkLegacyServer();
    const transport = new FallbackHttpClientTransport({ url: server.url, headers: { 'x-token': 't' } });
    const client = track(connectClient());
    await client.connect(transport);
    expect(transport.kind).toBe('sse');
    expect((await client.listTools()).map((tool) => tool.name)).toContain('echo');
    expect((await client.callTool('echo', { text: 'legacy' })).content).toEqual([
      { type: 'text', text: 'legacy' },
    ]);
    expect(server.seen.slice(0, 2).map((seen) => `${seen.method} ${seen.url}`)).toEqual([
      'POST /sse',
      'GET /sse',
    ]);
    expect(server.seen.every((seen) => seen.headers['x-token'] === 't')).toBe(true);
  });

  it('keeps Streamable HTTP when the server speaks it', async () => {
    const server = await sdkStreamableServer(false);
    const transport = new FallbackHttpClientTransport({ url: server.url });
    const client = track(connectClient());
    await client.connect(transport);
    expect(transport.kind).toBe('streamable-http');
    expect(transport.sessionId).toBeDefined();
    expect(await client.listTools()).toHaveLength(5);
  });

  it('does not fall back on a 401: connect fails with UNAUTHORIZED and the status', async () => {
    const server = await listen((_req, res) => void res.writeHead(401).end('no token'));
    const client = connectClient();
    await expect(
      client.connect(new FallbackHttpClientTransport({ url: `${server.origin}/mcp` })),
    ).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
      details: { status: 401 },
      message: /HTTP 401.*no token/,
    });
    expect(server.seen.map((seen) => seen.method)).toEqual(['POST']);
  });

  it('names both failures when neither transport answers', async () => {
    const server = await listen((_req, res) => void res.writeHead(404).end());
    const errors: Error[] = [];
    const client = connectClient({ onError: (error) => errors.push(error) });
    await expect(
      client.connect(new FallbackHttpClientTransport({ url: `${server.origin}/mcp` })),
    ).rejects.toThrow(/closed/);
    expect(errors[0]?.message).toMatch(
      /neither a Streamable HTTP endpoint \(POST got HTTP 404\) nor an HTTP\+SSE endpoint/,
    );
    expect(server.seen.map((seen) => seen.method)).toEqual(['POST', 'GET']);
  });
});

describe('SseClientTransport', () => {
  it('refuses an endpoint on another origin', async () => {
    const server = await listen((_req, res) => {
      sseHead(res);
      res.write('event: endpoint\ndata: http://evil.example/messages\n\n');
    });
    const transport = new SseClientTransport({ url: `${server.origin}/sse` });
    await expect(transport.start()).rejects.toThrow(/another origin/);
  });

  it('reports the end of the stream and closes', async () => {
    const server = await listen((req, res) => {
      sseHead(res);
      res.write('event: endpoint\ndata: /messages?sessionId=1\n\n');
      setTimeout(() => res.end(), 20);
    });
    const transport = new SseClientTransport({ url: `${server.origin}/sse` });
    const errors: Error[] = [];
    const closed = new Promise<void>((resolve) => (transport.onclose = resolve));
    transport.onerror = (error) => errors.push(error);
    await transport.start();
    expect(transport.endpoint?.href).toBe(`${server.origin}/messages?sessionId=1`);
    await closed;
    expect(errors[0]).toBeInstanceOf(TransportError);
    expect(errors[0]?.message).toMatch(/ended the SSE stream/);
  });
});

// ---------------------------------------------------------------------------------------------
// (c) hand-written servers for the hard cases

describe('StreamableHttpClientTransport (hand-written servers)', () => {
  it('reconnects after exactly the retry of a priming event, with Last-Event-ID (sse-retry)', async () => {
    let streamEnded = 0;
    let pendingId: number | undefined;
    const server = await scriptedServer((req, res, message) => {
      sseHead(res);
      if (req.method === 'POST') {
        res.write('id: e1\nretry: 500\ndata: \n\n');
        setTimeout(() => {
          streamEnded = performance.now();
          res.end();
        }, 50);
      } else {
        const result = { jsonrpc: '2.0', id: pendingId, result: { tools: [] } };
        res.end(`id: e2\ndata: ${JSON.stringify(result)}\n\n`);
      }
      pendingId ??= message.id;
    });
    const client = track(connectClient());
    // Without the server's retry the client would wait 10 s, so an upper bound of 5× the retry tells them apart.
    await client.connect(
      new StreamableHttpClientTransport({ url: server.url, reconnect: { initialDelayMs: 10_000 } }),
    );
    expect(await client.listTools()).toEqual([]);

    const resumed = server.seen.find((seen) => seen.headers['last-event-id'] !== undefined);
    expect(resumed?.method).toBe('GET');
    expect(resumed?.headers['last-event-id']).toBe('e1');
    expect(resumed?.headers['mcp-session-id']).toBe('s1');
    const delay = (resumed?.at ?? 0) - streamEnded;
    expect(delay).toBeGreaterThanOrEqual(498);
    expect(delay).toBeLessThan(2500);
  });

  it('closes with a sessionExpired error on a 404 to a request that carried the session id', async () => {
    const server = await scriptedServer((_req, res) => void res.writeHead(404).end('gone'));
    const transport = new StreamableHttpClientTransport({ url: server.url });
    const errors: Error[] = [];
    const client = connectClient({ onError: (error) => errors.push(error) });
    const closed = new Promise<void>((resolve) => (client.onclose = resolve));
    await client.connect(transport);
    await expect(client.listTools()).rejects.toThrow(/closed/);
    await closed;
    const expired = errors.find((error) => error instanceof TransportError);
    expect(expired).toMatchObject({
      code: 'CONNECTION_CLOSED',
      details: { status: 404, sessionExpired: true },
    });
    expect(server.seen.some((seen) => seen.method === 'DELETE')).toBe(false);
  });

  it('uses the custom headers and fetch for every request: POST, GET and DELETE', async () => {
    const server = await scriptedServer((_req, res, message) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { tools: [] } }));
    });
    const fetched: string[] = [];
    const transport = new StreamableHttpClientTransport({
      url: server.url,
      headers: async () => ({ authorization: 'Bearer t0k3n' }),
      fetch: (input, init) => {
        fetched.push(init?.method ?? 'GET');
        return fetch(input, init);
      },
    });
    const errors: Error[] = [];
    const client = connectClient({ onError: (error) => errors.push(error) });
    await client.connect(transport);
    await until(() => server.seen.some((seen) => seen.method === 'GET'));
    await client.listTools();
    await client.close();

    expect(fetched).toEqual(['POST', 'POST', 'GET', 'POST', 'DELETE']);
    expect(server.seen.map((seen) => seen.headers.authorization)).toEqual(fetched.map(() => 'Bearer t0k3n'));
    expect(errors).toEqual([]); // the 405 to the GET stream is not an error
  });

  it('delivers a JSON-RPC error that names the request, even on an HTTP error status', async () => {
    const server = await scriptedServer((_req, res, message) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: -32602, message: 'bad' } }));
    });
    const client = track(connectClient());
    await client.connect(new StreamableHttpClientTransport({ url: server.url }));
    const error = await client.callTool('x').catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error).toMatchObject({ code: -32602, message: 'bad' });
  });

  it('reports a -32700 for an answer that is not JSON, and goes on with the messages that are', async () => {
    const server = await scriptedServer((_req, res, message) => {
      if (message.method === 'tools/list') {
        sseHead(res);
        const answer = { jsonrpc: '2.0', id: message.id, result: { tools: [] } };
        res.end(`data: {not json\n\ndata: ${JSON.stringify(answer)}\n\n`);
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"jsonrpc": "2.0", "id": ');
      }
    });
    const transport = track(new StreamableHttpClientTransport({ url: server.url }));
    const { errors, messages } = await recordedStart(transport);
    await transport.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    await vi.waitFor(() => expect(messages).toHaveLength(1), { timeout: 10_000 });
    expect(messages[0]).toMatchObject({ id: 1, result: { tools: [] } });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(ProtocolError);
    expect(errors[0]).toMatchObject({ code: -32700 });
    await transport.send({ jsonrpc: '2.0', id: 2, method: 'tools/call' }).catch(() => undefined);
    await vi.waitFor(() => expect(errors).toHaveLength(2), { timeout: 10_000 });
    expect(errors[1]).toMatchObject({
      code: -32700,
      message: expect.stringMatching(/^Parse error/) as string,
    });
  });

  it('reports a -32700 for a million-deep answer, JSON or SSE, without parsing it', async () => {
    const deep = `${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}`;
    const server = await scriptedServer((_req, res, message) => {
      if (message.method === 'tools/list') {
        sseHead(res);
        const answer = { jsonrpc: '2.0', id: message.id, result: { tools: [] } };
        res.end(`data: ${deep}\n\ndata: ${JSON.stringify(answer)}\n\n`);
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(deep);
      }
    });
    const transport = track(new StreamableHttpClientTransport({ url: server.url }));
    const { errors, messages } = await recordedStart(transport);
    await transport.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    await vi.waitFor(() => expect(messages).toHaveLength(1), { timeout: 10_000 });
    expect(messages[0]).toMatchObject({ id: 1, result: { tools: [] } });
    await transport.send({ jsonrpc: '2.0', id: 2, method: 'tools/call' }).catch(() => undefined);
    await vi.waitFor(() => expect(errors).toHaveLength(2), { timeout: 10_000 });
    for (const error of errors) {
      expect(error).toBeInstanceOf(ProtocolError);
      expect(error).toMatchObject({
        code: -32700,
        message: 'Parse error: JSON nested deeper than 1024 levels',
      });
    }
  });

  it('fails the request a too-deep answer names at once, JSON or SSE, not at its timeout', async () => {
    const deep = `${'{"x":'.repeat(100_000)}{}${'}'.repeat(100_000)}`;
    let calls = 0;
    const server = await scriptedServer((_req, res, message) => {
      const text = `{"jsonrpc":"2.0","result":{"tools":[{"name":"t","inputSchema":${deep}}]},"id":${message.id}}`;
      if (calls++ % 2 === 0) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(text);
      } else {
        sseHead(res);
        res.end(`data: ${text}\n\n`);
      }
    });
    const client = connectClient({ requestTimeout: 60_000 });
    await client.connect(track(new StreamableHttpClientTransport({ url: server.url })));
    for (let i = 0; i < 2; i++) {
      const started = Date.now();
      await expect(client.listTools()).rejects.toMatchObject({
        code: -32700,
        message: expect.stringMatching(
          /^The answer to request \d+ was refused unparsed: JSON nested deeper than 1024 levels$/,
        ) as string,
      });
      expect(Date.now() - started).toBeLessThan(30_000); // the request timeout is 60 s
    }
    await client.close();
  });

  it('rejects send with the status and a body excerpt on other HTTP errors', async () => {
    const server = await scriptedServer((_req, res) => void res.writeHead(500).end('database\n  on fire'));
    const transport = track(new StreamableHttpClientTransport({ url: server.url }));
    await transport.start();
    const error = await transport
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/list' })
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(TransportError);
    expect(error).toMatchObject({ code: 'SEND_FAILED', details: { status: 500, body: 'database on fire' } });
    expect((error as Error).message).toMatch(/HTTP 500 Internal Server Error: database on fire/);
  });

  it('reopens the standalone GET stream with Last-Event-ID when the server ends it', async () => {
    const server = await scriptedServer(
      (req, res, message) => {
        if (req.method === 'POST') {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { tools: [] } }));
          return;
        }
        sseHead(res);
        if (req.headers['last-event-id'] === undefined) {
          const changed = { jsonrpc: '2.0', method: 'notifications/tools/list_changed' };
          res.end(`retry: 50\nid: g1\ndata: ${JSON.stringify(changed)}\n\n`);
        } else {
          res.write(': holding the stream open\n\n');
        }
      },
      { standalone: true },
    );
    const client = track(connectClient());
    let notified = 0;
    client.onToolsChanged(() => notified++);
    await client.connect(new StreamableHttpClientTransport({ url: server.url }));
    await until(() => server.seen.some((seen) => seen.headers['last-event-id'] === 'g1'));
    const gets = server.seen.filter((seen) => seen.method === 'GET');
    expect(gets.map((seen) => seen.headers['last-event-id'])).toEqual([undefined, 'g1']);
    expect((gets[1]?.at ?? 0) - (gets[0]?.at ?? 0)).toBeGreaterThanOrEqual(45);
    await until(() => notified > 0); // the notification made the client list the tools again
  });

  it('fails a request at once when its stream ends without an event id to resume from', async () => {
    const server = await scriptedServer((_req, res) => {
      sseHead(res);
      res.end(': nothing to see\n\n');
    });
    const errors: Error[] = [];
    const client = track(connectClient({ onError: (error) => errors.push(error) }));
    await client.connect(new StreamableHttpClientTransport({ url: server.url }));
    await expect(client.listTools()).rejects.toThrow(/was lost: the server ended it before the response/);
    expect(errors[0]).toMatchObject({ code: 'CONNECTION_CLOSED' });
  });
});

// ---------------------------------------------------------------------------------------------
// toolwire's own HTTP server, and the CLI with a URL target

describe('toolwire client and toolwire HTTP server', () => {
  it('connect, list and call over Streamable HTTP', async () => {
    const fixture = (await import(FIXTURE)) as { default: () => Server };
    const http = track(await serveHttp(fixture.default(), { port: 0 }));
    const transport = new FallbackHttpClientTransport({ url: http.url });
    const client = track(connectClient());
    await client.connect(transport);
    expect(transport.kind).toBe('streamable-http');
    expect((await client.listTools()).map((tool) => tool.name)).toContain('echo');
    expect((await client.callTool('echo', { text: 'round trip' })).content).toEqual([
      { type: 'text', text: 'round trip' },
    ]);
  });
});

const BIN = fileURLToPath(new URL('../bin/toolwire.mjs', import.meta.url));

function runCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('toolwire tools / call with a URL', () => {
  it('lists the tools of a Streamable HTTP server, sending --header on every request', async () => {
    const server = await sdkStreamableServer(false);
    const result = await runCli(['tools', '--header', 'X-Api-Key: k1', '--header', 'X-Two:2', server.url]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^sdk-http 1\.0\.0 \(protocol 2025-11-25\): 5 tools/);
    expect(server.seen.length).toBeGreaterThan(2);
    for (const seen of server.seen) {
      expect(seen.headers['x-api-key']).toBe('k1');
      expect(seen.headers['x-two']).toBe('2');
    }
  });

  it('calls a tool on a legacy HTTP+SSE server', async () => {
    const server = await sdkLegacyServer();
    const result = await runCli(['call', '--tool', 'echo', 'text=over sse', server.url]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('over sse\n');
  });

  it('exits 4 naming the URL and the cause when nothing listens', async () => {
    const server = await listen(() => undefined);
    await server.close();
    const result = await runCli(['tools', `${server.origin}/mcp`]);
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(/could not connect to http:\/\/127\.0\.0\.1:\d+\/mcp: .*ECONNREFUSED/);
  });

  it('exits 2 for a URL together with a command, --header without a URL, or a bad header', async () => {
    const both = await runCli(['tools', 'http://127.0.0.1:9/mcp', '--', 'node']);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/either a server URL or "-- <command\.\.\.>"/);
    const header = await runCli(['tools', '--header', 'A: b', '--', 'node']);
    expect(header.code).toBe(2);
    expect(header.stderr).toMatch(/--header applies only to a server URL/);
    const bad = await runCli(['tools', '--header', 'no colon', 'http://127.0.0.1:9/mcp']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--header must look like "Name: value"/);
  });
});
