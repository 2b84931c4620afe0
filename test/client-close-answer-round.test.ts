// Closing a client while one of its handlers answers a server's question. In the handshake era the
// question is a request of the server's, and the call waits on the connection: closing it rejects the
// call at once. In the stateless era (2026-07-28) the question comes in an `input_required` result and the
// call waits on the client's handler, not on the connection: closing ends it at once all the same, with
// the same error, and the handler is told (its signal aborts). A call that runs as a task ends so too,
// whether it waits between two polls or for the answer to the task's question. Over Streamable HTTP, with
// a real server.
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import type { ElicitParams, ElicitResult } from '../src/index.js';
import { Server, text } from '../src/server/index.js';
import { StreamableHttpClientTransport } from '../src/transports/http-client/index.js';
import { serveHttp, type HttpServerHandle } from '../src/transports/http/index.js';

let handle: HttpServerHandle | undefined;
afterEach(async () => {
  await handle?.close();
  handle = undefined;
});

/** A server whose tool, prompt and resource each ask the user a question before answering. */
async function askingServer(): Promise<string> {
  const server = new Server({ name: 'asker', version: '1.0.0' });
  const ask = async (ctx: { elicit: (params: ElicitParams) => Promise<ElicitResult> }) => {
    const answer = await ctx.elicit({
      message: 'Go on?',
      requestedSchema: { type: 'object', properties: {} },
    });
    return answer.action;
  };
  server.tool('ask', {}, async (_args, ctx) => ask(ctx));
  server.prompt('ask', {}, async (_args, ctx) => ask(ctx));
  server.resource('ask://one', { name: 'one' }, async (_uri, ctx) => ask(ctx));
  handle = await serveHttp(server, { port: 0 });
  return handle.url;
}

/**
 * A server whose tools run as tasks, polled every `pollIntervalMs`: `forever` works until it is cancelled,
 * `confirm` asks the user a question.
 */
async function taskServer(pollIntervalMs: number): Promise<string> {
  const server = new Server({ name: 'tasker', version: '1.0.0' }, { tasks: { pollIntervalMs } });
  server.tool(
    'forever',
    { task: 'optional' },
    (_args, ctx) =>
      new Promise((_resolve, reject) =>
        ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason as Error), { once: true }),
      ),
  );
  server.tool('confirm', { task: 'required' }, async (_args, ctx) => {
    const answer = await ctx.elicit({
      message: 'Go on?',
      requestedSchema: { type: 'object', properties: {} },
    });
    return text(answer.action);
  });
  handle = await serveHttp(server, { port: 0 });
  return handle.url;
}

/**
 * A client of `url` speaking `protocolVersion`, whose elicitation handler never answers by itself: each
 * question it is asked is in `asked` (its signal, and `answer` to answer it late).
 */
async function patientClient(url: string, protocolVersion: '2025-11-25' | '2026-07-28') {
  const asked: { signal: AbortSignal; answer: (result: ElicitResult) => void }[] = [];
  let wake: (() => void) | undefined;
  const client = new Client(
    { name: 'patient', version: '1.0.0' },
    {
      protocolVersion,
      elicitation: (_params, ctx) =>
        new Promise<ElicitResult>((answer) => {
          asked.push({ signal: ctx.signal, answer });
          wake?.();
        }),
    },
  );
  await client.connect(new StreamableHttpClientTransport({ url }));
  /** Resolves once `n` questions were asked. */
  const askedCount = async (n: number) => {
    while (asked.length < n) await new Promise<void>((resolve) => (wake = resolve));
  };
  return { client, asked, askedCount };
}

/** How a promise settled: its error's code, or 'resolved'. */
const outcome = (promise: Promise<unknown>) =>
  promise.then(
    () => 'resolved',
    (error: unknown) => (error as { code?: unknown }).code,
  );

// A timeout well inside the test's: a call that closing does not end fails with REQUEST_TIMEOUT instead.
const TIMEOUT = { timeout: 8_000 };

describe('closing a client while its handler answers a question', () => {
  it.each(['2025-11-25', '2026-07-28'] as const)(
    '%s: ends the tool call, prompt and read waiting for the answer at once with CONNECTION_CLOSED, and aborts the handler',
    async (protocolVersion) => {
      const url = await askingServer();
      const { client, asked, askedCount } = await patientClient(url, protocolVersion);
      const pending = [
        outcome(client.callTool('ask', {}, TIMEOUT)),
        outcome(client.getPrompt('ask', {}, TIMEOUT)),
        outcome(client.readResource('ask://one', TIMEOUT)),
      ];
      await askedCount(3);
      await client.close();
      expect(await Promise.all(pending)).toEqual(Array(3).fill('CONNECTION_CLOSED'));
      expect(asked.map((question) => question.signal.aborted)).toEqual([true, true, true]);
      // An answer that comes after is dropped: nothing is sent on a closed connection, nothing is thrown.
      for (const question of asked) question.answer({ action: 'accept', content: {} });
    },
  );
});

describe('closing a client while it follows a task', () => {
  it.each(['2025-11-25', '2026-07-28'] as const)(
    '%s: ends the call waiting for the next poll at once with CONNECTION_CLOSED',
    async (protocolVersion) => {
      const url = await taskServer(10_000);
      const { client } = await patientClient(url, protocolVersion);
      const task = await client.callToolAsTask('forever');
      expect(task.taskId).toBeDefined();
      const result = outcome(task.result());
      await client.close();
      // Before, it waited for the poll (10 s), which failed with NOT_CONNECTED.
      expect(await result).toBe('CONNECTION_CLOSED');
    },
  );

  it.each(['2025-11-25', '2026-07-28'] as const)(
    '%s: ends the call whose task waits for the handler’s answer at once with CONNECTION_CLOSED, and aborts the handler',
    async (protocolVersion) => {
      const url = await taskServer(50);
      const { client, asked, askedCount } = await patientClient(url, protocolVersion);
      const task = await client.callToolAsTask('confirm');
      const result = outcome(task.result());
      await askedCount(1);
      await client.close();
      expect(await result).toBe('CONNECTION_CLOSED');
      expect(asked[0]!.signal.aborted).toBe(true);
      asked[0]!.answer({ action: 'accept', content: {} });
    },
  );

  it('2026-07-28: ends the call whose task waits for the handler’s answer at once with REQUEST_CANCELLED when its signal aborts', async () => {
    const url = await taskServer(50);
    const { client, asked, askedCount } = await patientClient(url, '2026-07-28');
    const controller = new AbortController();
    const task = await client.callToolAsTask('confirm', {}, { signal: controller.signal });
    const result = outcome(task.result());
    await askedCount(1);
    controller.abort(new Error('Never mind'));
    expect(await result).toBe('REQUEST_CANCELLED');
    expect(asked[0]!.signal.aborted).toBe(true);
    await client.close();
  });
});
