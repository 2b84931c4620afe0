// Fixtures for the HTTP client transport tests (test/http-client-*.test.ts): node:http servers on
// 127.0.0.1 that record what they receive and are closed after each test, the official SDK 1.x
// Streamable HTTP server (JSON and SSE modes, stateful, resumable) and legacy HTTP+SSE server, and a
// handshake-era client.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import {
  StreamableHTTPServerTransport,
  type EventStore,
} from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ElicitResultSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { Client, type ClientOptions } from '../src/client/index.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void | Promise<void>;

export interface HttpFixture {
  /** `http://127.0.0.1:PORT` */
  origin: string;
  seen: Seen[];
  close(): Promise<void>;
}

const open: Array<{ close(): Promise<void> }> = [];

/** Closes every fixture `listen` and `track` opened; each test file runs it `afterEach`. */
export async function closeAll(): Promise<void> {
  await Promise.all(open.splice(0).map((item) => item.close().catch(() => undefined)));
}

export async function listen(handler: Handler): Promise<HttpFixture> {
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

export function track<T extends { close(): Promise<void> }>(item: T): T {
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

/** The question the SDK server's `ask` tools ask. */
const ASK_NAME = {
  method: 'elicitation/create' as const,
  params: {
    message: 'Your name?',
    requestedSchema: { type: 'object' as const, properties: { name: { type: 'string' as const } } },
  },
};

/** An SDK 1.x McpServer with tools that exercise progress, elicitation, polling and list changes. */
function createSdkServer({ askOnGet = false } = {}): McpServer {
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
    const answer = await extra.sendRequest(ASK_NAME, ElicitResultSchema);
    return { content: [{ type: 'text', text: `hello ${String(answer.content?.name)}` }] };
  });
  // Asked on the standalone GET stream (no related request), as the conformance suite's servers do: lost
  // when that stream is not open yet.
  if (askOnGet) {
    server.registerTool('ask_on_get', {}, async () => {
      const answer = await server.server.request(ASK_NAME, ElicitResultSchema);
      return { content: [{ type: 'text', text: `hello ${String(answer.content?.name)}` }] };
    });
    // Reports progress once, then waits until it is cancelled.
    server.registerTool('hold', {}, async (extra) => {
      const progressToken = extra._meta?.progressToken;
      if (progressToken !== undefined)
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken, progress: 1 },
        });
      await new Promise((resolve) => extra.signal.addEventListener('abort', resolve, { once: true }));
      return { content: [{ type: 'text', text: 'released' }] };
    });
  }
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

/**
 * The SDK's StreamableHTTPServerTransport, one per session, behind node:http at `/mcp`; `getDelayMs`
 * holds each GET that long before the SDK answers it, and `askOnGet` adds the tools `ask_on_get` and `hold`
 * (progress once, then it waits until cancelled).
 */
export async function sdkStreamableServer(
  enableJsonResponse: boolean,
  { getDelayMs = 0, askOnGet = false }: { getDelayMs?: number; askOnGet?: boolean } = {},
): Promise<SdkStreamableFixture> {
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
      await createSdkServer({ askOnGet }).connect(created);
      transport = created;
    }
    if (req.method === 'GET' && getDelayMs > 0) await sleep(getDelayMs);
    await transport.handleRequest(req, res, body ? (JSON.parse(body) as unknown) : undefined);
  });
  return { ...http, url: `${http.origin}/mcp`, closedSessions };
}

/** The SDK's legacy SSEServerTransport: GET /sse, POST /messages?sessionId=… (anything else 404). */
export async function sdkLegacyServer(): Promise<HttpFixture & { url: string }> {
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

export function sseHead(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
}

/** These tests exercise the handshake-era transport, so the client skips the 2026-07-28 probe. */
export function connectClient(options: ClientOptions = {}): Client {
  return new Client({ name: 'http-test', version: '1.0.0' }, { protocolVersion: '2025-11-25', ...options });
}

/**
 * Resolves once `condition()` holds, checked every 10 ms; fails after `timeoutMs`. 10 s by default, as
 * `expect.poll` (vitest.config.ts): what it waits for is an event, and 3 s was short for a busy machine.
 */
export async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for a condition');
    await sleep(10);
  }
}
