// The tasks extension of 2026-07-28 (io.modelcontextprotocol/tasks, SEP-2663) on the server: exact
// messages over stdio, the same flows over Streamable HTTP (each request on a session of its own, the
// task outliving it), and an in-process peer where a short ttl, the handshake era or shutdown is needed.
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '../src/protocol/jsonrpc.js';
import type { Server } from '../src/server/index.js';
import { createLinkedPair } from '../src/transports/in-memory.js';
import { serveHttp, type HttpServerHandle } from '../src/transports/http/index.js';
import { SseReader } from './_sse.js';
import { RawWire } from './_wire.js';
import { serverCore } from '../src/server/server.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/tasks-server.mjs', import.meta.url));
const EXTENSION = 'io.modelcontextprotocol/tasks';
const TASKS = { extensions: { [EXTENSION]: {} } };
/** What the requests of these tests declare unless a test says otherwise. */
const CLIENT = { elicitation: {}, ...TASKS };
const SERVER_INFO = { name: 'tasks-fixture', version: '1.0.0' };
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const MISSING_EXTENSION = {
  code: -32021,
  message: expect.stringContaining(EXTENSION),
  data: { requiredCapabilities: { extensions: { [EXTENSION]: {} } } },
};

const META = (capabilities: JsonObject = TASKS): JsonObject => ({
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': capabilities,
  'io.modelcontextprotocol/clientInfo': { name: 'raw-tasks', version: '1' },
});

type Json = Record<string, unknown>;

interface Message {
  id?: number | string;
  result?: Json;
  error?: { code: number; message: string; data?: unknown };
}

/** Sends one request at a time and reads its answer; stateless-era `_meta` added to the params. */
type Rpc = (method: string, params?: JsonObject, capabilities?: JsonObject) => Promise<Message>;

function overWire(wire: RawWire): Rpc {
  let id = 0;
  return async (method, params = {}, capabilities = CLIENT) =>
    (await wire.call(++id, method, { ...params, _meta: META(capabilities) })) as Message;
}

/** Polls `tasks/get` until the task leaves `working` (or reaches `status`). */
async function poll(rpc: Rpc, taskId: unknown, status?: string): Promise<Json> {
  for (const deadline = Date.now() + 10_000; Date.now() < deadline;) {
    const { result, error } = await rpc('tasks/get', { taskId });
    if (error) throw new Error(`tasks/get: ${error.message}`);
    if (status ? result!.status === status : result!.status !== 'working') return result!;
    if (['completed', 'failed', 'cancelled'].includes(result!.status as string))
      throw new Error(`task ended before ${status}: ${JSON.stringify(result)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`task ${String(taskId)} stayed ${status ? 'away from ' + status : 'working'}`);
}

/** The text of a task's inlined tool result. */
const resultText = (task: Json) => (task.result as { content: { text: string }[] }).content[0]!.text;
const keysOf = (value: unknown) => Object.keys(value as object);

const ack = { resultType: 'complete', _meta: { 'io.modelcontextprotocol/serverInfo': SERVER_INFO } };

describe('tasks extension over stdio (2026-07-28)', () => {
  it('advertises the extension in server/discover and not in the handshake era', async () => {
    await using wire = new RawWire(FIXTURE);
    const rpc = overWire(wire);
    const discover = await rpc('server/discover');
    expect(discover.result!.capabilities).toHaveProperty('extensions', { [EXTENSION]: {} });
    expect(discover.result!.capabilities).not.toHaveProperty('tasks');
    const init = (await wire.initialize()) as Message;
    expect(init.result!.capabilities).not.toHaveProperty('extensions');
  });

  it('answers tools/call with a flat CreateTaskResult that tasks/get finds at once, then inlines the result', async () => {
    await using wire = new RawWire(FIXTURE);
    const rpc = overWire(wire);
    // Long enough for tasks/get to find it working even on a busy machine.
    const created = await rpc('tools/call', { name: 'sleepy', arguments: { ms: 1000 } });
    expect(created).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: {
        resultType: 'task',
        taskId: expect.stringMatching(UUID),
        status: 'working',
        createdAt: expect.stringMatching(ISO),
        lastUpdatedAt: expect.stringMatching(ISO),
        ttlMs: 3_600_000,
        pollIntervalMs: 250,
        _meta: { 'io.modelcontextprotocol/serverInfo': SERVER_INFO },
      },
    });
    const taskId = created.result!.taskId;
    const working = await rpc('tasks/get', { taskId });
    expect(working.result).toMatchObject({ resultType: 'complete', taskId, status: 'working' });
    expect(working.result).not.toHaveProperty('result');

    const done = await poll(rpc, taskId);
    expect(done).toEqual({
      resultType: 'complete',
      taskId,
      status: 'completed',
      createdAt: created.result!.createdAt,
      lastUpdatedAt: expect.stringMatching(ISO),
      ttlMs: 3_600_000,
      pollIntervalMs: 250,
      result: { content: [{ type: 'text', text: 'slept 1000 ms' }] },
      _meta: { 'io.modelcontextprotocol/serverInfo': SERVER_INFO },
    });
  });

  it('runs the same tool inline for a request that does not declare the extension', async () => {
    await using wire = new RawWire(FIXTURE);
    const rpc = overWire(wire);
    const inline = await rpc('tools/call', { name: 'sleepy', arguments: { ms: 1 } }, {});
    expect(inline.result).toEqual({
      resultType: 'complete',
      content: [{ type: 'text', text: 'slept 1 ms' }],
      _meta: { 'io.modelcontextprotocol/serverInfo': SERVER_INFO },
    });
    // A tool not declared for tasks runs inline also when the request declares the extension.
    const greet = await rpc('tools/call', { name: 'greet', arguments: { name: 'Ada' }, task: { ttl: 1 } });
    expect(greet.result).toMatchObject({ resultType: 'complete', content: [{ text: 'Hello, Ada!' }] });
  });

  it('refuses a required task tool and every tasks/* method with -32021 without the extension', async () => {
    await using wire = new RawWire(FIXTURE);
    const rpc = overWire(wire);
    expect((await rpc('tools/call', { name: 'must_task' }, {})).error).toEqual(MISSING_EXTENSION);
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      const answer = await rpc(method, { taskId: 'anything', inputResponses: {} }, { elicitation: {} });
      expect(answer.error).toEqual(MISSING_EXTENSION);
    }
  });

  it('reports a tool error as completed with isError, a protocol error as failed with the error', async () => {
    await using wire = new RawWire(FIXTURE);
    const rpc = overWire(wire);
    const toolError = await poll(rpc, (await rpc('tools/call', { name: 'bad_day' })).result!.taskId);
    expect(toolError).toMatchObject({
      status: 'completed',
      result: { content: [{ type: 'text', text: 'it went wrong' }], isError: true },
    });
    const crash = await poll(rpc, (await rpc('tools/call', { name: 'crash' })).result!.taskId);
    expect(crash).toMatchObject({
      status: 'failed',
      statusMessage: 'upstream gone',
      error: { code: -32050, message: 'upstream gone', data: { retry: false } },
    });
    expect(crash).not.toHaveProperty('result');
  });

  it('waits in input_required for tasks/update, ignoring answers to keys it did not ask', async () => {
    await using wire = new RawWire(FIXTURE);
    const rpc = overWire(wire);
    const { taskId } = (await rpc('tools/call', { name: 'confirm' })).result!;
    const waiting = await poll(rpc, taskId, 'input_required');
    expect(waiting.inputRequests).toEqual({
      'elicit-1': {
        method: 'elicitation/create',
        params: {
          message: 'Delete it?',
          requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
        },
      },
    });
    expect(waiting).not.toHaveProperty('requestState');

    const stray = await rpc('tasks/update', { taskId, inputResponses: { nope: { action: 'accept' } } });
    expect(stray.result).toEqual(ack);
    expect((await rpc('tasks/get', { taskId })).result!.status).toBe('input_required');

    const invalid = await rpc('tasks/update', {
      taskId,
      inputResponses: { 'elicit-1': { action: 'maybe' } },
    });
    expect(invalid.error).toMatchObject({ code: -32602, message: expect.stringContaining('elicit-1') });

    const update = await rpc('tasks/update', {
      taskId,
      inputResponses: { 'elicit-1': { action: 'accept' } },
    });
    expect(update).toEqual({ jsonrpc: '2.0', id: update.id, result: ack });
    expect(await poll(rpc, taskId)).toMatchObject({
      status: 'completed',
      result: { content: [{ text: 'confirm: accept' }] },
    });
  });

  it('keeps unanswered questions pending after a partial tasks/update', async () => {
    await using wire = new RawWire(FIXTURE);
    const rpc = overWire(wire);
    const { taskId } = (await rpc('tools/call', { name: 'two_names' })).result!;
    let waiting = await poll(rpc, taskId, 'input_required');
    for (let tries = 0; keysOf(waiting.inputRequests).length < 2 && tries < 50; tries++)
      waiting = (await rpc('tasks/get', { taskId })).result!;
    expect(keysOf(waiting.inputRequests)).toEqual(['elicit-1', 'second']);

    await rpc('tasks/update', {
      taskId,
      inputResponses: { second: { action: 'accept', content: { name: 'Bo' } } },
    });
    const partial = (await rpc('tasks/get', { taskId })).result!;
    expect(partial.status).toBe('input_required');
    expect(keysOf(partial.inputRequests)).toEqual(['elicit-1']);

    await rpc('tasks/update', {
      taskId,
      inputResponses: { 'elicit-1': { action: 'accept', content: { name: 'Al' } } },
    });
    expect(resultText(await poll(rpc, taskId))).toBe('Al and Bo');
  });

  it('fails a task whose question needs a capability the creating request did not declare', async () => {
    await using wire = new RawWire(FIXTURE);
    const rpc = overWire(wire);
    const { taskId } = (await rpc('tools/call', { name: 'needs_sampling' })).result!;
    expect(await poll(rpc, taskId)).toMatchObject({
      status: 'failed',
      error: { code: -32021, data: { requiredCapabilities: { sampling: {} } } },
    });
  });

  it('cancels cooperatively: an empty ack, cancelled at once, the handler aborted, idempotent', async () => {
    await using wire = new RawWire(FIXTURE);
    const rpc = overWire(wire);
    const { taskId } = (await rpc('tools/call', { name: 'sleepy', arguments: { ms: 60_000 } })).result!;
    expect((await rpc('tasks/cancel', { taskId })).result).toEqual(ack);
    const cancelled = (await rpc('tasks/get', { taskId })).result!;
    expect(cancelled).toMatchObject({ status: 'cancelled', statusMessage: 'Cancelled by the client' });
    expect(cancelled).not.toHaveProperty('result');
    expect((await rpc('tasks/cancel', { taskId })).result).toEqual(ack);
    const probe = await rpc('tools/call', { name: 'aborted_count' });
    expect(probe.result!.structuredContent).toEqual({ aborted: 1 });
  });

  it('answers an unknown task id with -32602 and the removed tasks/result and tasks/list with -32601', async () => {
    await using wire = new RawWire(FIXTURE);
    const rpc = overWire(wire);
    for (const method of ['tasks/get', 'tasks/cancel', 'tasks/update']) {
      const answer = await rpc(method, { taskId: 'no-such-task', inputResponses: {} });
      expect(answer.error).toMatchObject({ code: -32602, message: expect.stringContaining('no-such-task') });
    }
    expect((await rpc('tasks/get', {})).error).toMatchObject({ code: -32602 });
    expect((await rpc('tasks/result', { taskId: 'x' })).error).toMatchObject({ code: -32601 });
    expect((await rpc('tasks/list', {})).error).toMatchObject({ code: -32601 });
  });

  it('gathers input with multi round-trip requests first, then becomes a task (start: handler)', async () => {
    await using wire = new RawWire(FIXTURE);
    const rpc = overWire(wire);
    const round1 = await rpc('tools/call', { name: 'ask_then_work' });
    expect(round1.result).toMatchObject({
      resultType: 'input_required',
      inputRequests: { user_name: { method: 'elicitation/create' } },
    });
    expect(round1.result).not.toHaveProperty('taskId');

    const round2 = await rpc('tools/call', {
      name: 'ask_then_work',
      inputResponses: { user_name: { action: 'accept', content: { name: 'Alice' } } },
      requestState: round1.result!.requestState,
    });
    expect(round2.result).toMatchObject({ resultType: 'task', status: 'working' });
    expect(round2.result).not.toHaveProperty('requestState');
    expect(round2.result).not.toHaveProperty('inputRequests');
    const done = await poll(rpc, round2.result!.taskId);
    expect(resultText(done)).toBe('hello Alice (task yes)');
  });

  it('answers inline when a start: handler tool returns without starting its task, once when it starts twice', async () => {
    await using wire = new RawWire(FIXTURE);
    const rpc = overWire(wire);
    const inline = await rpc('tools/call', { name: 'maybe_task', arguments: { long: false } });
    expect(inline.result).toMatchObject({ resultType: 'complete', content: [{ text: 'inline' }] });
    const task = await rpc('tools/call', { name: 'maybe_task', arguments: { long: true } });
    expect(task.result!.resultType).toBe('task');
    expect(resultText(await poll(rpc, task.result!.taskId))).toBe('one task');
  });
});

describe('tasks extension over Streamable HTTP (2026-07-28)', () => {
  let handle: HttpServerHandle | undefined;
  afterEach(async () => {
    await handle?.close();
    handle = undefined;
  });

  async function start(): Promise<Rpc> {
    const mod = (await import(FIXTURE)) as { default: () => Server };
    handle = await serveHttp(mod.default(), { port: 0 });
    const url = handle.url;
    let id = 0;
    return async (method, params = {}, capabilities = CLIENT) => {
      const name = method.startsWith('tasks/') ? params.taskId : params.name;
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          accept: 'application/json, text/event-stream',
          'content-type': 'application/json',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': method,
          ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: ++id,
          method,
          params: { ...params, _meta: META(capabilities) },
        }),
      });
      if (response.headers.get('content-type') === 'application/json')
        return (await response.json()) as Message;
      const reader = new SseReader(response);
      let last: Message | undefined;
      for (let message = await reader.nextMessage(); message; message = await reader.nextMessage())
        last = message as Message;
      return last!;
    };
  }

  it('creates a task whose handler outlives the request, then serves it to later requests', async () => {
    const rpc = await start();
    const created = await rpc('tools/call', { name: 'sleepy', arguments: { ms: 100 } });
    expect(created.result).toMatchObject({ resultType: 'task', status: 'working' });
    expect(handle!.handler.sessionCount).toBe(0); // the request's session is gone, the task is not
    const done = await poll(rpc, created.result!.taskId);
    expect(done).toMatchObject({ status: 'completed', result: { content: [{ text: 'slept 100 ms' }] } });
  });

  it('takes input through tasks/update and cancels through tasks/cancel', async () => {
    const rpc = await start();
    const { taskId } = (await rpc('tools/call', { name: 'confirm' })).result!;
    await poll(rpc, taskId, 'input_required');
    expect(
      (await rpc('tasks/update', { taskId, inputResponses: { 'elicit-1': { action: 'decline' } } })).result,
    ).toMatchObject({ resultType: 'complete' });
    expect(resultText(await poll(rpc, taskId))).toBe('confirm: decline');

    const long = (await rpc('tools/call', { name: 'sleepy', arguments: { ms: 60_000 } })).result!;
    expect((await rpc('tasks/cancel', { taskId: long.taskId })).result).toMatchObject({
      resultType: 'complete',
    });
    expect((await rpc('tasks/get', { taskId: long.taskId })).result!.status).toBe('cancelled');
  });

  it('refuses tasks/get without the extension with -32021', async () => {
    const rpc = await start();
    expect((await rpc('tasks/get', { taskId: 'x' }, {})).error).toEqual(MISSING_EXTENSION);
  });
});

describe('tasks extension in process', () => {
  async function connect(options: JsonObject = {}) {
    const server = ((await import(FIXTURE)) as { default: (o: JsonObject) => Server }).default(options);
    const [client, end] = createLinkedPair();
    await server.connect(end);
    const waiting = new Map<unknown, (message: Message) => void>();
    client.onmessage = (message) => waiting.get((message as Message).id)?.(message as Message);
    await client.start();
    let id = 0;
    const send = (method: string, params: JsonObject): Promise<Message> => {
      const answer = new Promise<Message>((resolve) => waiting.set(++id, resolve));
      void client.send({ jsonrpc: '2.0', id, method, params });
      return answer;
    };
    const rpc: Rpc = (method, params = {}, capabilities = CLIENT) =>
      send(method, { ...params, _meta: META(capabilities) });
    return {
      server,
      send,
      rpc,
      async [Symbol.asyncDispose]() {
        await client.close();
        await server.close();
      },
    };
  }

  it('forgets a task once its ttl has elapsed (-32602) and aborts a handler still running', async () => {
    // A ttl long enough for the next request to find the task even on a busy machine; then it goes away.
    await using peer = await connect({ tasks: { ttlMs: 1000 } });
    const created = await peer.rpc('tools/call', { name: 'sleepy', arguments: { ms: 60_000 } });
    expect(created.result!.ttlMs).toBe(1000);
    expect((await peer.rpc('tasks/get', { taskId: created.result!.taskId })).result!.status).toBe('working');
    await expect
      .poll(async () => (await peer.rpc('tasks/get', { taskId: created.result!.taskId })).error, {
        timeout: 10_000,
        interval: 50,
      })
      .toMatchObject({ code: -32602 });
    await expect.poll(() => serverCore(peer.server).tasks!.runningCount).toBe(0);
  });

  it('leaves revisions before 2025-11-25 alone: task tools run inline, tasks/* do not exist', async () => {
    await using peer = await connect();
    const init = await peer.send('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: TASKS,
      clientInfo: { name: 'handshake', version: '1' },
    });
    expect(init.result!.capabilities).not.toHaveProperty('extensions');
    expect(init.result!.capabilities).not.toHaveProperty('tasks');
    const { tools } = (await peer.send('tools/list', {})).result as { tools: Json[] };
    expect(tools.find((tool) => tool.name === 'must_task')).not.toHaveProperty('execution');
    const call = await peer.send('tools/call', { name: 'must_task', arguments: {} });
    expect(call.result).toEqual({ content: [{ type: 'text', text: 'done' }] });
    expect((await peer.send('tasks/get', { taskId: 'x' })).error).toMatchObject({ code: -32601 });
  });

  it('fails the tasks still running when the server shuts down', async () => {
    const peer = await connect();
    const { taskId } = (await peer.rpc('tools/call', { name: 'sleepy', arguments: { ms: 60_000 } })).result!;
    const store = peer.server.tasks!;
    await peer[Symbol.asyncDispose]();
    await expect
      .poll(() => store.get(String(taskId)))
      .toMatchObject({
        status: 'failed',
        error: { code: -32603, message: 'The server shut down before the task finished' },
      });
  });

  it('turns tasks on for a server whose tool declares them, and not for one without', async () => {
    const { Server: ServerClass } = await import('../src/server/index.js');
    const plain = new ServerClass({ name: 'plain', version: '1' });
    plain.tool('x', {}, () => 'x');
    expect(plain.tasks).toBeUndefined();
    expect(plain.capabilities).not.toHaveProperty('extensions');
    expect(plain.capabilities).not.toHaveProperty('tasks');
    const handle = plain.tool('y', {}, () => 'y');
    handle.update({ task: 'optional' });
    expect(plain.capabilities.extensions).toEqual({ [EXTENSION]: {} });
    expect(plain.capabilities.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
    expect(() => plain.tool('z', { task: 'sometimes' as never }, () => 'z')).toThrow(/task must be/);
    expect(() => new ServerClass({ name: 'bad', version: '1' }, { tasks: { ttlMs: 0 } })).toThrow(/ttlMs/);
  });
});
