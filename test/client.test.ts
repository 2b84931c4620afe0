// The client against hand-written servers that misbehave on purpose, over the in-memory pair.
import { describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import { Peer } from '../src/protocol/engine/peer.js';
import type { JsonObject } from '../src/protocol/jsonrpc.js';
import { Server, text } from '../src/server/index.js';
import { createLinkedPair } from '../src/transports/in-memory.js';
import { serverCore } from '../src/server/server.js';

type Handlers = Record<string, (params: JsonObject) => JsonObject | Promise<JsonObject>>;

async function fakeServer(handlers: Handlers, version = '2025-11-25') {
  const [clientEnd, serverEnd] = createLinkedPair();
  const peer = new Peer();
  peer.setRequestHandler('initialize', () => ({
    protocolVersion: version,
    capabilities: { tools: { listChanged: true } },
    serverInfo: { name: 'fake', version: '0' },
  }));
  for (const [method, handler] of Object.entries(handlers)) peer.setRequestHandler(method, handler);
  await peer.connect(serverEnd);
  const client = new Client({ name: 'c', version: '1' });
  return { client, peer, clientEnd };
}

describe('client against misbehaving servers', () => {
  it('disconnects with a typed error when the server picks a revision it does not speak', async () => {
    const { client, peer, clientEnd } = await fakeServer({}, '2099-01-01');
    await expect(client.connect(clientEnd)).rejects.toMatchObject({
      name: 'ClientError',
      code: 'UNSUPPORTED_PROTOCOL_VERSION',
      message: expect.stringContaining('2099-01-01'),
    });
    expect(peer.closed).toBe(true); // the in-memory pair closes both ends
    await expect(client.listTools()).rejects.toMatchObject({ code: 'NOT_CONNECTED' });
  });

  it('stops following a cursor that never ends', async () => {
    let calls = 0;
    const { client, clientEnd } = await fakeServer({
      'tools/list': () => ({
        tools: [{ name: `t${calls}`, inputSchema: { type: 'object' } }],
        nextCursor: `c${calls++}`,
      }),
    });
    await client.connect(clientEnd);
    await expect(client.listTools()).rejects.toMatchObject({ code: 'TOO_MANY_PAGES' });
    expect(calls).toBe(100);
  });

  it('stops a listing past maxListItems or maxListBytes kept across pages, tools and resources alike', async () => {
    let pages = 0;
    const tools = Array.from({ length: 6_000 }, (_, i) => ({
      name: `t${i}`,
      inputSchema: { type: 'object' },
    }));
    const big = { name: 'big', description: 'x'.repeat(1_000_000), inputSchema: { type: 'object' } };
    let page: () => JsonObject[] = () => tools;
    const { clientEnd } = await fakeServer({
      'tools/list': () => ({ tools: page(), nextCursor: `c${pages++}` }),
      'resources/list': () => ({
        resources: tools.map((t) => ({ uri: `file:///${t.name}`, name: t.name })),
        nextCursor: `c${pages++}`,
      }),
    });
    const client = new Client({ name: 'c', version: '1' }, { maxListItems: 10_000, maxListBytes: 2_500_000 });
    await client.connect(clientEnd);
    await expect(client.listTools()).rejects.toMatchObject({
      code: 'TOO_MANY_PAGES',
      message: 'tools/list returned more than 10000 items; stopping (raise maxListItems if this is expected)',
    });
    expect(pages).toBe(2);
    pages = 0;
    await expect(client.listResources()).rejects.toMatchObject({ code: 'TOO_MANY_PAGES' });
    expect(pages).toBe(2);
    pages = 0;
    page = () => [big];
    await expect(client.listTools({ refresh: true })).rejects.toMatchObject({
      code: 'TOO_MANY_PAGES',
      message: expect.stringContaining('more than 2500000 bytes of items'),
    });
    expect(pages).toBe(3);
  });

  it('refuses a repeated cursor', async () => {
    const { client, clientEnd } = await fakeServer({
      'tools/list': () => ({ tools: [], nextCursor: 'same' }),
    });
    await client.connect(clientEnd);
    await expect(client.listTools()).rejects.toMatchObject({ code: 'INVALID_RESULT' });
  });

  it('counts the cursors it keeps against maxListBytes, and names a long repeated one by its start', async () => {
    // One tool a page and a distinct 1 MB cursor each: only the cursors grow (they are kept to catch a
    // repeat); 100 pages of 3 MB ones held 300 MB.
    let pages = 0;
    let cursor = (n: number) => `${n}:${'c'.repeat(1_000_000)}`;
    const { clientEnd } = await fakeServer({
      'tools/list': () => ({ tools: [{ name: 't', inputSchema: {} }], nextCursor: cursor(pages++) }),
    });
    const client = new Client({ name: 'c', version: '1' }, { maxListBytes: 8_000_000 });
    await client.connect(clientEnd);
    await expect(client.listTools()).rejects.toMatchObject({
      code: 'TOO_MANY_PAGES',
      message: expect.stringContaining('more than 8000000 bytes of items and cursors'),
    });
    expect(pages).toBe(9);
    pages = 0;
    cursor = () => `same:${'c'.repeat(1_000_000)}`;
    const repeated = await client.listTools({ refresh: true }).catch((error: unknown) => error);
    expect(repeated).toMatchObject({ code: 'INVALID_RESULT' });
    expect((repeated as Error).message).toBe(`tools/list repeated the cursor "same:${'c'.repeat(75)}…"`);
  });

  it('reports structuredContent that breaks the cached outputSchema, but not for isError results', async () => {
    const { client, clientEnd } = await fakeServer({
      'tools/list': () => ({
        tools: [
          {
            name: 'n',
            inputSchema: { type: 'object' },
            outputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
          },
        ],
      }),
      'tools/call': (params) =>
        params.arguments && (params.arguments as JsonObject).fail
          ? { content: [{ type: 'text', text: 'failed' }], isError: true }
          : { content: [], structuredContent: { n: 'nope' } },
    });
    await client.connect(clientEnd);
    await client.listTools();
    await expect(client.callTool('n')).rejects.toMatchObject({
      name: 'ClientError',
      code: 'OUTPUT_SCHEMA_MISMATCH',
      message: expect.stringContaining('/n must be number'),
    });
    await expect(client.callTool('n', { fail: true })).resolves.toMatchObject({ isError: true });
    await expect(client.callTool('n', {}, { validateOutput: false })).resolves.toMatchObject({
      structuredContent: { n: 'nope' },
    });
  });

  it('checks structuredContent against a hostile outputSchema pattern in linear time', async () => {
    const { client, clientEnd } = await fakeServer({
      'tools/list': () => ({
        tools: [
          {
            name: 'redos',
            inputSchema: { type: 'object' },
            outputSchema: { type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' } } },
          },
        ],
      }),
      'tools/call': () => ({ content: [], structuredContent: { s: `${'a'.repeat(40)}!` } }),
    });
    await client.connect(clientEnd);
    await client.listTools();
    const started = performance.now();
    await expect(client.callTool('redos')).rejects.toMatchObject({
      code: 'OUTPUT_SCHEMA_MISMATCH',
      message: expect.stringContaining('/s must match pattern "^(a+)+$"'),
    });
    expect(performance.now() - started).toBeLessThan(1000); // a backtracking engine: hours
  });

  it('refuses results checked by an outputSchema whose pattern cannot run in linear time', async () => {
    const { client, clientEnd } = await fakeServer({
      'tools/list': () => ({
        tools: [
          {
            name: 'lookahead',
            inputSchema: { type: 'object' },
            outputSchema: { type: 'object', properties: { s: { type: 'string', pattern: '^(?=a)(a+)+$' } } },
          },
        ],
      }),
      'tools/call': () => ({ content: [], structuredContent: { s: `${'a'.repeat(40)}!` } }),
    });
    await client.connect(clientEnd);
    await client.listTools();
    await expect(client.callTool('lookahead')).rejects.toMatchObject({
      name: 'ClientError',
      code: 'OUTPUT_SCHEMA_MISMATCH',
      message:
        'Tool lookahead returned structuredContent that cannot be checked: its outputSchema is refused: invalid ' +
        'JSON Schema: the pattern "^(?=a)(a+)+$" at /properties/s/pattern cannot be used: lookahead ((?= and (?!) ' +
        'is not supported (patterns run in linear time, without backreferences or lookaround)',
    });
    await expect(client.callTool('lookahead', {}, { validateOutput: false })).resolves.toMatchObject({
      structuredContent: { s: expect.any(String) },
    });
  });

  it('fails a request whose response is nested deeper than 128 levels, and goes on', async () => {
    let deep: unknown = [];
    for (let i = 0; i < 200; i++) deep = [deep];
    const { client, clientEnd } = await fakeServer({
      'tools/call': (params) =>
        params.name === 'deep' ? { content: [], structuredContent: { deep } } : { content: [] },
    });
    await client.connect(clientEnd);
    await expect(client.callTool('deep')).rejects.toMatchObject({
      code: 'INVALID_RESULT',
      message: 'The response is nested deeper than 128 levels',
    });
    await expect(client.callTool('shallow')).resolves.toEqual({ content: [] });
  });

  it('refuses a result without a content array', async () => {
    const { client, clientEnd } = await fakeServer({ 'tools/call': () => ({ nothing: true }) });
    await client.connect(clientEnd);
    await expect(client.callTool('x')).rejects.toMatchObject({ code: 'INVALID_RESULT' });
  });

  it('answers server pings and refuses server requests it has no handler for', async () => {
    const { client, peer, clientEnd } = await fakeServer({});
    await client.connect(clientEnd);
    await expect(peer.request('ping', undefined)).resolves.toEqual({});
    await expect(
      peer.request('sampling/createMessage', { messages: [], maxTokens: 1 }),
    ).rejects.toMatchObject({
      code: -32601,
    });
  });
});

describe('server lifecycle', () => {
  it('pings the client and aborts running handlers when the server closes', async () => {
    const server = new Server({ name: 's', version: '1' });
    let aborted: unknown;
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    server.tool('hang', {}, async (_args, ctx) => {
      started();
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
      aborted = ctx.signal.reason;
      return text('never delivered');
    });
    const [clientEnd, serverEnd] = createLinkedPair();
    const session = await server.connect(serverEnd);
    // Handshake era: the stateless era has no ping (its client refuses one).
    const client = new Client({ name: 'c', version: '1' }, { protocolVersion: '2025-11-25' });
    await client.connect(clientEnd);
    await expect(session.ping()).resolves.toBeUndefined();
    const call = client.callTool('hang').catch((e: unknown) => e);
    await running;
    await server.close();
    expect(await call).toMatchObject({ code: 'CONNECTION_CLOSED' });
    expect(aborted).toBeInstanceOf(Error);
    expect(serverCore(server).sessions.size).toBe(0);
  });

  it('does not send list_changed for registrations made before the client initialized', async () => {
    const server = new Server({ name: 's', version: '1' });
    server.tool('a', {}, () => 'a');
    const [clientEnd, serverEnd] = createLinkedPair();
    await server.connect(serverEnd);
    const client = new Client({ name: 'c', version: '1' });
    let changes = 0;
    client.onToolsChanged(() => changes++);
    await client.connect(clientEnd);
    await new Promise((r) => setTimeout(r, 40));
    expect(changes).toBe(0);
    server.tool('b', {}, () => 'b');
    await expect.poll(() => changes).toBe(1);
    await client.close();
  });
});

describe('client tasks against a server whose tasks/result answers before any poll sees the end', () => {
  it('still ends statuses() with the final status (2025-11-25)', async () => {
    const task = (status: string) => ({
      taskId: 't1',
      status,
      createdAt: '2026-01-01T00:00:00Z',
      lastUpdatedAt: '2026-01-01T00:00:00Z',
      ttl: 60_000,
      pollInterval: 60_000,
    });
    const [clientEnd, serverEnd] = createLinkedPair();
    const peer = new Peer();
    peer.setRequestHandler('initialize', () => ({
      protocolVersion: '2025-11-25',
      capabilities: { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
      serverInfo: { name: 'fake', version: '0' },
    }));
    peer.setRequestHandler('tools/list', () => ({
      tools: [{ name: 'slow', inputSchema: { type: 'object' }, execution: { taskSupport: 'required' } }],
    }));
    // The task needs input first; its tasks/result answers at once (the task ended meanwhile), and only a
    // tasks/get says it completed: no status notification, no poll before the answer.
    peer.setRequestHandler('tools/call', () => ({ task: task('input_required') }));
    peer.setRequestHandler('tasks/result', () => ({ content: [{ type: 'text', text: 'done' }] }));
    peer.setRequestHandler('tasks/get', () => task('completed'));
    await peer.connect(serverEnd);
    const client = new Client({ name: 'c', version: '1' });
    await client.connect(clientEnd);
    try {
      const running = await client.callToolAsTask('slow', {});
      const seen: string[] = [];
      for await (const status of running.statuses()) seen.push(status.status);
      expect(seen).toEqual(['input_required', 'completed']);
      expect((await running.result()).content).toEqual([{ type: 'text', text: 'done' }]);
    } finally {
      await client.close();
    }
  });
});
