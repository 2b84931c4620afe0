// The toolwire client against the official reference server, `@modelcontextprotocol/server-everything`
// (SDK 1.x, 2025-11-25 tasks: its `simulate-research-query` tool requires a task, runs four one-second
// stages with a status message each, and, when `ambiguous`, asks the client through tasks/result which
// meaning of the topic it wants). Over stdio (its own bin) and Streamable HTTP (its server factory behind
// the SDK's transport, on 127.0.0.1).
import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { Client, type ClientOptions, type TaskInfo } from '../../src/client/index.js';
import type { Transport } from '../../src/protocol/transport.js';
import { StreamableHttpClientTransport } from '../../src/transports/http-client/index.js';
import { StdioClientTransport } from '../../src/transports/stdio/index.js';

const EVERYTHING = fileURLToPath(
  new URL('../../node_modules/@modelcontextprotocol/server-everything/dist/', import.meta.url),
);
const TOOL = 'simulate-research-query';

/** Answers the research tool's question; records what it was asked. */
function answering(asked: unknown[]): ClientOptions {
  return {
    elicitation: (params) => {
      asked.push(params);
      return { action: 'accept', content: { interpretation: 'programming' } };
    },
  };
}

async function connect(transport: Transport, options: ClientOptions): Promise<Client> {
  const client = new Client({ name: 'toolwire-tasks', version: '1' }, options);
  await client.connect(transport);
  return client;
}

const stdio = () =>
  new StdioClientTransport({
    command: process.execPath,
    args: [`${EVERYTHING}index.js`, 'stdio'],
    stderr: 'ignore',
  });

const textOf = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;

describe('toolwire client -> server-everything tasks (2025-11-25), stdio', () => {
  it('runs the research tool as a task because it requires one, following each stage to the report', async () => {
    const client = await connect(stdio(), answering([]));
    try {
      expect(client.protocolVersion).toBe('2025-11-25');
      const tool = (await client.listTools()).find((t) => t.name === TOOL);
      expect(tool?.execution).toEqual({ taskSupport: 'required' });
      const statuses: TaskInfo[] = [];
      // A plain callTool: the tool requires a task, so the client makes one.
      const result = await client.callTool(
        TOOL,
        { topic: 'tides' },
        { onTaskStatus: (t) => statuses.push(t) },
      );
      expect(textOf(result)).toContain('# Research Report: tides');
      expect(statuses.map((s) => s.statusMessage)).toEqual(
        expect.arrayContaining(['Gathering sources...', 'Generating report...']),
      );
      expect(statuses.at(-1)).toMatchObject({ status: 'completed', ttlMs: 300_000, pollIntervalMs: 1000 });
      const [listed] = await client.listTasks();
      expect(listed).toMatchObject({ taskId: statuses[0]!.taskId, status: 'completed' });
      expect(textOf(await client.taskResult(listed!.taskId))).toContain('tides');
    } finally {
      await client.close();
    }
  });

  it('answers its question (input_required, through tasks/result) and cancels a task', async () => {
    const asked: unknown[] = [];
    const client = await connect(stdio(), answering(asked));
    try {
      const task = await client.callToolAsTask(TOOL, { topic: 'python', ambiguous: true });
      const seen: string[] = [];
      for await (const status of task.statuses()) seen.push(status.status);
      expect(seen).toContain('input_required');
      expect(seen.at(-1)).toBe('completed');
      expect(textOf(await task.result())).toContain('# Research Report: python (programming)');
      expect(asked).toEqual([
        expect.objectContaining({
          message: expect.stringContaining('"python"'),
          _meta: { 'io.modelcontextprotocol/related-task': { taskId: task.taskId } },
        }),
      ]);

      const doomed = await client.callToolAsTask(TOOL, { topic: 'moss' });
      await doomed.cancel();
      await expect(doomed.result()).rejects.toMatchObject({ code: 'REQUEST_CANCELLED' });
      expect(await client.getTask(doomed.taskId!)).toMatchObject({ status: 'cancelled' });
    } finally {
      await client.close();
    }
  });
});

describe('toolwire client -> server-everything tasks (2025-11-25), Streamable HTTP', () => {
  let http: HttpServer | undefined;
  afterEach(async () => {
    http?.closeAllConnections();
    await new Promise((resolve) => (http ? http.close(resolve) : resolve(undefined)));
    http = undefined;
  });

  it('follows the research task and answers its question on the tasks/result stream', async () => {
    type Everything = {
      createServer: () => { server: { connect(t: unknown): Promise<void> }; cleanup(id?: string): void };
    };
    const { createServer } = (await import(`${EVERYTHING}server/index.js`)) as Everything;
    const sessions = new Map<string, StreamableHTTPServerTransport>();
    http = createHttpServer((req, res) => {
      const id = req.headers['mcp-session-id'];
      const existing = typeof id === 'string' ? sessions.get(id) : undefined;
      if (existing) return void existing.handleRequest(req, res);
      const everything = createServer();
      const { server } = everything;
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sessionId) => void sessions.set(sessionId, transport),
      });
      transport.onclose = () => everything.cleanup(transport.sessionId);
      void server.connect(transport).then(() => transport.handleRequest(req, res));
    });
    await new Promise<void>((resolve) => http!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;

    const asked: unknown[] = [];
    const client = await connect(new StreamableHttpClientTransport({ url }), answering(asked));
    try {
      const task = await client.callToolAsTask(TOOL, { topic: 'python', ambiguous: true });
      expect(textOf(await task.result())).toContain('python (programming)');
      expect(asked).toHaveLength(1);
      for (const transport of sessions.values()) await transport.close();
    } finally {
      await client.close();
    }
  });
});
