// The client's tasks, both forms, against toolwire's own server (test/fixtures/tasks-server.mjs): the
// 2025-11-25 core (params.task, tasks/get, tasks/result carrying the server's questions, tasks/list,
// tasks/cancel, status notifications) and the 2026-07-28 extension (the server decides, tasks/get with
// the result inline, tasks/update), over stdio and Streamable HTTP.
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Client, ClientError, type ClientOptions, type TaskInfo } from '../src/client/index.js';
import { ProtocolError } from '../src/protocol/errors.js';
import { Server as SourceServer, text, type Server } from '../src/server/index.js';
import { serveHttp, type HttpServerHandle } from '../src/transports/http/index.js';
import { StreamableHttpClientTransport } from '../src/transports/http-client/index.js';
import { StdioClientTransport } from '../src/transports/stdio/index.js';
import { linkServer, serverCommand } from './_setup.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/tasks-server.mjs', import.meta.url));
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ANSWERS: ClientOptions = {
  elicitation: (params) => ({
    action: 'accept',
    content: { name: params.message === 'First?' ? 'Ada' : 'Bo' },
  }),
};

async function overStdio(options: ClientOptions) {
  const client = new Client({ name: 'tasks-client', version: '1' }, { ...ANSWERS, ...options });
  await client.connect(new StdioClientTransport({ ...serverCommand(FIXTURE), stderr: 'ignore' }));
  return Object.assign(client, { [Symbol.asyncDispose]: () => client.close() });
}

const textOf = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;

/** Every status the handle reports until its task ends. */
async function statusesOf(task: { statuses(): AsyncGenerator<TaskInfo> }): Promise<string[]> {
  const seen: string[] = [];
  for await (const status of task.statuses()) seen.push(status.status);
  return seen;
}

for (const { era, protocolVersion } of [
  { era: '2025-11-25', protocolVersion: '2025-11-25' },
  { era: '2026-07-28', protocolVersion: 'auto' },
] as const) {
  describe(`client tasks, ${era}, over stdio`, () => {
    it('calls a tool as a task: a handle with the task, each status until it ends, then the result', async () => {
      await using client = await overStdio({ protocolVersion });
      const task = await client.callToolAsTask('sleepy', { ms: 400 });
      expect(task.taskId).toMatch(UUID);
      expect(task.status).toMatchObject({ taskId: task.taskId, status: 'working', pollIntervalMs: 250 });
      const statuses = await statusesOf(task);
      expect(statuses[0]).toBe('working');
      expect(statuses.at(-1)).toBe('completed');
      expect(textOf(await task.result())).toBe('slept 400 ms');
      expect(await client.getTask(task.taskId!)).toMatchObject({ status: 'completed' });
      expect(textOf(await client.taskResult(task.taskId!))).toBe('slept 400 ms');
    });

    it('answers the task’s questions through the client’s handlers', async () => {
      await using client = await overStdio({ protocolVersion });
      const seen: string[] = [];
      const result = await client.callTool(
        'two_names',
        {},
        { task: true, onTaskStatus: (t) => seen.push(t.status) },
      );
      expect(textOf(result)).toBe('Ada and Bo');
      expect(seen).toContain('input_required');
      expect(seen.at(-1)).toBe('completed');
    });

    it('answers each task’s questions through the handlers of the call that made it, with two in flight', async () => {
      await using client = await overStdio({ protocolVersion });
      const own = (prefix: string) => ({
        elicitation: (params: { message: string }) => ({
          action: 'accept' as const,
          content: { name: `${prefix}${params.message === 'First?' ? 1 : 2}` },
        }),
      });
      const [a, b] = await Promise.all([
        client.callTool('two_names', {}, { task: true, handlers: own('A') }),
        client.callTool('two_names', {}, { task: true, handlers: own('B') }),
      ]);
      // Not the client's handlers' 'Ada and Bo': nothing but the task says whose question it is.
      expect([textOf(a), textOf(b)]).toEqual(['A1 and A2', 'B1 and B2']);
    });

    it('runs a tool that requires a task as one, even when callTool did not ask', async () => {
      await using client = await overStdio({ protocolVersion });
      const seen: TaskInfo[] = [];
      const result = await client.callTool('must_task', {}, { onTaskStatus: (t) => seen.push(t) });
      expect(textOf(result)).toBe('done');
      expect(seen.at(-1)).toMatchObject({ taskId: expect.stringMatching(UUID), status: 'completed' });
    });

    it('gives a tool error as the result and a protocol error as the rejection', async () => {
      await using client = await overStdio({ protocolVersion });
      const bad = await client.callToolAsTask('bad_day');
      expect(await bad.result()).toMatchObject({ isError: true, content: [{ text: 'it went wrong' }] });
      // 2025-11-25: a tool error fails its task; the extension completes it.
      expect(bad.status!.status).toBe(era === '2025-11-25' ? 'failed' : 'completed');
      const crash = await client.callToolAsTask('crash');
      const error = await crash.result().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ProtocolError);
      expect(error).toMatchObject({ code: -32050, message: 'upstream gone' });
    });

    it('cancels a task from its handle, and by aborting the call', async () => {
      await using client = await overStdio({ protocolVersion });
      const task = await client.callToolAsTask('sleepy', { ms: 60_000 });
      await task.cancel();
      await expect(task.result()).rejects.toMatchObject({ code: 'REQUEST_CANCELLED' });
      expect(await client.getTask(task.taskId!)).toMatchObject({ status: 'cancelled' });

      const controller = new AbortController();
      let taskId: string | undefined;
      const call = client.callTool(
        'sleepy',
        { ms: 60_000 },
        { task: true, signal: controller.signal, onTaskStatus: (t) => (taskId ??= t.taskId) },
      );
      await expect.poll(() => taskId).toBeDefined();
      controller.abort();
      await expect(call).rejects.toBeInstanceOf(ClientError);
      await expect.poll(async () => (await client.getTask(taskId!)).status).toBe('cancelled');
    });

    it('calls inline what cannot be a task: the handle has no task', async () => {
      await using client = await overStdio({ protocolVersion });
      const task = await client.callToolAsTask('greet', { name: 'Ada' });
      expect(task.taskId).toBeUndefined();
      expect(textOf(await task.result())).toBe('Hello, Ada!');
      expect(await statusesOf(task)).toEqual([]);
    });
  });
}

describe('client tasks, the 2025-11-25 specifics', () => {
  it('lists the tasks it created and asks for a ttl', async () => {
    await using client = await overStdio({ protocolVersion: '2025-11-25' });
    const first = await client.callToolAsTask('sleepy', { ms: 1 }, { task: { ttlMs: 30_000 } });
    expect(first.status!.ttlMs).toBe(30_000);
    await first.result();
    const second = await client.callToolAsTask('sleepy', { ms: 1 });
    await second.result();
    expect((await client.listTasks()).map((task) => task.taskId)).toEqual([first.taskId, second.taskId]);
  });

  it('sees the end of a task from its status notification, without waiting for the next poll', async () => {
    const mod = (await import(FIXTURE)) as { default: (options: object) => Server };
    // A poll a minute: only notifications/tasks/status can end this call within the test's time.
    await using linked = await linkServer(mod.default({ tasks: { pollIntervalMs: 60_000 } }), {
      protocolVersion: '2025-11-25',
    });
    const seen: string[] = [];
    const result = await linked.client.callTool(
      'sleepy',
      { ms: 50 },
      { task: true, onTaskStatus: (task) => seen.push(task.status) },
    );
    expect(textOf(result)).toBe('slept 50 ms');
    expect(seen).toEqual(['working', 'completed']);
  });
});

describe('a task that says it completed and never gives its result (2025-11-25)', () => {
  it('fails the call at the request timeout instead of waiting for ever, and cancels the task', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [fileURLToPath(new URL('./fixtures/lying-tasks-server.mjs', import.meta.url))],
      stderr: 'pipe',
    });
    let told = '';
    const client = new Client({ name: 'tasks-client', version: '1' }, { protocolVersion: '2025-11-25' });
    await client.connect(transport);
    transport.stderr?.on('data', (chunk: Buffer) => (told += String(chunk)));
    try {
      const started = performance.now();
      const error = await client.callTool('t', {}, { timeout: 400 }).catch((e: unknown) => e);
      expect(error).toMatchObject({
        code: 'REQUEST_TIMEOUT',
        message: expect.stringMatching(/tasks\/result/),
      });
      // Not held for ever; one tasks/get (it said completed), then tasks/result timed out.
      expect(performance.now() - started).toBeLessThan(10_000);
      expect(told.match(/tasks\/get/g)).toHaveLength(1);
      // Nobody takes its result now: the task is cancelled (it had said it ended; the server may refuse).
      await vi.waitFor(() => expect(told).toContain('tasks/cancel'), { timeout: 5000 });
    } finally {
      await client.close();
    }
  });
});

describe('a 2025-11-25 server that declares neither tasks.list nor tasks.cancel', () => {
  it('is sent no tasks/list nor tasks/cancel: the methods fail locally, an abort or a failed follow sends nothing', async () => {
    const client = new Client({ name: 'tasks-client', version: '1' }, { protocolVersion: '2025-11-25' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [fileURLToPath(new URL('./fixtures/bare-tasks-server.mjs', import.meta.url))],
        stderr: 'ignore',
      }),
    );
    try {
      const unsupported = { code: 'CAPABILITY_NOT_SUPPORTED' };
      expect(() => client.listTasks()).toThrow(expect.objectContaining(unsupported));
      const task = await client.callToolAsTask('t');
      expect(task.taskId).toBe('T1');
      await expect(task.cancel()).rejects.toMatchObject(unsupported);
      await expect(client.cancelTask('T1')).rejects.toMatchObject(unsupported);
      // Aborting a call that runs as a task still rejects it.
      const aborting = new AbortController();
      const call = client.callTool('t', {}, { task: true, signal: aborting.signal });
      setTimeout(() => aborting.abort(new Error('enough')), 150);
      await expect(call).rejects.toMatchObject({ code: 'REQUEST_CANCELLED' });
      // A follow that fails on its own (tasks/result never answers) would cancel the task; not here.
      await expect(client.callTool('lies', {}, { task: true, timeout: 300 })).rejects.toMatchObject({
        code: 'REQUEST_TIMEOUT',
      });
      const seen = textOf(await client.callTool('seen')).split('\n');
      expect(seen).toContain('tasks/get');
      expect(seen.filter((method) => method === 'tasks/list' || method === 'tasks/cancel')).toEqual([]);
    } finally {
      await client.close();
    }
  });
});

describe('client tasks, the 2026-07-28 specifics', () => {
  it('hears a task’s end on the listen stream (notifications/tasks), without waiting for the next poll', async () => {
    // A poll a minute: only notifications/tasks can end this call within the test's time. The tool ends
    // once the listen stream carries its task (so the end cannot come before the client listens).
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    const server = new SourceServer({ name: 'tasks', version: '1' }, { tasks: { pollIntervalMs: 60_000 } });
    server.tool('gated', { task: 'optional' }, async () => {
      await finished;
      return text('done');
    });
    await using linked = await linkServer(server, {});
    expect(linked.client.era).toBe('stateless');
    const task = await linked.client.callToolAsTask('gated');
    await expect.poll(() => linked.client.subscriptions?.taskIds).toEqual([task.taskId]);
    finish();
    expect(textOf(await task.result())).toBe('done');
    expect(task.status?.status).toBe('completed');
    // The task ended: the listen stream no longer names it.
    await expect.poll(() => linked.client.subscriptions?.taskIds).toBeUndefined();
  });

  it('hands a task’s first question to the handler at once, not at the next poll (Streamable HTTP)', async () => {
    // A poll a minute, and a test timeout far below it: only notifications/tasks can bring the question
    // within the test's time. The tool asks as soon as it runs, before the client's listen stream names the
    // task: the server's notification of it goes to no stream, and the client must not wait for its poll.
    const server = new SourceServer({ name: 'asks', version: '1' }, { tasks: { pollIntervalMs: 60_000 } });
    server.tool('asks_at_once', { task: 'optional' }, async (_args, ctx) => {
      const answer = await ctx.elicit({
        message: 'Name?',
        requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      });
      return text(`hello ${String(answer.content?.name)}`);
    });
    const handle = await serveHttp(server, { port: 0 });
    const client = new Client(
      { name: 'asked', version: '1' },
      { protocolVersion: '2026-07-28', elicitation: () => ({ action: 'accept', content: { name: 'Ada' } }) },
    );
    try {
      await client.connect(new StreamableHttpClientTransport({ url: handle.url }));
      const task = await client.callToolAsTask('asks_at_once');
      expect(textOf(await task.result())).toBe('hello Ada');
    } finally {
      await client.close();
      await handle.close();
    }
  }, 5_000);

  it('has no tasks/list in the extension', async () => {
    await using client = await overStdio({});
    expect(client.era).toBe('stateless');
    expect(() => client.listTasks()).toThrow(/tasks\/list does not exist/);
  });
});

describe('client tasks over Streamable HTTP', () => {
  let handle: HttpServerHandle | undefined;
  afterEach(async () => {
    await handle?.close();
    handle = undefined;
  });

  for (const protocolVersion of ['2025-11-25', 'auto'] as const) {
    it(`follows a task with questions to its end (${protocolVersion})`, async () => {
      const mod = (await import(FIXTURE)) as { default: () => Server };
      handle = await serveHttp(mod.default(), { port: 0 });
      const client = new Client({ name: 'http-tasks', version: '1' }, { ...ANSWERS, protocolVersion });
      /** What the client posted: its requests, notifications and answers, as they went on the wire. */
      const posted: Array<{ result?: { action?: string; _meta?: object } }> = [];
      const send: typeof fetch = (input, init) => {
        if (typeof init?.body === 'string') posted.push(JSON.parse(init.body) as (typeof posted)[number]);
        return fetch(input, init);
      };
      await client.connect(new StreamableHttpClientTransport({ url: handle.url, fetch: send }));
      try {
        const task = await client.callToolAsTask('confirm');
        expect(task.taskId).toMatch(UUID);
        expect(textOf(await task.result())).toBe('confirm: accept');
        if (protocolVersion === '2025-11-25') {
          // The answer to the task's question names the task, as the question did.
          const answer = posted.find((message) => message.result?.action === 'accept');
          expect(answer?.result?._meta).toEqual({
            'io.modelcontextprotocol/related-task': { taskId: task.taskId },
          });
        }
      } finally {
        await client.close();
      }
    });
  }
});

describe('progress of a call that runs as a task', () => {
  /** A tool that reports three steps, after the test opens its gate (once the client holds the task). */
  function stepServer(task: 'optional' | { support: 'optional'; start: 'handler' }) {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const server = new SourceServer({ name: 'steps', version: '1' }, { tasks: { pollIntervalMs: 20 } });
    server.tool('slow_steps', { task }, async (_args, ctx) => {
      await ctx.progress(0, 3, 'starting');
      if (typeof task === 'object') await ctx.startTask();
      await gate;
      for (let step = 1; step <= 3; step++) await ctx.progress(step, 3, `step ${step}`);
      return text('stepped');
    });
    return { server, open };
  }

  it('keeps delivering the call’s progress after the task is created (2025-11-25)', async () => {
    const { server, open } = stepServer('optional');
    await using linked = await linkServer(server, { protocolVersion: '2025-11-25' });
    const seen: number[] = [];
    const task = await linked.client.callToolAsTask(
      'slow_steps',
      {},
      { onProgress: (progress) => seen.push(progress.progress) },
    );
    expect(task.taskId).toMatch(UUID);
    open();
    expect(textOf(await task.result())).toBe('stepped');
    expect(seen).toEqual([0, 1, 2, 3]);

    // callTool's task option too; and nothing reaches onProgress once the call is over.
    const again = stepServer('optional');
    await using second = await linkServer(again.server, { protocolVersion: '2025-11-25' });
    const steps: string[] = [];
    const call = second.client.callTool(
      'slow_steps',
      {},
      {
        task: true,
        onTaskStatus: () => again.open(),
        onProgress: (progress) => steps.push(progress.message ?? ''),
      },
    );
    expect(textOf(await call)).toBe('stepped');
    expect(steps).toEqual(['starting', 'step 1', 'step 2', 'step 3']);
  });

  it('delivers the progress a 2026-07-28 call reports before it becomes a task', async () => {
    const { server, open } = stepServer({ support: 'optional', start: 'handler' });
    await using linked = await linkServer(server, {});
    expect(linked.client.era).toBe('stateless');
    const seen: string[] = [];
    const task = await linked.client.callToolAsTask(
      'slow_steps',
      {},
      { onProgress: (progress) => seen.push(progress.message ?? '') },
    );
    expect(task.taskId).toMatch(UUID);
    open();
    expect(textOf(await task.result())).toBe('stepped');
    // Once a task, the extension has no progress on the wire (the call's response stream has ended).
    expect(seen).toEqual(['starting']);
  });
});
