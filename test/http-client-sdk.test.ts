// The HTTP client transports against the official SDK 1.x servers on 127.0.0.1: Streamable HTTP (SSE
// and JSON responses, resumable), the fallback to legacy HTTP+SSE, the SSE client transport, toolwire's
// own client and HTTP server, and the CLI's `tools` / `call` with a server URL.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { FIXTURE } from './_setup.js';
import type { Server } from '../src/server/index.js';
import { serveHttp } from '../src/transports/http/index.js';
import {
  FallbackHttpClientTransport,
  SseClientTransport,
  StreamableHttpClientTransport,
  TransportError,
} from '../src/transports/http-client/index.js';
import {
  closeAll,
  connectClient,
  listen,
  sdkLegacyServer,
  sdkStreamableServer,
  sseHead,
  track,
  until,
} from './_http-client.js';

afterEach(closeAll);

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

  it('has the GET stream open when connect() resolves: a request the server sends on it at once is answered', async () => {
    // The server answers GET 300 ms late and asks on that stream as soon as the call arrives (the SDK
    // drops a message for a stream that is not open yet): the call is made the moment connect() resolves.
    const server = await sdkStreamableServer(false, { getDelayMs: 300, askOnGet: true });
    const client = track(
      connectClient({
        elicitation: () => ({ action: 'accept', content: { name: 'Ada' } }),
        requestTimeout: 5000,
      }),
    );
    await client.connect(new StreamableHttpClientTransport({ url: server.url }));
    const result = await client.callTool('ask_on_get');
    expect(result.content).toEqual([{ type: 'text', text: 'hello Ada' }]);
    const get = server.seen.findIndex((seen) => seen.method === 'GET');
    const call = server.seen.findIndex((seen) => seen.body.includes('"tools/call"'));
    expect(get).toBeGreaterThanOrEqual(0);
    expect(call).toBeGreaterThan(get);
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
    // The connect rejects with the transport's own error (it said only "The connection closed" before).
    const failure = await client
      .connect(new FallbackHttpClientTransport({ url: `${server.origin}/mcp` }))
      .then(
        () => undefined,
        (reason: unknown) => reason,
      );
    expect((failure as Error).message).toMatch(
      /neither a Streamable HTTP endpoint \(POST got HTTP 404\) nor an HTTP\+SSE endpoint/,
    );
    expect(errors).toEqual([failure]);
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
