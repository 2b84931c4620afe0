// The client's fallback to the legacy HTTP+SSE transport (2024-11-05), against a scripted node:http
// server: POST /sse gets 405, GET /sse opens a session's stream (its first event names
// /messages?sessionId=N), and each session's messages are answered on its stream.
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import { HANDSHAKE_REVISIONS } from '../src/protocol/revisions/index.js';
import { Server, text } from '../src/server/index.js';
import { serveHttp } from '../src/transports/http/index.js';
import { FallbackHttpClientTransport, SseClientTransport } from '../src/transports/http-client/index.js';
import { closeAll, listen, sseHead, track, until, type HttpFixture } from './_http-client.js';

afterEach(closeAll);

interface Message {
  id?: number;
  method?: string;
}

interface LegacySession {
  res: ServerResponse;
  /** What the client POSTed to this session, in order. */
  received: Message[];
  initialized: boolean;
}

interface LegacyServer extends HttpFixture {
  url: string;
  /** Every session by id, open or not. */
  sessions: Map<string, LegacySession>;
  /** The ids of the sessions whose GET stream is still open. */
  open: Set<string>;
}

/**
 * `beforeInit`: what a session does with a request that comes before its `initialize`: answer it with
 * -32601 on the stream, refuse the POST with 400, or end the session's stream.
 */
async function legacyServer(beforeInit: 'answer' | 'refuse' | 'end-stream'): Promise<LegacyServer> {
  const sessions = new Map<string, LegacySession>();
  const open = new Set<string>();
  const send = (session: LegacySession, message: object) =>
    session.res.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', ...message })}\n\n`);
  const http = await listen((req, res, body) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === '/sse' && req.method === 'GET') {
      const id = String(sessions.size + 1);
      sessions.set(id, { res, received: [], initialized: false });
      open.add(id);
      res.on('close', () => open.delete(id));
      sseHead(res);
      res.write(`event: endpoint\ndata: /messages?sessionId=${id}\n\n`);
      return;
    }
    const session = sessions.get(url.searchParams.get('sessionId') ?? '');
    if (url.pathname !== '/messages' || req.method !== 'POST' || !session) {
      return void res.writeHead(url.pathname === '/sse' ? 405 : 404).end();
    }
    const message = JSON.parse(body) as Message;
    session.received.push(message);
    if (message.method !== 'initialize' && !session.initialized && message.id !== undefined) {
      if (beforeInit === 'refuse') return void res.writeHead(400).end('Bad Request: not initialized');
      res.writeHead(202).end('Accepted');
      if (beforeInit === 'end-stream') return void session.res.end();
      return void send(session, { id: message.id, error: { code: -32601, message: 'Not initialized' } });
    }
    res.writeHead(202).end('Accepted');
    if (message.method === 'initialize') {
      session.initialized = true;
      const serverInfo = { name: 'legacy', version: '1' };
      send(session, {
        id: message.id,
        result: { protocolVersion: '2024-11-05', capabilities: { tools: {} }, serverInfo },
      });
    } else if (message.method === 'tools/list') {
      send(session, { id: message.id, result: { tools: [{ name: 't', inputSchema: { type: 'object' } }] } });
    }
  });
  return { ...http, url: `${http.origin}/sse`, sessions, open };
}

describe('FallbackHttpClientTransport, the transports it gives up on', () => {
  it('leaves no HTTP+SSE stream open but the one in use, and closes that one on close()', async () => {
    const server = await legacyServer('refuse');
    const client = track(new Client({ name: 'fallback', version: '1' }));
    let closed = false;
    client.onclose = () => (closed = true);
    const transport = new FallbackHttpClientTransport({ url: server.url });
    await client.connect(transport);
    expect([client.era, transport.kind]).toEqual(['handshake', 'sse']);
    // Only the session that shook hands keeps its stream: any other was given up on, and closed.
    await until(() => server.open.size === 1);
    const [live] = server.open;
    expect(server.sessions.get(live!)?.initialized).toBe(true);
    expect((await client.listTools()).map((tool) => tool.name)).toEqual(['t']);
    expect(closed).toBe(false);
    await client.close();
    await until(() => server.open.size === 0);
  });
});

describe('FallbackHttpClientTransport, an HTTP+SSE server met in auto mode', () => {
  it.each([['answer'], ['refuse'], ['end-stream']] as const)(
    'sends initialize first, never the stateless-era probe (server that does %s before initialize)',
    async (beforeInit) => {
      const server = await legacyServer(beforeInit);
      const client = track(new Client({ name: 'fallback', version: '1' }));
      const transport = new FallbackHttpClientTransport({ url: server.url });
      await client.connect(transport);
      expect([client.era, client.protocolVersion, transport.kind]).toEqual([
        'handshake',
        '2024-11-05',
        'sse',
      ]);
      expect((await client.listTools()).map((tool) => tool.name)).toEqual(['t']);
      // One session, and initialize its first message: the probe went no further than the POST to /sse.
      expect([...server.sessions.keys()]).toEqual(['1']);
      expect(server.sessions.get('1')?.received.map((message) => message.method)).toEqual([
        'initialize',
        'notifications/initialized',
        'tools/list',
      ]);
      expect(
        server.seen.filter((seen) => seen.body.includes('server/discover')).map((seen) => seen.url),
      ).toEqual(['/sse']);
    },
  );

  it("speaks a handshake-era revision over a toolwire server's legacy /sse endpoint", async () => {
    const server = new Server({ name: 'legacy-endpoint', version: '1' });
    server.tool('echo', { description: 'Echoes' }, () => text('echoed'));
    const http = track(await serveHttp(server, { port: 0 }));
    const client = track(new Client({ name: 'fallback', version: '1' }));
    const transport = new FallbackHttpClientTransport({ url: new URL('/sse', http.url).href });
    await client.connect(transport);
    expect([client.era, transport.kind]).toEqual(['handshake', 'sse']);
    expect(HANDSHAKE_REVISIONS).toContain(client.protocolVersion);
    expect(await client.callTool('echo', {})).toMatchObject({ content: [{ type: 'text', text: 'echoed' }] });
  });

  it('fails a pinned stateless-era connect over HTTP+SSE without sending the discover', async () => {
    const server = await legacyServer('answer');
    const client = new Client({ name: 'fallback', version: '1' }, { protocolVersion: '2026-07-28' });
    const transport = new FallbackHttpClientTransport({ url: server.url });
    await expect(client.connect(transport)).rejects.toMatchObject({
      code: 'SEND_FAILED',
      message: /legacy HTTP\+SSE \(2024-11-05\) endpoint, where initialize comes first/,
    });
    expect(server.sessions.get('1')?.received).toEqual([]);
    await until(() => server.open.size === 0);
  });
});

describe('SseClientTransport, a GET /sse never answered', () => {
  /** Accepts GET /sse and never answers it (POST /sse gets 405); `closed` once the client gave up on it. */
  async function silentServer(): Promise<HttpFixture & { url: string; closed: () => boolean }> {
    let closed = false;
    const http = await listen((req, res) => {
      if (req.method !== 'GET') return void res.writeHead(405).end();
      res.on('close', () => (closed = true));
    });
    return { ...http, url: `${http.origin}/sse`, closed: () => closed };
  }

  it('start() rejects at endpointTimeoutMs, and the GET is given up', async () => {
    const server = await silentServer();
    const transport = new SseClientTransport({ url: server.url, endpointTimeoutMs: 200 });
    const started = performance.now();
    await expect(transport.start()).rejects.toMatchObject({
      code: 'CONNECTION_CLOSED',
      message: /no "endpoint" event within 200 ms/,
    });
    expect(performance.now() - started).toBeLessThan(3000);
    await until(server.closed);
  });

  it('the fallback connect fails at endpointTimeoutMs, not at the initialize timeout', async () => {
    const server = await silentServer();
    const errors: Error[] = [];
    const client = new Client(
      { name: 'fallback', version: '1' },
      { protocolVersion: '2025-11-25', onError: (error) => errors.push(error) },
    );
    const transport = new FallbackHttpClientTransport({ url: server.url, endpointTimeoutMs: 200 });
    const started = performance.now();
    await expect(client.connect(transport, { timeout: 10_000 })).rejects.toMatchObject({
      code: 'CONNECTION_CLOSED',
    });
    expect(errors[0]?.message).toMatch(
      /neither a Streamable HTTP endpoint \(POST got HTTP 405\) nor an HTTP\+SSE endpoint .*no "endpoint" event within 200 ms/,
    );
    expect(performance.now() - started).toBeLessThan(3000);
    await until(server.closed);
  });
});
