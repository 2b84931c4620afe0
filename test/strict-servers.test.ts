// `auto` mode against stdio servers stricter than the spec's suggestion (the 2025 lifecycle lets a server
// refuse any request before `initialize`): one exits on the stateless era's probe, one never answers it.
// Both connect in well under discoverTimeout (5 s), through the library and the CLI; a stateless-era
// server that is slow to start still gets the stateless era, and no handshake-era session.
import { execFile } from 'node:child_process';
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server as HttpServer,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Client, type ClientOptions } from '../src/client/index.js';
import type { JsonObject } from '../src/protocol/jsonrpc.js';
import { Server, text } from '../src/server/index.js';
import { serveHttp, toNodeHandler, type HttpServerHandle } from '../src/transports/http/index.js';
import { FallbackHttpClientTransport } from '../src/transports/http-client/index.js';
import { StdioClientTransport } from '../src/transports/stdio/index.js';
import { serverCommand } from './_setup.js';

const STRICT = fileURLToPath(new URL('./fixtures/strict-server.mjs', import.meta.url));
const SLOW = fileURLToPath(new URL('./fixtures/slow-start-server.mjs', import.meta.url));
const BIN = fileURLToPath(new URL('../bin/toolwire.mjs', import.meta.url));
const VERSION = 'io.modelcontextprotocol/protocolVersion';
/**
 * The most a connect to a strict server may take: a node process or two starting on a loaded 2-core
 * machine, plus the probe's 300 ms of patience — and far below the 5 s discoverTimeout it took before.
 */
const FAST_MS = 2_500;

/** One JSON-RPC message as it crossed the wire. */
interface Message {
  id?: string | number;
  method?: string;
  params?: JsonObject;
  error?: JsonObject;
}

interface Wire {
  out: Message[];
  in: Message[];
}

/** The stateless-era version a message's `_meta` names, if any. */
const metaVersion = (message: Message | undefined) =>
  (message?.params?._meta as JsonObject | undefined)?.[VERSION];

/** Records what crosses the transport (outgoing as sent, incoming as parsed). */
function record(transport: StdioClientTransport): Wire {
  const wire: Wire = { out: [], in: [] };
  const send = transport.send.bind(transport);
  transport.send = (message) => {
    wire.out.push(message as Message);
    return send(message);
  };
  let listener: ((message: unknown) => void) | undefined;
  Object.defineProperty(transport, 'onmessage', {
    get: () => listener,
    set: (next: ((message: unknown) => void) | undefined) => {
      listener =
        next &&
        ((message) => {
          wire.in.push(message as Message);
          next(message);
        });
    },
  });
  return wire;
}

async function connect(
  command: { command: string; args: string[] },
  env: Record<string, string> = {},
  options: ClientOptions = {},
) {
  const transport = new StdioClientTransport({ ...command, env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const wire = record(transport);
  const errors: Error[] = [];
  const client = new Client(
    { name: 'strict-test', version: '1' },
    { onError: (e) => errors.push(e), ...options },
  );
  const started = performance.now();
  await client.connect(transport);
  const elapsed = performance.now() - started;
  return {
    client,
    transport,
    wire,
    errors,
    elapsed,
    stderr: () => stderr,
    methods: () => wire.out.map((m) => m.method ?? 'response'),
    [Symbol.asyncDispose]: () => client.close(),
  };
}

const strict = (mode: 'exit' | 'ignore') => ({ command: process.execPath, args: [STRICT, mode] });
const textOf = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;

describe('auto mode against a server that exits on any request before initialize', () => {
  it('starts it again and shakes hands with the new process, in well under discoverTimeout', async () => {
    await using c = await connect(strict('exit'));
    expect(c.elapsed).toBeLessThan(FAST_MS);
    expect([c.client.era, c.client.protocolVersion, c.client.serverInfo?.name]).toEqual([
      'handshake',
      '2025-11-25',
      'strict-fixture',
    ]);
    expect(textOf(await c.client.callTool('add', { a: 2, b: 3 }))).toBe('5');
    // The first process got the probe and exited; the second got a plain initialize first.
    expect(c.stderr()).toContain('strict-server: server/discover before initialize, exiting');
    const second = c.wire.out.findLastIndex((m) => m.method === 'initialize');
    expect(c.wire.out[second]?.params).not.toHaveProperty('_meta');
    expect(c.methods().slice(second)).toEqual(['initialize', 'notifications/initialized', 'tools/call']);
    expect(c.methods()[0]).toBe('server/discover');
    // The exit it recovered from is no error of the connection.
    expect(c.errors).toEqual([]);
  });

  it('restarts only once: a server that dies at every start fails connect with CONNECTION_CLOSED', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['-e', 'process.stdin.once("data", () => process.exit(3))'],
      stderr: 'ignore',
    });
    const client = new Client({ name: 'strict-test', version: '1' });
    const started = performance.now();
    await expect(client.connect(transport)).rejects.toMatchObject({ code: 'CONNECTION_CLOSED' });
    expect(performance.now() - started).toBeLessThan(FAST_MS);
    expect(transport.exitStatus).toEqual({ code: 3, signal: null });
  });

  it('does not restart a server that exits after the probe was answered: connect fails at once', async () => {
    // Answers the probe with -32601, then exits on the initialize.
    const script = `require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
      const { id, method } = JSON.parse(line);
      if (method !== 'server/discover') process.exit(5);
      process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32601, message: 'no' } }) + '\\n');
    });`;
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['-e', script],
      stderr: 'ignore',
    });
    const first = new Promise<number | undefined>((resolve) => {
      const start = transport.start.bind(transport);
      transport.start = async () => {
        await start();
        resolve(transport.pid);
      };
    });
    const client = new Client({ name: 'strict-test', version: '1' });
    const started = performance.now();
    await expect(client.connect(transport)).rejects.toMatchObject({ code: 'CONNECTION_CLOSED' });
    expect(performance.now() - started).toBeLessThan(FAST_MS);
    expect(transport.exitStatus).toEqual({ code: 5, signal: null });
    expect(transport.pid).toBe(await first);
  });

  it('copes with a slow start too (the probe and the marked initialize both die with the first process)', async () => {
    await using c = await connect(strict('exit'), { STRICT_START_DELAY_MS: '700' });
    expect([c.client.era, c.client.protocolVersion]).toEqual(['handshake', '2025-11-25']);
    expect(c.methods().slice(0, 2)).toEqual(['server/discover', 'initialize']);
    expect(textOf(await c.client.callTool('echo', { text: 'late' }))).toBe('late');
  });
});

describe('auto mode against a server that never answers a request before initialize', () => {
  it('sends an initialize after a short wait and speaks the handshake era, in well under discoverTimeout', async () => {
    await using c = await connect(strict('ignore'));
    expect(c.elapsed).toBeLessThan(FAST_MS);
    expect([c.client.era, c.client.protocolVersion, c.client.serverInfo?.name]).toEqual([
      'handshake',
      '2025-11-25',
      'strict-fixture',
    ]);
    expect(textOf(await c.client.callTool('echo', { text: 'hi' }))).toBe('hi');
    // One process; the probe is cancelled once the handshake is done.
    expect(c.methods()).toEqual([
      'server/discover',
      'initialize',
      'notifications/initialized',
      'notifications/cancelled',
      'tools/call',
    ]);
    const [discover, initialize, , cancelled] = c.wire.out;
    expect(metaVersion(initialize)).toBe('2026-07-28');
    expect(cancelled?.params).toMatchObject({ requestId: discover?.id });
  });

  it('waits for the whole discoverTimeout when asked to (no early initialize at or above it)', async () => {
    await using c = await connect(strict('ignore'), {}, { discoverTimeout: 200 });
    expect(c.client.era).toBe('handshake');
    expect(c.methods().slice(0, 3)).toEqual(['server/discover', 'notifications/cancelled', 'initialize']);
  });
});

describe('auto mode against a stateless-era server that is slow to start', () => {
  it('still speaks the stateless era: the server refuses the marked initialize, opening no session', async () => {
    const delay = 1_200;
    await using c = await connect(serverCommand(SLOW), { SLOW_START_MS: String(delay) });
    expect(c.elapsed).toBeGreaterThanOrEqual(delay);
    expect([c.client.era, c.client.protocolVersion, c.client.serverInfo?.name]).toEqual([
      'stateless',
      '2026-07-28',
      'protocol-fixture',
    ]);
    expect(textOf(await c.client.callTool('echo', { text: 'stateless' }))).toBe('stateless');
    // The initialize sent while the server was starting carried the stateless era's _meta …
    const initialize = c.wire.out.find((m) => m.method === 'initialize');
    expect(metaVersion(initialize)).toBe('2026-07-28');
    // … so the server refused it (the stateless era has no initialize), and the client never sent
    // notifications/initialized.
    await expect
      .poll(() => c.wire.in.find((m) => m.id === initialize?.id))
      .toMatchObject({ error: { code: -32601 } });
    expect(c.methods()).not.toContain('notifications/initialized');
  });
});

describe('the CLI against strict servers', () => {
  const run = (args: string[]) =>
    new Promise<{ code: number; stdout: string; elapsed: number }>((resolve) => {
      const started = performance.now();
      execFile(process.execPath, [BIN, ...args], (error, stdout) =>
        resolve({
          code: typeof error?.code === 'number' ? error.code : 0,
          stdout,
          elapsed: performance.now() - started,
        }),
      );
    });

  it.each([['exit'], ['ignore']])('lists the tools of a server that refuses the probe (%s)', async (mode) => {
    const result = await run(['tools', '--json', '--', process.execPath, STRICT, mode]);
    expect(result.code).toBe(0);
    const tools = JSON.parse(result.stdout) as { name: string }[] | { tools: { name: string }[] };
    const names = (Array.isArray(tools) ? tools : tools.tools).map((t) => t.name);
    expect(names).toEqual(['echo', 'add']);
    expect(result.elapsed).toBeLessThan(FAST_MS + 1_000); // the CLI's own start on top
  });
});

describe('auto mode over HTTP against servers that refuse the probe', () => {
  let closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.reverse()) await close();
    closers = [];
  });

  async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void) {
    const http: HttpServer = createHttpServer(handler);
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    closers.push(async () => {
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    });
    return `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  }

  /** A handshake-era toolwire server behind a proxy that answers every stateless-era POST itself. */
  async function refusing(status: number): Promise<string> {
    const server = new Server({ name: 'handshake-only', version: '1' }, { versions: ['2025-11-25'] });
    server.tool('echo', { inputSchema: z.object({ text: z.string() }) }, ({ text: said }) => text(said));
    const handle: HttpServerHandle = await serveHttp(server, { port: 0 });
    closers.push(() => handle.close());
    const forward = toNodeHandler({ handle: (request) => handle.handler.handle(request) });
    const origin = await listen((req, res) => {
      if (req.method === 'POST' && req.headers['mcp-method'] !== undefined) {
        res.writeHead(status, { 'content-type': 'text/plain' }).end('Invalid session ID');
        return;
      }
      forward(req, res);
    });
    return `${origin}/mcp`;
  }

  it.each([[400], [404], [405]])(
    'falls back to initialize on Streamable HTTP when the probe gets HTTP %i and no HTTP+SSE endpoint answers',
    async (status) => {
      const url = await refusing(status);
      const client = new Client({ name: 'strict-test', version: '1' });
      const transport = new FallbackHttpClientTransport({ url });
      const started = performance.now();
      await client.connect(transport);
      expect(performance.now() - started).toBeLessThan(FAST_MS);
      expect([client.era, client.protocolVersion, transport.kind]).toEqual([
        'handshake',
        '2025-11-25',
        'streamable-http',
      ]);
      expect(textOf(await client.callTool('echo', { text: 'over http' }))).toBe('over http');
      await client.close();
    },
  );

  it('still takes a legacy HTTP+SSE server that answers the probe with 404 to HTTP+SSE', async () => {
    const sessions = new Map<string, SSEServerTransport>();
    const origin = await listen((req, res) => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (req.method === 'GET' && url.pathname === '/sse') {
        const transport = new SSEServerTransport('/messages', res);
        sessions.set(transport.sessionId, transport);
        const sdk = new McpServer({ name: 'sdk-sse', version: '1' });
        sdk.registerTool('echo', { inputSchema: { text: z.string() } }, ({ text: said }) => ({
          content: [{ type: 'text', text: said }],
        }));
        void sdk.connect(transport);
        return;
      }
      const session = sessions.get(url.searchParams.get('sessionId') ?? '');
      if (req.method === 'POST' && url.pathname === '/messages' && session) {
        void session.handlePostMessage(req, res);
        return;
      }
      res.writeHead(404).end('Not Found');
    });
    closers.push(async () => {
      for (const session of sessions.values()) await session.close();
    });
    const client = new Client({ name: 'strict-test', version: '1' });
    const transport = new FallbackHttpClientTransport({ url: `${origin}/sse` });
    await client.connect(transport);
    expect([client.era, transport.kind]).toEqual(['handshake', 'sse']);
    expect(textOf(await client.callTool('echo', { text: 'sse' }))).toBe('sse');
    await client.close();
  });
});
