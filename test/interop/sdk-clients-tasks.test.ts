// The official SDK clients driving toolwire's 2025-11-25 tasks over stdio (test/fixtures/tasks-server.mjs):
// SDK 1.x through its experimental tasks API (`callToolStream`: tools/call with params.task, tasks/get
// polling, tasks/result at input_required or completion; getTask, listTasks, cancelTask), which parses
// every message with its zod schemas; SDK 2.x, which has no task API (and checks a tools/call result
// against CallToolResult), through its request(request, resultSchema) with the SDK 1.x task schemas.
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  ElicitRequestSchema,
  GetTaskPayloadResultSchema,
  GetTaskResultSchema,
  ListTasksResultSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { serverCommand } from '../_setup.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/tasks-server.mjs', import.meta.url));
const RELATED = 'io.modelcontextprotocol/related-task';

async function sdkV1(): Promise<Client> {
  const client = new Client({ name: 'sdk-v1-tasks', version: '1' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, (request) => ({
    action: 'accept',
    content: { name: String((request.params._meta?.[RELATED] as { taskId: string }).taskId) },
  }));
  await client.connect(new StdioClientTransport({ ...serverCommand(FIXTURE), stderr: 'ignore' }));
  return client;
}

/** Every message `callToolStream` yields. */
async function stream(client: Client, name: string, args: Record<string, unknown>) {
  const messages: Array<{ type: string; [key: string]: unknown }> = [];
  const stream = client.experimental.tasks.callToolStream({ name, arguments: args }, CallToolResultSchema, {
    task: { ttl: 60_000 },
  });
  for await (const message of stream) messages.push(message as never);
  return messages;
}

describe('SDK 1.x client -> toolwire 2025-11-25 tasks, over stdio', () => {
  it('creates, polls and reads a task with callToolStream', async () => {
    const client = await sdkV1();
    try {
      const { tools } = await client.listTools();
      expect(tools.find((tool) => tool.name === 'sleepy')?.execution).toEqual({ taskSupport: 'optional' });
      const messages = await stream(client, 'sleepy', { ms: 300 });
      expect(messages[0]).toMatchObject({ type: 'taskCreated', task: { status: 'working', ttl: 60_000 } });
      expect(messages.some((m) => m.type === 'taskStatus')).toBe(true);
      expect(messages.at(-1)).toEqual({
        type: 'result',
        result: expect.objectContaining({ content: [{ type: 'text', text: 'slept 300 ms' }] }),
      });
      const taskId = (messages[0]!.task as { taskId: string }).taskId;
      expect(await client.experimental.tasks.getTask(taskId)).toMatchObject({ taskId, status: 'completed' });
      const { tasks } = await client.experimental.tasks.listTasks();
      expect(tasks.map((task) => task.taskId)).toEqual([taskId]);
    } finally {
      await client.close();
    }
  });

  it('answers a task’s question the server sends on the tasks/result stream', async () => {
    const client = await sdkV1();
    try {
      await client.listTools();
      const messages = await stream(client, 'confirm', {});
      expect(messages.at(-1)).toMatchObject({
        type: 'result',
        result: { content: [{ type: 'text', text: 'confirm: accept' }] },
      });
    } finally {
      await client.close();
    }
  });

  it('cancels a task', async () => {
    const client = await sdkV1();
    try {
      await client.listTools();
      const created = await client.request(
        { method: 'tools/call', params: { name: 'sleepy', arguments: { ms: 60_000 }, task: {} } },
        CreateTaskResultSchema,
      );
      const cancelled = await client.experimental.tasks.cancelTask(created.task.taskId);
      expect(cancelled).toMatchObject({ taskId: created.task.taskId, status: 'cancelled' });
    } finally {
      await client.close();
    }
  });
});

describe('SDK 2.x client -> toolwire 2025-11-25 tasks, over stdio', () => {
  it('sends a task-augmented call and the tasks/* methods through its protocol layer', async () => {
    const client = new ClientV2({ name: 'sdk-v2-tasks', version: '2' });
    await client.connect(new StdioV2({ ...serverCommand(FIXTURE), stderr: 'ignore' }));
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
      expect(client.getServerCapabilities()?.tasks).toEqual({
        list: {},
        cancel: {},
        requests: { tools: { call: {} } },
      });
      const call = { name: 'sleepy', arguments: { ms: 200 }, task: { ttl: 30_000 } };
      const created = await client.request({ method: 'tools/call', params: call }, CreateTaskResultSchema);
      expect(created.task.ttl).toBe(30_000);
      const { taskId } = created.task;
      const get = { method: 'tasks/get', params: { taskId } };
      expect(await client.request(get, GetTaskResultSchema)).toMatchObject({ taskId });
      const payload = await client.request({ ...get, method: 'tasks/result' }, GetTaskPayloadResultSchema);
      expect(payload).toMatchObject({
        content: [{ type: 'text', text: 'slept 200 ms' }],
        _meta: { [RELATED]: { taskId } },
      });
      const listed = await client.request({ method: 'tasks/list', params: {} }, ListTasksResultSchema);
      expect(listed).toMatchObject({ tasks: [{ taskId, status: 'completed' }] });
    } finally {
      await client.close();
    }
  });
});
