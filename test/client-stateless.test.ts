// The client in the stateless era (2026-07-28): choosing the era, _meta on every request, resultType,
// multi round-trip requests, the result cache, subscriptions/listen and x-mcp-header, against toolwire's
// server (in-memory, stdio and HTTP), hand-written fake servers, and the official SDK 2.x server.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Client, type ClientOptions } from '../src/client/index.js';
import { Peer, type RequestContext } from '../src/protocol/engine/peer.js';
import { ErrorCode, ProtocolError } from '../src/protocol/errors.js';
import type { JsonObject } from '../src/protocol/jsonrpc.js';
import { Server, text } from '../src/server/index.js';
import { createLinkedPair } from '../src/transports/in-memory.js';
import { StdioClientTransport } from '../src/transports/stdio/index.js';
import { INPUT_HANDLERS, describeMatrix, expectInputAnswered } from './_setup.js';
import { FIXTURE_TOOL_NAMES, SDK_SERVER_V2, sdkServerCommand } from './interop/_helpers.js';

const VERSION = 'io.modelcontextprotocol/protocolVersion';
const CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
const CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
const LOG_LEVEL = 'io.modelcontextprotocol/logLevel';
const SERVER_INFO = 'io.modelcontextprotocol/serverInfo';
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
const INFO = { name: 'stateless-test', version: '1.0.0' };

const DISCOVER = {
  resultType: 'complete',
  supportedVersions: ['2026-07-28'],
  capabilities: { tools: { listChanged: true }, prompts: { listChanged: true } },
  instructions: 'be nice',
  ttlMs: 0,
  cacheScope: 'public',
  _meta: { [SERVER_INFO]: { name: 'fake-stateless', version: '2' } },
};

type Handler = (params: JsonObject, ctx: RequestContext) => JsonObject | Promise<JsonObject>;
interface Received {
  id: string | number;
  method: string;
  params: JsonObject;
}

/** A hand-written server on the in-memory pair; records every message it receives. */
async function fakeServer(handlers: Record<string, Handler>, options: ClientOptions = {}) {
  const [clientEnd, serverEnd] = createLinkedPair();
  const peer = new Peer();
  const received: Received[] = [];
  const wire: JsonObject[] = [];
  const all: Record<string, Handler> = { 'server/discover': () => DISCOVER, ...handlers };
  for (const [method, handler] of Object.entries(all)) {
    peer.setRequestHandler(method, (params, ctx) => {
      received.push({ id: ctx.id, method, params });
      return handler(params, ctx);
    });
  }
  await peer.connect(serverEnd);
  const dispatch = serverEnd.onmessage!;
  serverEnd.onmessage = (message) => {
    wire.push(message as JsonObject);
    dispatch(message);
  };
  const client = new Client(INFO, options);
  const connected = client.connect(clientEnd);
  const close = () => client.close();
  return {
    client,
    peer,
    received,
    wire,
    connected,
    calls: (method: string) => received.filter((r) => r.method === method),
    close,
    [Symbol.asyncDispose]: close,
  };
}

const never = (ctx: RequestContext) =>
  new Promise<JsonObject>((resolve) =>
    ctx.signal.addEventListener('abort', () => resolve({}), { once: true }),
  );

const tool = (name: string, inputSchema: JsonObject = { type: 'object' }) => ({ name, inputSchema });

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

describe('input_required (multi round-trip requests)', () => {
  it('answers every input request, retries with the same params, inputResponses and the untouched requestState', async () => {
    let round = 0;
    await using f = await fakeServer(
      {
        'tools/call': () => {
          round++;
          if (round === 1) {
            return {
              resultType: 'input_required',
              inputRequests: {
                login: {
                  method: 'elicitation/create',
                  params: { mode: 'form', message: 'Login?', requestedSchema: { type: 'object' } },
                },
                capital: { method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } },
                where: { method: 'roots/list' },
              },
              requestState: ' opaque:1 {"a":1} ',
            };
          }
          if (round === 2)
            return {
              resultType: 'input_required',
              inputRequests: { again: { method: 'elicitation/create', params: { message: 'Sure?' } } },
            };
          return { resultType: 'complete', content: [{ type: 'text', text: 'done' }] };
        },
      },
      {
        elicitation: (params) => ({ action: 'accept', content: { answer: params.message } }),
        sampling: () => ({ role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'm' }),
        roots: () => [{ uri: 'file:///w' }],
      },
    );
    await f.connected;
    expect(await f.client.callTool('book', { seat: '1A' })).toEqual({
      content: [{ type: 'text', text: 'done' }],
    });
    const calls = f.calls('tools/call');
    expect(new Set(calls.map((c) => c.id)).size).toBe(3);
    const { _meta: _1, ...second } = calls[1]!.params;
    expect(second).toEqual({
      name: 'book',
      arguments: { seat: '1A' },
      inputResponses: {
        login: { action: 'accept', content: { answer: 'Login?' } },
        capital: { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'm' },
        where: { roots: [{ uri: 'file:///w' }] },
      },
      requestState: ' opaque:1 {"a":1} ',
    });
    const { _meta: _2, ...third } = calls[2]!.params;
    expect(third).toEqual({
      name: 'book',
      arguments: { seat: '1A' },
      inputResponses: { again: { action: 'accept', content: { answer: 'Sure?' } } },
    });
  });

  it('retries a requestState-only answer at once, with no inputResponses', async () => {
    let round = 0;
    await using f = await fakeServer({
      'prompts/get': () =>
        ++round === 1
          ? { resultType: 'input_required', requestState: 'busy' }
          : { resultType: 'complete', messages: [] },
    });
    await f.connected;
    expect(await f.client.getPrompt('p', { a: 'b' })).toEqual({ messages: [] });
    const { _meta, ...retry } = f.calls('prompts/get')[1]!.params;
    expect(retry).toEqual({ name: 'p', arguments: { a: 'b' }, requestState: 'busy' });
  });

  it('declines an elicitation it has no handler for, and fails on sampling it has no handler for', async () => {
    await using f = await fakeServer({
      'resources/read': (params) =>
        params.inputResponses
          ? {
              resultType: 'complete',
              contents: [{ uri: 'a://1', text: JSON.stringify(params.inputResponses) }],
            }
          : {
              resultType: 'input_required',
              inputRequests: { q: { method: 'elicitation/create', params: { message: '?' } } },
            },
      'tools/call': () => ({
        resultType: 'input_required',
        inputRequests: { s: { method: 'sampling/createMessage', params: { messages: [], maxTokens: 1 } } },
      }),
    });
    await f.connected;
    expect((await f.client.readResource('a://1')).contents[0]).toMatchObject({
      text: '{"q":{"action":"decline"}}',
    });
    await expect(f.client.callTool('t')).rejects.toMatchObject({
      name: 'ClientError',
      code: 'CAPABILITY_NOT_SUPPORTED',
    });
  });

  it('gives up after maxInputRounds with TOO_MANY_INPUT_ROUNDS', async () => {
    await using f = await fakeServer(
      { 'tools/call': () => ({ resultType: 'input_required', requestState: 'more' }) },
      { maxInputRounds: 2 },
    );
    await f.connected;
    await expect(f.client.callTool('t')).rejects.toMatchObject({ code: 'TOO_MANY_INPUT_ROUNDS' });
    expect(f.calls('tools/call')).toHaveLength(3);
    await expect(f.client.callTool('t', {}, { maxInputRounds: 0 })).rejects.toMatchObject({
      code: 'TOO_MANY_INPUT_ROUNDS',
    });
  });

  it('applies the timeout to the whole exchange, handlers included, and aborts the handler', async () => {
    let handlerSignal: AbortSignal | undefined;
    const onAsked = { run: () => {} };
    await using f = await fakeServer(
      {
        'tools/call': () => ({
          resultType: 'input_required',
          inputRequests: { q: { method: 'elicitation/create', params: { message: '?' } } },
        }),
      },
      {
        elicitation: (_params, ctx) => {
          handlerSignal = ctx.signal;
          onAsked.run();
          return new Promise(() => {});
        },
      },
    );
    await f.connected;
    await expect(f.client.callTool('t', {}, { timeout: 80 })).rejects.toMatchObject({
      code: 'REQUEST_TIMEOUT',
    });
    expect(handlerSignal?.aborted).toBe(true);
    const controller = new AbortController();
    // Aborted while its elicitation handler runs, the call's whole exchange is cancelled.
    onAsked.run = () => controller.abort('stop');
    const call = f.client.callTool('t', {}, { signal: controller.signal });
    await expect(call).rejects.toMatchObject({ code: 'REQUEST_CANCELLED' });
  });
});

describe('the result cache', () => {
  afterEach(() => vi.useRealTimers());

  const page = (tools: JsonObject[], ttlMs: number | undefined, extra: JsonObject = {}) => ({
    resultType: 'complete',
    tools,
    ...(ttlMs === undefined ? {} : { ttlMs, cacheScope: 'public' }),
    ...extra,
  });

  it('reuses pages while fresh, re-fetches stale ones, each page on its own', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    await using f = await fakeServer({
      'tools/list': (params) =>
        params.cursor === undefined ? page([tool('a')], 60_000, { nextCursor: 'p2' }) : page([tool('b')], 0),
    });
    await f.connected;
    expect((await f.client.listTools()).map((t) => t.name)).toEqual(['a', 'b']);
    expect((await f.client.listTools()).map((t) => t.name)).toEqual(['a', 'b']);
    expect(f.calls('tools/list').map((c) => c.params.cursor ?? 'first')).toEqual(['first', 'p2', 'p2']);
    vi.setSystemTime(Date.now() + 60_000);
    await f.client.listTools();
    expect(f.calls('tools/list')).toHaveLength(5);
  });

  it('re-fetches results without a ttlMs, and after list_changed or refresh', async () => {
    const hint: { ttl?: number } = {};
    await using f = await fakeServer({ 'tools/list': () => page([tool('a')], hint.ttl) });
    await f.connected;
    await f.client.listTools();
    await f.client.listTools();
    expect(f.calls('tools/list')).toHaveLength(2);
    hint.ttl = 60_000;
    await f.client.listTools();
    await f.client.listTools();
    expect(f.calls('tools/list')).toHaveLength(3);
    await f.peer.notify('notifications/tools/list_changed');
    // Once the client has the notification, the next listing asks the server again.
    await expect.poll(async () => (await f.client.listTools(), f.calls('tools/list').length)).toBe(4);
    await f.client.listTools({ refresh: true });
    expect(f.calls('tools/list')).toHaveLength(5);
  });

  it('keeps private results to their authorization context and shares public ones', async () => {
    let context = 'alice';
    await using f = await fakeServer(
      {
        'resources/read': (params) => ({
          resultType: 'complete',
          contents: [{ uri: params.uri as string, text: `for ${context}` }],
          ttlMs: 60_000,
          cacheScope: params.uri === 'a://private' ? 'private' : 'public',
        }),
      },
      { authContext: () => context },
    );
    await f.connected;
    for (const who of ['alice', 'bob', 'alice']) {
      context = who;
      await f.client.readResource('a://private');
      await f.client.readResource('a://public');
    }
    expect(f.calls('resources/read').map((c) => c.params.uri)).toEqual([
      'a://private',
      'a://public',
      'a://private',
    ]);
    context = 'bob';
    expect((await f.client.readResource('a://private')).contents[0]).toMatchObject({ text: 'for bob' });
    expect(await f.client.readResource('a://public')).toEqual({
      contents: [{ uri: 'a://public', text: 'for alice' }],
    });
  });

  it('never caches a result that took input rounds', async () => {
    await using f = await fakeServer({
      'resources/read': (params) =>
        params.requestState
          ? { resultType: 'complete', contents: [], ttlMs: 60_000, cacheScope: 'public' }
          : { resultType: 'input_required', requestState: 's' },
    });
    await f.connected;
    await f.client.readResource('a://1');
    await f.client.readResource('a://1');
    expect(f.calls('resources/read')).toHaveLength(4);
  });
});

describe('subscriptions/listen', () => {
  /** A fake listen handler: acknowledges, keeps the stream open until cancelled. */
  function listenServer() {
    const streams: { id: string | number; filter: JsonObject; signal: AbortSignal }[] = [];
    const handler: Handler = async (params, ctx) => {
      streams.push({ id: ctx.id, filter: params.notifications as JsonObject, signal: ctx.signal });
      return never(ctx);
    };
    return { streams, handler };
  }

  it('opens one long-lived listen request, acknowledged, and refreshes on list_changed', async () => {
    const listen = listenServer();
    let tools = [tool('a')];
    await using f = await fakeServer(
      {
        'subscriptions/listen': async (params, ctx) => {
          setTimeout(
            () =>
              void f.peer.notify('notifications/subscriptions/acknowledged', {
                notifications: params.notifications as JsonObject,
                _meta: { [SUBSCRIPTION_ID]: ctx.id },
              }),
            5,
          );
          return listen.handler(params, ctx);
        },
        'tools/list': () => page(tools),
      },
      { requestTimeout: 50 },
    );
    function page(list: JsonObject[]) {
      return { resultType: 'complete', tools: list, ttlMs: 60_000, cacheScope: 'public' };
    }
    await f.connected;
    const updates: string[][] = [];
    f.client.onToolsChanged((list) => updates.push(list.map((t) => t.name)));
    await expect.poll(() => f.client.subscriptions).toEqual({ toolsListChanged: true });
    const [stream] = listen.streams;
    expect(f.calls('subscriptions/listen')[0]!.params).toMatchObject({
      notifications: { toolsListChanged: true },
      _meta: { [VERSION]: '2026-07-28', [CAPABILITIES]: {} },
    });
    await new Promise((r) => setTimeout(r, 100)); // longer than requestTimeout: no timeout for listen
    expect(stream!.signal.aborted).toBe(false);
    tools = [tool('a'), tool('b')];
    await f.peer.notify('notifications/tools/list_changed', { _meta: { [SUBSCRIPTION_ID]: stream!.id } });
    await expect.poll(() => updates).toEqual([['a', 'b']]);

    const stop = f.client.onPromptListChanged(() => {});
    await expect
      .poll(() => f.client.subscriptions)
      .toEqual({ toolsListChanged: true, promptsListChanged: true });
    await expect.poll(() => stream!.signal.aborted).toBe(true); // the old stream, once the new one is acknowledged
    const cancels = f.wire.filter((m) => m.method === 'notifications/cancelled');
    expect(cancels.map((m) => (m.params as JsonObject).requestId)).toEqual([stream!.id]);
    stop();
    await expect.poll(() => f.client.subscriptions).toEqual({ toolsListChanged: true });
  });

  it('subscribes to resources through the listen stream, and forgets a stream the server ended', async () => {
    const listen = listenServer();
    await using f = await fakeServer({
      'subscriptions/listen': async (params, ctx) => {
        queueMicrotask(
          () =>
            void f.peer.notify('notifications/subscriptions/acknowledged', {
              notifications: params.notifications as JsonObject,
              _meta: { [SUBSCRIPTION_ID]: ctx.id },
            }),
        );
        return listen.handler(params, ctx);
      },
    });
    await f.connected;
    const updated: string[] = [];
    f.client.onResourceUpdated((uri) => updated.push(uri));
    await f.client.subscribeResource('a://2');
    await f.client.subscribeResource('a://1');
    expect(f.client.subscriptions).toEqual({ resourceSubscriptions: ['a://1', 'a://2'] });
    const stream = listen.streams.at(-1)!;
    await f.peer.notify('notifications/resources/updated', {
      uri: 'a://1',
      _meta: { [SUBSCRIPTION_ID]: stream.id },
    });
    await expect.poll(() => updated).toEqual(['a://1']);
    await f.peer.notify('notifications/cancelled', { requestId: stream.id, reason: 'shutting down' });
    await expect.poll(() => f.client.subscriptions).toBeUndefined();
  });
});

describe('x-mcp-header in tools/list', () => {
  it('leaves out tools with invalid declarations, with one warning each', async () => {
    const warnings: string[] = [];
    const schema = (properties: JsonObject, extra: JsonObject = {}) => ({
      type: 'object',
      properties,
      ...extra,
    });
    await using f = await fakeServer(
      {
        'tools/list': () => ({
          resultType: 'complete',
          tools: [
            tool(
              'ok',
              schema({
                region: { type: 'string', 'x-mcp-header': 'Region' },
                n: { type: 'integer', 'x-mcp-header': 'N' },
              }),
            ),
            tool(
              'nested_ok',
              schema({ a: { type: 'object', properties: { b: { type: 'boolean', 'x-mcp-header': 'B' } } } }),
            ),
            tool('bad_token', schema({ r: { type: 'string', 'x-mcp-header': 'Re gion' } })),
            tool('number', schema({ r: { type: 'number', 'x-mcp-header': 'R' } })),
            tool(
              'duplicate',
              schema({
                a: { type: 'string', 'x-mcp-header': 'X' },
                b: { type: 'string', 'x-mcp-header': 'x' },
              }),
            ),
            tool(
              'in_items',
              schema({ a: { type: 'array', items: { type: 'string', 'x-mcp-header': 'A' } } }),
            ),
            tool(
              'in_anyof',
              schema({}, { anyOf: [{ properties: { a: { type: 'string', 'x-mcp-header': 'A' } } }] }),
            ),
          ],
        }),
      },
      { onWarning: (message) => warnings.push(message) },
    );
    await f.connected;
    expect((await f.client.listTools()).map((t) => t.name)).toEqual(['ok', 'nested_ok']);
    await f.client.listTools();
    expect(warnings.map((w) => /^Tool (\S+)/.exec(w)?.[1])).toEqual([
      'bad_token',
      'number',
      'duplicate',
      'in_items',
      'in_anyof',
    ]);
  });
});
