// subscriptions/listen (2026-07-28) on the wire: over stdio (raw lines to a spawned server), in memory
// (the server object in this process) and over Streamable HTTP (the listen request's SSE stream).
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonRpcMessage } from '../src/protocol/jsonrpc.js';
import { Server } from '../src/server/index.js';
import { serveHttp, type HttpServerHandle } from '../src/transports/http/index.js';
import { createLinkedPair, type InMemoryTransport } from '../src/transports/in-memory.js';
import { SseReader } from './_sse.js';
import { RawWire } from './_wire.js';
import { serverCore } from '../src/server/server.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/listen-server.mjs', import.meta.url));
const SUB = 'io.modelcontextprotocol/subscriptionId';
const SERVER_INFO = { name: 'protocol-fixture', version: '1.0.0', title: 'Protocol fixture' };
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};

type Message = Record<string, unknown> & { id?: string | number; method?: string };

const listen = (id: string | number, notifications: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method: 'subscriptions/listen',
  params: { notifications, _meta: META },
});
const call = (id: number, name: string, args: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args, _meta: META },
});
const cancel = (requestId: string | number) => ({
  jsonrpc: '2.0',
  method: 'notifications/cancelled',
  params: { requestId },
});
const ack = (id: string | number, notifications: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  method: 'notifications/subscriptions/acknowledged',
  params: { notifications, _meta: { [SUB]: id } },
});
const changed = (feature: string, id: string | number) => ({
  jsonrpc: '2.0',
  method: `notifications/${feature}/list_changed`,
  params: { _meta: { [SUB]: id } },
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Everything the server sends from now on: until the responses to `awaiting` are in, then until it
 * answers `settle` (the fixture answers it once every notification the changes made so far owe is out).
 * The probe's own response is left out.
 */
async function drain(wire: RawWire, awaiting: Array<string | number>, probe = 99): Promise<Message[]> {
  const seen: Message[] = [];
  const pending = new Set(awaiting);
  while (pending.size > 0) {
    const message = (await wire.next()) as Message;
    seen.push(message);
    if (message.method === undefined && message.id !== undefined) pending.delete(message.id);
  }
  wire.send(call(probe, 'settle'));
  for (;;) {
    const message = (await wire.next()) as Message;
    if (message.id === probe && message.method === undefined) {
      expect(message).toMatchObject({ result: { content: [{ type: 'text', text: 'settled' }] } });
      return seen;
    }
    seen.push(message);
  }
}

const notificationsIn = (messages: Message[]) => messages.filter((m) => m.id === undefined);

describe('subscriptions/listen over stdio', () => {
  it('acknowledges first, naming the honoured subset and the subscription id', async () => {
    await using wire = new RawWire(FIXTURE);
    const uris = ['test://watched-resource', 'test://not-yet'];
    wire.send(
      listen('sub-1', { toolsListChanged: true, promptsListChanged: true, resourceSubscriptions: uris }),
    );
    expect(await wire.next()).toEqual(
      ack('sub-1', { toolsListChanged: true, promptsListChanged: true, resourceSubscriptions: uris }),
    );
  });

  it('sends one tools/list_changed per burst, and no type the client did not ask for', async () => {
    await using wire = new RawWire(FIXTURE);
    wire.send(listen(1, { toolsListChanged: true }));
    expect(await wire.next()).toEqual(ack(1, { toolsListChanged: true }));
    wire.send(call(2, 'add_tools', { count: 3 })); // three registrations, an update and a disable
    wire.send(call(3, 'change', { prompts: true, resources: true, updated: ['test://watched-resource'] }));
    const seen = await drain(wire, [2, 3]);
    expect(seen.filter((m) => m.id !== undefined).map((m) => m.id)).toEqual([2, 3]);
    expect(notificationsIn(seen)).toEqual([changed('tools', 1)]);
  });

  it('sends prompts and resources list_changed when asked for them', async () => {
    await using wire = new RawWire(FIXTURE);
    wire.send(listen(1, { promptsListChanged: true, resourcesListChanged: true }));
    expect(await wire.next()).toEqual(ack(1, { promptsListChanged: true, resourcesListChanged: true }));
    wire.send(call(2, 'change', { prompts: true, resources: true }));
    wire.send(call(3, 'add_tools', { count: 1 }));
    const seen = notificationsIn(await drain(wire, [2, 3]));
    expect(seen).toHaveLength(2);
    expect(seen).toEqual(expect.arrayContaining([changed('prompts', 1), changed('resources', 1)]));
  });

  it('sends resources/updated for the subscribed URIs only', async () => {
    await using wire = new RawWire(FIXTURE);
    wire.send(listen('r', { resourceSubscriptions: ['test://watched-resource'] }));
    expect(await wire.next()).toEqual(ack('r', { resourceSubscriptions: ['test://watched-resource'] }));
    wire.send(call(2, 'change', { updated: ['test://static-text', 'test://watched-resource'] }));
    expect(notificationsIn(await drain(wire, [2]))).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/resources/updated',
        params: { uri: 'test://watched-resource', _meta: { [SUB]: 'r' } },
      },
    ]);
  });

  it('sends nothing more after notifications/cancelled, and no response to the listen request', async () => {
    await using wire = new RawWire(FIXTURE);
    wire.send(listen(1, { toolsListChanged: true, resourceSubscriptions: ['test://watched-resource'] }));
    await wire.next();
    wire.send(cancel(1));
    wire.send(call(2, 'add_tools', { count: 2 }));
    wire.send(call(3, 'change', { updated: ['test://watched-resource'] }));
    const seen = await drain(wire, [2, 3]);
    expect(seen.map((m) => m.id)).toEqual([2, 3]);
  });

  it('keeps two listens on one connection apart, each with its own subscription id', async () => {
    await using wire = new RawWire(FIXTURE);
    wire.send(listen('a', { toolsListChanged: true }));
    expect(await wire.next()).toEqual(ack('a', { toolsListChanged: true }));
    wire.send(listen('b', { toolsListChanged: true, promptsListChanged: true }));
    expect(await wire.next()).toEqual(ack('b', { toolsListChanged: true, promptsListChanged: true }));
    wire.send(call(1, 'add_tools', { count: 2 }));
    const both = notificationsIn(await drain(wire, [1], 98));
    expect(both).toHaveLength(2);
    expect(both).toEqual(expect.arrayContaining([changed('tools', 'a'), changed('tools', 'b')]));
    wire.send(cancel('a'));
    wire.send(call(2, 'add_tools', { count: 2 }));
    wire.send(call(3, 'change', { prompts: true }));
    const onlyB = notificationsIn(await drain(wire, [2, 3]));
    expect(onlyB).toHaveLength(2);
    expect(onlyB).toEqual(expect.arrayContaining([changed('tools', 'b'), changed('prompts', 'b')]));
  });

  it('refuses a malformed filter with -32602', async () => {
    await using wire = new RawWire(FIXTURE);
    const bad = [
      undefined,
      'all',
      { toolsListChanged: 'yes' },
      { resourceSubscriptions: 'test://watched-resource' },
      { resourceSubscriptions: [1] },
      // 65 URIs of 4,096 characters: more than the 262,144 a stream (as a session) may watch in all.
      { resourceSubscriptions: Array.from({ length: 65 }, (_, i) => `test://${i}/`.padEnd(4096, 'x')) },
    ];
    for (const [i, notifications] of bad.entries()) {
      expect(await wire.call(i, 'subscriptions/listen', { notifications, _meta: META })).toMatchObject({
        id: i,
        error: { code: -32602 },
      });
    }
  });

  it('sends a connection that never initialized no handshake-era list_changed', async () => {
    await using stateless = new RawWire(FIXTURE);
    stateless.send(call(1, 'add_tools', { count: 2 }));
    expect(await drain(stateless, [1])).toEqual([expect.objectContaining({ id: 1 })]);

    await using handshake = new RawWire(FIXTURE);
    await handshake.initialize('2025-11-25');
    handshake.send({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'add_tools', arguments: { count: 2 } },
    });
    const seen = await drain(handshake, [1]);
    expect(notificationsIn(seen)).toEqual([{ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }]);
  });
});

/** A raw client end of an in-memory pair: what the server sends, as the wire would carry it. */
async function rawMemory(server: Server): Promise<{ end: InMemoryTransport; received: Message[] }> {
  const [end, serverEnd] = createLinkedPair();
  await server.connect(serverEnd);
  const received: Message[] = [];
  end.onmessage = (message) => received.push(message as Message);
  await end.start();
  return { end, received };
}

const send = (end: InMemoryTransport, message: unknown) => end.send(message as JsonRpcMessage);

describe('subscriptions/listen in memory', () => {
  it('ends every open stream with a normal response when the server closes', async () => {
    const { default: create } = (await import(FIXTURE)) as { default: () => Server };
    const server = create();
    const { end, received } = await rawMemory(server);
    await send(end, listen(7, { toolsListChanged: true }));
    await send(end, listen('other', { resourceSubscriptions: ['test://watched-resource'] }));
    await expect.poll(() => serverCore(server).subscriptionCount).toBe(2);
    await server.close();
    expect(serverCore(server).subscriptionCount).toBe(0);
    expect(received.slice(2)).toEqual(
      expect.arrayContaining(
        [7, 'other'].map((id) => ({
          jsonrpc: '2.0',
          id,
          result: {
            resultType: 'complete',
            _meta: { [SUB]: id, 'io.modelcontextprotocol/serverInfo': SERVER_INFO },
          },
        })),
      ),
    );
    expect(received).toHaveLength(4);
  });

  it('honours only the notification types the server supports', async () => {
    const server = new Server({ name: 'bare', version: '1.0.0' });
    server.tool('noop', {}, () => ({ content: [] }));
    const { end, received } = await rawMemory(server);
    const all = {
      toolsListChanged: true,
      promptsListChanged: true,
      resourcesListChanged: true,
      resourceSubscriptions: ['test://x'],
    };
    await send(end, listen(1, all));
    await expect.poll(() => received).toEqual([ack(1, { toolsListChanged: true })]);
    server.tool('another', {}, () => ({ content: [] }));
    await expect.poll(() => received).toEqual([ack(1, { toolsListChanged: true }), changed('tools', 1)]);
    await server.close();
  });

  it('does not tell a stream of a change made before it opened', async () => {
    const server = new Server({ name: 'bare', version: '1.0.0' }, { listChangedDebounceMs: 50 });
    const { end, received } = await rawMemory(server);
    server.tool('early', {}, () => ({ content: [] }));
    await send(end, listen(1, { toolsListChanged: true }));
    await sleep(100);
    expect(received).toEqual([ack(1, { toolsListChanged: true })]);
    await server.close();
  });
});

describe('subscriptions/listen over Streamable HTTP', () => {
  let handle: HttpServerHandle | undefined;
  afterEach(async () => {
    await handle?.close();
    handle = undefined;
  });

  async function start(): Promise<{ server: Server; url: string }> {
    const { default: create } = (await import(FIXTURE)) as { default: () => Server };
    const server = create();
    handle = await serveHttp(server, { port: 0 });
    return { server, url: handle.url };
  }

  const postListen = (url: string, id: number, signal?: AbortSignal) =>
    fetch(url, {
      method: 'POST',
      headers: {
        accept: 'application/json, text/event-stream',
        'content-type': 'application/json',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'subscriptions/listen',
      },
      body: JSON.stringify(listen(id, { toolsListChanged: true })),
      ...(signal ? { signal } : {}),
    });

  it('carries acknowledged, then list_changed, on the listen request stream until the client closes it', async () => {
    const { server, url } = await start();
    const aborter = new AbortController();
    const response = await postListen(url, 5, aborter.signal);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const reader = new SseReader(response);
    expect(await reader.nextMessage()).toEqual(ack(5, { toolsListChanged: true }));
    expect(serverCore(server).subscriptionCount).toBe(1);
    server.tool('late', {}, () => ({ content: [] }));
    server.tool('later', {}, () => ({ content: [] }));
    expect(await reader.nextMessage()).toEqual(changed('tools', 5));
    aborter.abort();
    await expect.poll(() => serverCore(server).subscriptionCount).toBe(0);
    await expect.poll(() => serverCore(server).sessions.size).toBe(0);
  });

  it('ends the stream with the listen response when the server closes', async () => {
    const { server, url } = await start();
    const reader = new SseReader(await postListen(url, 6));
    expect(await reader.nextMessage()).toEqual(ack(6, { toolsListChanged: true }));
    await server.close();
    expect(await reader.nextMessage()).toEqual({
      jsonrpc: '2.0',
      id: 6,
      result: {
        resultType: 'complete',
        _meta: { [SUB]: 6, 'io.modelcontextprotocol/serverInfo': SERVER_INFO },
      },
    });
    expect(await reader.nextMessage()).toBeUndefined();
  });
});

describe('subscriptions/listen and tasks (the tasks extension)', () => {
  const TASKS_META = {
    ...META,
    'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
  };

  it('sends notifications/tasks about the caller’s tasks it names, the detailed task each time', async () => {
    // A task that ends only when the test says so (once the listen stream is acknowledged).
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    const server = new Server({ name: 'tasks', version: '1.0.0' }, { tasks: { pollIntervalMs: 60_000 } });
    server.tool('gated', { task: 'optional' }, async () => {
      await finished;
      return { content: [{ type: 'text', text: 'done' }] };
    });
    const { end, received } = await rawMemory(server);
    const message = (match: (m: Message) => boolean) => received.find(match);
    await send(end, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'gated', arguments: {}, _meta: TASKS_META },
    });
    await expect.poll(() => message((m) => m.id === 1)).toBeDefined();
    const { taskId } = (message((m) => m.id === 1) as { result: { taskId: string } }).result;

    // Without the extension declared: -32021, as the extension says.
    await send(end, listen(2, { taskIds: [taskId] }));
    await expect.poll(() => message((m) => m.id === 2)).toMatchObject({ error: { code: -32021 } });

    await send(end, {
      jsonrpc: '2.0',
      id: 3,
      method: 'subscriptions/listen',
      params: { notifications: { taskIds: [taskId, 'no-such-task'] }, _meta: TASKS_META },
    });
    // Only the caller's existing task is honoured.
    await expect
      .poll(() => message((m) => m.method === 'notifications/subscriptions/acknowledged'))
      .toEqual(ack(3, { taskIds: [taskId] }));
    finish();
    await expect
      .poll(() => received.filter((m) => m.method === 'notifications/tasks').at(-1), { timeout: 5_000 })
      .toEqual({
        jsonrpc: '2.0',
        method: 'notifications/tasks',
        params: expect.objectContaining({
          taskId,
          status: 'completed',
          result: { content: [{ type: 'text', text: 'done' }] },
          _meta: { [SUB]: 3 },
        }),
      });
    await server.close();
  });
});
