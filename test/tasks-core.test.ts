// 2025-11-25 tasks (SEP-1686, the experimental core of that revision) on the server: exact messages over
// stdio, a task's question over Streamable HTTP (on the stream of a tasks/result request), and an
// in-process peer where a short ttl, a small page size or principals are needed.
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '../src/protocol/jsonrpc.js';
import type { Principal, Server } from '../src/server/index.js';
import { createLinkedPair } from '../src/transports/in-memory.js';
import {
  apiKeyVerifier,
  serveHttp,
  type HttpServerHandle,
  type ServeHttpOptions,
} from '../src/transports/http/index.js';
import { SseReader } from './_sse.js';
import { RawWire } from './_wire.js';
import { serverCore } from '../src/server/server.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/tasks-server.mjs', import.meta.url));
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const RELATED = 'io.modelcontextprotocol/related-task';
const CAPABILITY = { list: {}, cancel: {}, requests: { tools: { call: {} } } };
/** The capability declared to an anonymous HTTP session: no tasks/list. */
const UNLISTED = { cancel: {}, requests: { tools: { call: {} } } };

type Json = Record<string, unknown>;

interface Message {
  id?: number | string;
  method?: string;
  params?: Json;
  result?: Json;
  error?: { code: number; message: string; data?: unknown };
}

/** A handshake-era conversation over any line-oriented wire: requests by id, everything else kept in `seen`. */
class Conversation {
  readonly seen: Message[] = [];
  #id = 0;

  constructor(
    readonly send: (message: Json) => void,
    readonly next: () => Promise<Message>,
  ) {}

  async initialize(protocolVersion = '2025-11-25', capabilities: Json = { elicitation: {} }): Promise<Json> {
    const init = await this.request('initialize', {
      protocolVersion,
      capabilities,
      clientInfo: { name: 'raw-core-tasks', version: '1' },
    });
    this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return init.result!;
  }

  /** Sends a request; resolves with its response (messages read on the way go to `seen`). */
  request(method: string, params: Json = {}): Promise<Message> {
    const id = ++this.#id;
    this.send({ jsonrpc: '2.0', id, method, params });
    return this.response(id);
  }

  async response(id: number): Promise<Message> {
    for (;;) {
      const message = await this.next();
      if (message.id === id && message.method === undefined) return message;
      this.seen.push(message);
    }
  }

  /** The next message the server sent with this method (a request or a notification). */
  async incoming(method: string): Promise<Message> {
    for (;;) {
      const at = this.seen.findIndex((message) => message.method === method);
      if (at >= 0) return this.seen.splice(at, 1)[0]!;
      this.seen.push(await this.next());
    }
  }

  /** Polls tasks/get until the task has `status`. */
  async until(taskId: unknown, status: string): Promise<Json> {
    for (const deadline = Date.now() + 10_000; Date.now() < deadline;) {
      const { result, error } = await this.request('tasks/get', { taskId });
      if (error) throw new Error(`tasks/get: ${error.message}`);
      if (result!.status === status) return result!;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`task ${String(taskId)} never became ${status}`);
  }
}

function overStdio(wire: RawWire): Conversation {
  return new Conversation(
    (message) => wire.send(message),
    async () => (await wire.next(10_000)) as Message,
  );
}

const taskOf = (message: Message) => message.result!.task as Json;

describe('2025-11-25 tasks over stdio', () => {
  it('declares the tasks capability and each tool’s taskSupport to 2025-11-25 sessions only', async () => {
    await using wire = new RawWire(FIXTURE);
    const talk = overStdio(wire);
    const init = await talk.initialize();
    expect(init.capabilities).toMatchObject({ tasks: CAPABILITY });
    expect(init.capabilities).not.toHaveProperty('extensions');
    const { tools } = (await talk.request('tools/list')).result as { tools: Json[] };
    const execution = Object.fromEntries(tools.map((tool) => [tool.name, tool.execution]));
    expect(execution).toMatchObject({
      sleepy: { taskSupport: 'optional' },
      must_task: { taskSupport: 'required' },
      ask_then_work: { taskSupport: 'required' },
      greet: undefined,
    });
  });

  it('answers a task-augmented call with { task }, tasks/get with the task, tasks/result with the result', async () => {
    await using wire = new RawWire(FIXTURE);
    const talk = overStdio(wire);
    await talk.initialize();
    const created = await talk.request('tools/call', {
      name: 'sleepy',
      arguments: { ms: 300 },
      task: { ttl: 60_000 },
    });
    expect(created).toEqual({
      jsonrpc: '2.0',
      id: 2,
      result: {
        task: {
          taskId: expect.stringMatching(UUID),
          status: 'working',
          createdAt: expect.stringMatching(ISO),
          lastUpdatedAt: expect.stringMatching(ISO),
          ttl: 60_000,
          pollInterval: 250,
        },
      },
    });
    const { taskId, createdAt } = taskOf(created);
    expect((await talk.request('tasks/get', { taskId })).result).toEqual(taskOf(created));
    // Blocks until the task ends.
    const payload = await talk.request('tasks/result', { taskId });
    expect(payload.result).toEqual({
      content: [{ type: 'text', text: 'slept 300 ms' }],
      _meta: { [RELATED]: { taskId } },
    });
    const done = await talk.request('tasks/get', { taskId });
    expect(done.result).toEqual({
      taskId,
      status: 'completed',
      createdAt,
      lastUpdatedAt: expect.stringMatching(ISO),
      ttl: 60_000,
      pollInterval: 250,
    });
    const status = await talk.incoming('notifications/tasks/status');
    expect(status.params).toEqual(done.result);
  });

  it('enforces taskSupport with -32601 both ways and refuses a malformed task param with -32602', async () => {
    await using wire = new RawWire(FIXTURE);
    const talk = overStdio(wire);
    await talk.initialize();
    const required = await talk.request('tools/call', { name: 'must_task', arguments: {} });
    expect(required.error).toMatchObject({ code: -32601, message: expect.stringContaining('must_task') });
    const forbidden = await talk.request('tools/call', { name: 'greet', arguments: { name: 'A' }, task: {} });
    expect(forbidden.error).toMatchObject({ code: -32601, message: expect.stringContaining('greet') });
    for (const task of [5, { ttl: -1 }, { ttl: 'long' }]) {
      const bad = await talk.request('tools/call', { name: 'sleepy', arguments: { ms: 1 }, task });
      expect(bad.error).toMatchObject({ code: -32602 });
    }
    const ran = await talk.request('tools/call', { name: 'must_task', arguments: {}, task: {} });
    const payload = await talk.request('tasks/result', { taskId: taskOf(ran).taskId });
    expect(payload.result).toMatchObject({ content: [{ type: 'text', text: 'done' }] });
  });

  it('fails a task with a tool error (keeping its result) or a protocol error; tasks/result answers as the call would', async () => {
    await using wire = new RawWire(FIXTURE);
    const talk = overStdio(wire);
    await talk.initialize();
    const bad = taskOf(await talk.request('tools/call', { name: 'bad_day', task: {} }));
    expect((await talk.request('tasks/result', { taskId: bad.taskId })).result).toEqual({
      content: [{ type: 'text', text: 'it went wrong' }],
      isError: true,
      _meta: { [RELATED]: { taskId: bad.taskId } },
    });
    expect((await talk.request('tasks/get', { taskId: bad.taskId })).result).toMatchObject({
      status: 'failed',
      statusMessage: 'it went wrong',
    });
    const crash = taskOf(await talk.request('tools/call', { name: 'crash', task: {} }));
    expect((await talk.request('tasks/result', { taskId: crash.taskId })).error).toEqual({
      code: -32050,
      message: 'upstream gone',
      data: { retry: false },
    });
  });

  it('asks its questions on a tasks/result stream, tagged with the task, and is input_required meanwhile', async () => {
    await using wire = new RawWire(FIXTURE);
    const talk = overStdio(wire);
    await talk.initialize();
    const { taskId } = taskOf(await talk.request('tools/call', { name: 'confirm', task: {} }));
    const waiting = await talk.until(taskId, 'input_required');
    expect(waiting.statusMessage).toBe('Waiting for input from the client');
    // No question reaches the client before a tasks/result asks for the task.
    expect(talk.seen.filter((message) => message.method === 'elicitation/create')).toEqual([]);
    talk.send({ jsonrpc: '2.0', id: 'result-1', method: 'tasks/result', params: { taskId } });
    const question = await talk.incoming('elicitation/create');
    expect(question.params).toEqual({
      message: 'Delete it?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      _meta: { [RELATED]: { taskId } },
    });
    talk.send({ jsonrpc: '2.0', id: question.id, result: { action: 'accept', content: { name: 'x' } } });
    for (;;) {
      const message = await talk.next();
      if (message.id !== 'result-1') continue;
      expect(message.result).toEqual({
        content: [{ type: 'text', text: 'confirm: accept' }],
        _meta: { [RELATED]: { taskId } },
      });
      break;
    }
  });

  it('sends progress and log messages of a task tagged with it, after the call was answered', async () => {
    await using wire = new RawWire(FIXTURE);
    const talk = overStdio(wire);
    await talk.initialize();
    await talk.request('logging/setLevel', { level: 'info' });
    const created = await talk.request('tools/call', {
      name: 'steps',
      task: {},
      _meta: { progressToken: 'p1' },
    });
    const { taskId } = taskOf(created);
    await talk.request('tasks/result', { taskId });
    const progress = talk.seen.filter((message) => message.method === 'notifications/progress');
    expect(progress.map((message) => message.params)).toEqual(
      [1, 2, 3].map((step) => ({
        progressToken: 'p1',
        progress: step,
        total: 3,
        message: `step ${step}`,
        _meta: { [RELATED]: { taskId } },
      })),
    );
    const logs = talk.seen.filter((message) => message.method === 'notifications/message');
    expect(logs.map((message) => message.params)).toEqual(
      [1, 2, 3].map((step) => ({ level: 'info', data: `step ${step}`, _meta: { [RELATED]: { taskId } } })),
    );
  });

  it('cancels: the task cancelled at once, its handler aborted, -32602 for a task that already ended', async () => {
    await using wire = new RawWire(FIXTURE);
    const talk = overStdio(wire);
    await talk.initialize();
    const { taskId } = taskOf(
      await talk.request('tools/call', { name: 'sleepy', arguments: { ms: 60_000 }, task: {} }),
    );
    const cancelled = await talk.request('tasks/cancel', { taskId });
    expect(cancelled.result).toMatchObject({
      taskId,
      status: 'cancelled',
      statusMessage: 'Cancelled by the client',
    });
    expect((await talk.request('tasks/get', { taskId })).result).toEqual(cancelled.result);
    const again = await talk.request('tasks/cancel', { taskId });
    expect(again.error).toMatchObject({ code: -32602, message: expect.stringContaining("'cancelled'") });
    expect((await talk.request('tasks/result', { taskId })).error).toMatchObject({ code: -32602 });
    const count = await talk.request('tools/call', { name: 'aborted_count', arguments: {} });
    expect(count.result!.structuredContent).toEqual({ aborted: 1 });
  });

  it('lists the tasks of the session that created them, and answers an unknown id or cursor with -32602', async () => {
    await using wire = new RawWire(FIXTURE);
    const talk = overStdio(wire);
    await talk.initialize();
    const ids: unknown[] = [];
    for (const ms of [1, 2]) {
      ids.push(
        taskOf(await talk.request('tools/call', { name: 'sleepy', arguments: { ms }, task: {} })).taskId,
      );
    }
    const listed = (await talk.request('tasks/list')).result as { tasks: Json[] };
    expect(listed.tasks.map((task) => task.taskId)).toEqual(ids);
    expect(listed).not.toHaveProperty('nextCursor');
    expect((await talk.request('tasks/list', { cursor: 'nope' })).error).toMatchObject({ code: -32602 });
    expect((await talk.request('tasks/get', { taskId: 'nope' })).error).toMatchObject({ code: -32602 });
    expect((await talk.request('tasks/update', { taskId: ids[0], inputResponses: {} })).error).toMatchObject({
      code: -32601,
    });
  });
});

/** POSTs one 2025-11-25 JSON-RPC message to `url`, in session `sessionId` if given. */
function postMessage(
  url: string,
  message: Json,
  headers: Record<string, string> = {},
  sessionId?: string,
): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
      'mcp-protocol-version': '2025-11-25',
      ...headers,
      ...(sessionId === undefined ? {} : { 'mcp-session-id': sessionId }),
    },
    body: JSON.stringify({ jsonrpc: '2.0', ...message }),
  });
}

describe('2025-11-25 tasks over Streamable HTTP', () => {
  let handle: HttpServerHandle | undefined;
  afterEach(async () => {
    await handle?.close();
    handle = undefined;
  });

  /** A 2025-11-25 session on the tasks fixture (SSE mode): `post` sends a message in it. */
  async function httpSession() {
    const mod = (await import(FIXTURE)) as { default: () => Server };
    handle = await serveHttp(mod.default(), { port: 0 });
    const url = handle.url;
    const session: { id?: string } = {};
    const post = (message: Json) => postMessage(url, message, {}, session.id);
    const only = async (response: Response) => (await new SseReader(response).nextMessage()) as Message;
    const init = await post({
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: { elicitation: {} },
        clientInfo: { name: 'h', version: '1' },
      },
    });
    session.id = init.headers.get('mcp-session-id')!;
    // An anonymous HTTP session: no tasks/list (see the next test).
    expect((await only(init)).result!.capabilities).toMatchObject({ tasks: UNLISTED });
    expect((await post({ method: 'notifications/initialized' })).status).toBe(202);
    return { post, only };
  }

  it('answers tasks/result on a later POST, carrying the task’s question on that request’s stream', async () => {
    const { post, only } = await httpSession();
    const created = await only(
      await post({ id: 2, method: 'tools/call', params: { name: 'confirm', task: {} } }),
    );
    const { taskId } = taskOf(created);

    const stream = new SseReader(await post({ id: 3, method: 'tasks/result', params: { taskId } }));
    const question = (await stream.nextMessage()) as Message;
    expect(question).toMatchObject({
      method: 'elicitation/create',
      params: { _meta: { [RELATED]: { taskId } } },
    });
    expect((await post({ id: question.id, result: { action: 'decline' } })).status).toBe(202);
    expect(await stream.nextMessage()).toMatchObject({
      id: 3,
      result: { content: [{ type: 'text', text: 'confirm: decline' }], _meta: { [RELATED]: { taskId } } },
    });
  });

  it('answers tasks/get, tasks/list and tasks/cancel with a JSON body, not an SSE stream', async () => {
    const { post, only } = await httpSession();
    const { taskId } = taskOf(
      await only(await post({ id: 2, method: 'tools/call', params: { name: 'confirm', task: {} } })),
    );
    const asked: [number, string, Json][] = [
      [3, 'tasks/get', { taskId }],
      [4, 'tasks/list', {}],
      [5, 'tasks/cancel', { taskId }],
    ];
    for (const [id, method, params] of asked) {
      const response = await post({ id, method, params });
      expect(response.headers.get('content-type')).toBe('application/json');
      // An anonymous HTTP session has no tasks/list (it was not declared): its -32601 comes as JSON too.
      const answer = method === 'tasks/list' ? { error: { code: -32601 } } : { result: expect.any(Object) };
      expect(await response.json()).toMatchObject({ jsonrpc: '2.0', id, ...answer });
    }
    // tasks/result keeps its stream: it waits, and carries the task's questions.
    const result = await post({ id: 6, method: 'tasks/result', params: { taskId } });
    expect(result.headers.get('content-type')).toBe('text/event-stream');
    expect(await only(result)).toMatchObject({ id: 6 });
  });
});

describe('2025-11-25 tasks/list over Streamable HTTP: declared to callers the server can tell apart', () => {
  const servers: HttpServerHandle[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((served) => served.close()));
  });

  async function serve(options: ServeHttpOptions = {}): Promise<string> {
    const mod = (await import(FIXTURE)) as { default: () => Server };
    const served = await serveHttp(mod.default(), { port: 0, responseMode: 'json', ...options });
    servers.push(served);
    return served.url;
  }

  /** A 2025-11-25 session on `url` (its requests with `headers`): what initialize declared, and its requests. */
  async function session(url: string, headers: Record<string, string> = {}) {
    const post = (message: Json, sessionId?: string) => postMessage(url, message, headers, sessionId);
    const init = await post({
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'h', version: '1' } },
    });
    const sessionId = init.headers.get('mcp-session-id') ?? undefined;
    const { result } = (await init.json()) as Message;
    if (sessionId !== undefined)
      expect((await post({ method: 'notifications/initialized' }, sessionId)).status).toBe(202);
    let id = 0;
    return {
      capabilities: result!.capabilities as Json,
      request: async (method: string, params: Json = {}) =>
        (await (await post({ id: ++id, method, params }, sessionId)).json()) as Message,
    };
  }

  it('does not declare nor serve it to anonymous sessions, which get any task by its id', async () => {
    const url = await serve();
    const [alice, bob] = [await session(url), await session(url)];
    for (const anonymous of [alice, bob]) expect(anonymous.capabilities.tasks).toEqual(UNLISTED);
    const { taskId } = taskOf(
      await alice.request('tools/call', { name: 'sleepy', arguments: { ms: 1 }, task: {} }),
    );
    expect((await bob.request('tasks/get', { taskId })).result).toMatchObject({ taskId });
    for (const anonymous of [alice, bob])
      expect((await anonymous.request('tasks/list')).error).toMatchObject({ code: -32601 });
    // Nor on a stateless server, whose every request comes on a connection of its own.
    const stateless = await session(await serve({ stateless: true }));
    expect(stateless.capabilities.tasks).toEqual(UNLISTED);
    expect((await stateless.request('tasks/list')).error).toMatchObject({ code: -32601 });
  });

  it('declares and serves it to authenticated sessions, each principal its own tasks', async () => {
    const url = await serve({
      auth: {
        verifier: apiKeyVerifier({ 'alice-key': { subject: 'alice' }, 'bob-key': { subject: 'bob' } }),
        resource: 'http://localhost/mcp',
        authorizationServers: ['https://issuer.example.test'],
      },
    });
    const alice = await session(url, { authorization: 'Bearer alice-key' });
    const bob = await session(url, { authorization: 'Bearer bob-key' });
    expect(alice.capabilities.tasks).toEqual(CAPABILITY);
    const { taskId } = taskOf(
      await alice.request('tools/call', { name: 'sleepy', arguments: { ms: 1 }, task: {} }),
    );
    const listed = (await alice.request('tasks/list')).result as { tasks: Json[] };
    expect(listed.tasks.map((task) => task.taskId)).toEqual([taskId]);
    expect((await bob.request('tasks/list')).result).toEqual({ tasks: [] });
    expect((await bob.request('tasks/get', { taskId })).error).toMatchObject({ code: -32602 });
  });
});

describe('2025-11-25 tasks in process', () => {
  async function connect(options: JsonObject = {}, principal?: Principal) {
    const server = ((await import(FIXTURE)) as { default: (o: JsonObject) => Server }).default(options);
    return { server, ...(await open(server, principal)) };
  }

  async function open(server: Server, principal?: Principal) {
    const [client, end] = createLinkedPair();
    await server.connect(end, principal ? { principal } : {});
    const queue: Message[] = [];
    const waiters: Array<(message: Message) => void> = [];
    client.onmessage = (message) => {
      const waiter = waiters.shift();
      if (waiter) waiter(message as Message);
      else queue.push(message as Message);
    };
    await client.start();
    const talk = new Conversation(
      (message) => void client.send(message as never),
      () => {
        const queued = queue.shift();
        return queued ? Promise.resolve(queued) : new Promise((resolve) => waiters.push(resolve));
      },
    );
    await talk.initialize();
    return {
      talk,
      async [Symbol.asyncDispose]() {
        await client.close();
        await server.close();
      },
    };
  }

  it('keeps a task at most the server’s ttl, as long as the client asked when shorter, then forgets it', async () => {
    await using peer = await connect({ tasks: { ttlMs: 1500 } });
    const long = taskOf(
      await peer.talk.request('tools/call', {
        name: 'sleepy',
        arguments: { ms: 60_000 },
        task: { ttl: 60_000 },
      }),
    );
    expect(long.ttl).toBe(1500);
    const short = taskOf(
      await peer.talk.request('tools/call', {
        name: 'sleepy',
        arguments: { ms: 60_000 },
        task: { ttl: 900.7 },
      }),
    );
    expect(short.ttl).toBe(900);
    await expect
      .poll(async () => (await peer.talk.request('tasks/get', { taskId: long.taskId })).error, {
        timeout: 10_000,
        interval: 50,
      })
      .toMatchObject({ code: -32602 });
    await expect.poll(() => serverCore(peer.server).tasks!.runningCount).toBe(0);
  });

  it('pages tasks/list with cursors bound to their principal, and binds tasks to the principal that created them', async () => {
    const server = ((await import(FIXTURE)) as { default: (o: JsonObject) => Server }).default({
      pageSize: 2,
    });
    await using alice = await open(server, { subject: 'alice', scopes: [] });
    await using aliceAgain = await open(server, { subject: 'alice', scopes: [] });
    await using bob = await open(server, { subject: 'bob', scopes: [] });
    const ids: unknown[] = [];
    for (let i = 0; i < 3; i++) {
      const created = await alice.talk.request('tools/call', {
        name: 'sleepy',
        arguments: { ms: 1 },
        task: {},
      });
      ids.push(taskOf(created).taskId);
    }
    const first = (await aliceAgain.talk.request('tasks/list')).result as {
      tasks: Json[];
      nextCursor: string;
    };
    expect(first.tasks.map((task) => task.taskId)).toEqual(ids.slice(0, 2));
    const second = (await aliceAgain.talk.request('tasks/list', { cursor: first.nextCursor })).result!;
    expect((second.tasks as Json[]).map((task) => task.taskId)).toEqual(ids.slice(2));
    expect(second).not.toHaveProperty('nextCursor');
    // A cursor is the listing's it was issued for: -32602 for another principal's, and for one made up.
    for (const cursor of [first.nextCursor, 'mzz', 'm1'])
      expect((await bob.talk.request('tasks/list', { cursor })).error).toMatchObject({ code: -32602 });
    expect((await bob.talk.request('tasks/list')).result).toEqual({ tasks: [] });
    expect((await bob.talk.request('tasks/get', { taskId: ids[0] })).error).toMatchObject({ code: -32602 });
    expect((await aliceAgain.talk.request('tasks/result', { taskId: ids[0] })).result).toMatchObject({
      content: [{ text: 'slept 1 ms' }],
    });
  });
});
