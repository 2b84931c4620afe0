// The client in the stateless era (2026-07-28), choosing the era and its requests on the wire: the era
// against toolwire's server (in-memory, stdio and HTTP), the fallback to the handshake (handshake-only
// servers, discover unanswered, the official SDK 2.x), _meta on every request, serverInfo and resultType.
import { describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import { ErrorCode, ProtocolError } from '../src/protocol/errors.js';
import { Server, text } from '../src/server/index.js';
import { createLinkedPair } from '../src/transports/in-memory.js';
import { StdioClientTransport } from '../src/transports/stdio/index.js';
import { INPUT_HANDLERS, describeMatrix, expectInputAnswered } from './_setup.js';
import { FIXTURE_TOOL_NAMES, SDK_SERVER_V2, sdkServerCommand } from './interop/_helpers.js';
import {
  CAPABILITIES,
  CLIENT_INFO,
  DISCOVER,
  INFO,
  LOG_LEVEL,
  SERVER_INFO,
  VERSION,
  fakeServer,
  never,
  tool,
  type Handler,
} from './_stateless-fake-server.js';

describeMatrix('client, stateless era', (connect) => {
  it('picks the stateless era against toolwire’s server and reads discover', async () => {
    await using c = await connect();
    expect(c.client.era).toBe('stateless');
    expect(c.client.protocolVersion).toBe('2026-07-28');
    expect(c.client.serverInfo).toEqual({
      name: 'protocol-fixture',
      version: '1.0.0',
      title: 'Protocol fixture',
    });
    expect(c.client.serverCapabilities?.tools).toEqual({ listChanged: true });
    expect(c.client.instructions).toBe('fixture');
  });

  it('lists and calls tools, with results free of the era’s own fields', async () => {
    await using c = await connect();
    expect((await c.client.listTools()).map((t) => t.name)).toEqual(FIXTURE_TOOL_NAMES);
    expect(await c.client.callTool('echo', { text: 'hi' })).toEqual({
      content: [{ type: 'text', text: 'hi' }],
    });
    expect(await c.client.callTool('add', { a: 2, b: 3 })).toEqual({
      content: [{ type: 'text', text: '{"sum":5}' }],
      structuredContent: { sum: 5 },
    });
  });

  it('has no ping, and sends log messages only once a level is set', async () => {
    const levels: string[] = [];
    await using c = await connect({ onLog: (m) => levels.push(m.level) });
    await expect(c.client.ping()).rejects.toMatchObject({
      name: 'ClientError',
      code: 'CAPABILITY_NOT_SUPPORTED',
    });
    await c.client.callTool('logs');
    await c.client.setLoggingLevel('info');
    await c.client.callTool('logs');
    await expect.poll(() => levels).toEqual(['info', 'error']);
  });

  it('answers the server’s questions through the handlers (multi round-trip)', async () => {
    await using c = await connect(INPUT_HANDLERS);
    await expectInputAnswered(c.client);
  });

  it('refreshes the tool list through a subscriptions/listen stream', async () => {
    await using c = await connect();
    const updates: string[][] = [];
    c.client.onToolsChanged((tools) => updates.push(tools.map((t) => t.name)));
    await expect.poll(() => c.client.subscriptions).toEqual({ toolsListChanged: true });
    await c.client.callTool('add_tools', { count: 2 });
    await expect.poll(() => updates.length).toBe(1);
    expect(updates[0]).toHaveLength(FIXTURE_TOOL_NAMES.length + 1); // one of the two is disabled
  });

  it('skips the handshake when pinned to 2026-07-28, and shakes hands when pinned to 2025-11-25', async () => {
    await using stateless = await connect({ protocolVersion: '2026-07-28' });
    expect([stateless.client.era, stateless.client.protocolVersion]).toEqual(['stateless', '2026-07-28']);
    await using handshake = await connect({ protocolVersion: '2025-11-25' });
    expect([handshake.client.era, handshake.client.protocolVersion]).toEqual(['handshake', '2025-11-25']);
    await expect(handshake.client.ping()).resolves.toBeUndefined();
  });
});

describe('choosing the era', () => {
  it('falls back to initialize against a handshake-only toolwire server', async () => {
    const server = new Server({ name: 'old', version: '1' }, { versions: ['2025-11-25'] });
    server.tool('hi', {}, () => text('hi'));
    const [clientEnd, serverEnd] = createLinkedPair();
    await server.connect(serverEnd);
    const sent: string[] = [];
    const send = clientEnd.send.bind(clientEnd);
    clientEnd.send = (message) => {
      if (!Array.isArray(message) && 'method' in message) sent.push(message.method);
      return send(message);
    };
    const client = new Client(INFO);
    await client.connect(clientEnd);
    expect([client.era, client.protocolVersion]).toEqual(['handshake', '2025-11-25']);
    expect(sent).toEqual(['server/discover', 'initialize', 'notifications/initialized']);
    expect((await client.callTool('hi')).content).toEqual([{ type: 'text', text: 'hi' }]);
    await client.close();
    await server.close();
  });

  const handshake = (onDiscover: Handler) => ({
    'server/discover': onDiscover,
    initialize: () => ({
      protocolVersion: '2025-06-18',
      capabilities: { tools: {} },
      serverInfo: { name: 'handshake-fake', version: '0' },
    }),
  });

  it.each([
    ['an unrelated error', () => Promise.reject(new ProtocolError(ErrorCode.InternalError, 'boom'))],
    ['method not found', () => Promise.reject(new ProtocolError(ErrorCode.MethodNotFound, 'no'))],
    ['a result that is not a DiscoverResult', () => ({ tools: [] })],
    [
      'a -32022 naming no version the client speaks',
      () =>
        Promise.reject(
          new ProtocolError(-32022, 'no', { supported: ['2099-01-01'], requested: '2026-07-28' }),
        ),
    ],
    [
      'a DiscoverResult naming no version the client speaks',
      () => ({ ...DISCOVER, supportedVersions: ['2099-01-01'] }),
    ],
  ])('falls back to initialize when discover gets %s', async (_, onDiscover) => {
    await using f = await fakeServer(handshake(onDiscover));
    await f.connected;
    expect([f.client.era, f.client.protocolVersion, f.client.serverInfo?.name]).toEqual([
      'handshake',
      '2025-06-18',
      'handshake-fake',
    ]);
  });

  it('falls back to initialize when discover is never answered, after discoverTimeout', async () => {
    await using f = await fakeServer(
      handshake((_params, ctx) => never(ctx)),
      { discoverTimeout: 100 },
    );
    const started = Date.now();
    await f.connected;
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
    expect(f.client.era).toBe('handshake');
    expect(f.wire.map((m) => m.method)).toEqual([
      'server/discover',
      'notifications/cancelled',
      'initialize',
      'notifications/initialized',
    ]);
  });

  it('fails a client pinned to 2026-07-28 against a server that does not speak it', async () => {
    const server = new Server({ name: 'old', version: '1' }, { versions: ['2025-11-25'] });
    const [clientEnd, serverEnd] = createLinkedPair();
    await server.connect(serverEnd);
    const client = new Client(INFO, { protocolVersion: '2026-07-28' });
    await expect(client.connect(clientEnd)).rejects.toMatchObject({
      name: 'ClientError',
      code: 'UNSUPPORTED_PROTOCOL_VERSION',
    });
    await server.close();
  });

  it('falls back to the handshake against the official SDK 2.x stdio server, which answers discover with -32601', async () => {
    const client = new Client(INFO);
    await client.connect(new StdioClientTransport({ ...sdkServerCommand(SDK_SERVER_V2), stderr: 'ignore' }));
    try {
      expect([client.era, client.protocolVersion, client.serverInfo?.name]).toEqual([
        'handshake',
        '2025-11-25',
        'sdk-v2-fixture',
      ]);
      expect((await client.callTool('add', { a: 1, b: 2 })).structuredContent).toEqual({ sum: 3 });
    } finally {
      await client.close();
    }
  });
});

describe('stateless-era requests on the wire', () => {
  it('carry version, capabilities, client info and (once set) the log level in _meta; no handshake', async () => {
    await using f = await fakeServer(
      {
        'tools/list': () => ({ resultType: 'complete', tools: [tool('t')], ttlMs: 0, cacheScope: 'public' }),
        'tools/call': () => ({ resultType: 'complete', content: [] }),
      },
      { elicitation: () => ({ action: 'decline' }), roots: [] },
    );
    await f.connected;
    await f.client.listTools();
    await f.client.setLoggingLevel('warning');
    await f.client.callTool('t', { a: 1 }, { onProgress: () => {} });
    expect(f.received.map((r) => r.method)).toEqual(['server/discover', 'tools/list', 'tools/call']);
    expect(f.wire.some((m) => m.method === 'initialize' || m.method === 'notifications/initialized')).toBe(
      false,
    );
    expect(f.calls('tools/list')[0]!.params).toEqual({
      _meta: {
        [VERSION]: '2026-07-28',
        [CAPABILITIES]: { elicitation: { form: {} }, roots: {} },
        [CLIENT_INFO]: INFO,
      },
    });
    expect(f.calls('tools/call')[0]!.params).toEqual({
      name: 't',
      arguments: { a: 1 },
      _meta: {
        [VERSION]: '2026-07-28',
        [CAPABILITIES]: { elicitation: { form: {} }, roots: {} },
        [CLIENT_INFO]: INFO,
        [LOG_LEVEL]: 'warning',
        progressToken: f.calls('tools/call')[0]!.id,
      },
    });
  });

  it('refuses every request a server sends (the era has none, not even ping), and runs no handler', async () => {
    const asked: string[] = [];
    await using f = await fakeServer(
      {},
      {
        elicitation: () => (asked.push('elicit'), { action: 'decline' }),
        sampling: () => (
          asked.push('sample'),
          { role: 'assistant', content: { type: 'text', text: 'x' }, model: 'm' }
        ),
        roots: () => (asked.push('roots'), []),
      },
    );
    await f.connected;
    const form = { message: 'name?', requestedSchema: { type: 'object', properties: {} } };
    const sampling = { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 };
    for (const [method, params] of [
      ['elicitation/create', form],
      ['sampling/createMessage', sampling],
      ['roots/list', undefined],
      ['ping', undefined],
    ] as const) {
      const error = await f.peer.request(method, params).catch((e: unknown) => e);
      expect(error, method).toBeInstanceOf(ProtocolError);
      expect((error as ProtocolError).code).toBe(ErrorCode.MethodNotFound);
      expect((error as ProtocolError).message).toContain('the stateless era asks through input_required');
    }
    expect(asked).toEqual([]);
  });

  it('reads serverInfo from discover, then from each result', async () => {
    await using f = await fakeServer({
      'tools/call': () => ({
        resultType: 'complete',
        content: [],
        _meta: { [SERVER_INFO]: { name: 'v2', version: '2' }, k: 1 },
      }),
    });
    await f.connected;
    expect(f.client.serverInfo?.name).toBe('fake-stateless');
    expect(f.client.instructions).toBe('be nice');
    expect(await f.client.callTool('x')).toEqual({ content: [], _meta: { k: 1 } });
    expect(f.client.serverInfo?.name).toBe('v2');
  });

  it('treats an absent resultType as complete and refuses an unknown one', async () => {
    await using f = await fakeServer({
      'tools/call': (params) =>
        params.name === 'old'
          ? { content: [{ type: 'text', text: 'ok' }] }
          : { resultType: 'task', taskId: '1' },
    });
    await f.connected;
    expect(await f.client.callTool('old')).toEqual({ content: [{ type: 'text', text: 'ok' }] });
    await expect(f.client.callTool('new')).rejects.toMatchObject({
      name: 'ClientError',
      code: 'INVALID_RESULT',
    });
  });

  it('refuses input_required on a method that may not use it', async () => {
    await using f = await fakeServer({
      'tools/list': () => ({ resultType: 'input_required', requestState: 'x' }),
    });
    await f.connected;
    await expect(f.client.listTools()).rejects.toMatchObject({ code: 'INVALID_RESULT' });
  });

  it('is typed when the client is not connected', async () => {
    const client = new Client(INFO);
    await expect(client.ping()).rejects.toMatchObject({ code: 'NOT_CONNECTED' });
  });
});
