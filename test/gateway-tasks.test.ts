// Tasks through the gateway, end to end with real processes: `toolwire gateway --http` in front of the
// toolwire tasks fixture (a 2025-11-25 upstream: tools that may or must run as tasks) and the official
// server-everything (its simulate-research-query requires a task). A tool that requires a task upstream
// works with a plain call (the gateway runs it as a task upstream); a caller's task of a task tool gets
// task semantics from the gateway (tasks/get, tasks/result, tasks/cancel), its cancel reaching upstream.
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, type ClientOptions } from '../src/client/index.js';
import { StreamableHttpClientTransport } from '../src/transports/http-client/index.js';
import { EVERYTHING, startGateway, toolwireUpstream, writeConfig, type RunningGateway } from './_gateway.js';

const TASKS = fileURLToPath(new URL('./fixtures/tasks-server.mjs', import.meta.url));
const HELD = fileURLToPath(new URL('./fixtures/held-server.mjs', import.meta.url));

let gateway: RunningGateway;
const clients: Client[] = [];

beforeAll(async () => {
  const config = writeConfig({
    upstreams: {
      jobs: toolwireUpstream(TASKS, { protocolVersion: '2025-11-25' }),
      held: toolwireUpstream(HELD, { protocolVersion: '2025-11-25' }),
      everything: { command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'ignore' },
    },
    policy: { default: 'allow' },
  });
  gateway = await startGateway(['--config', config]);
}, 60_000);

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  await gateway?.close();
});

async function connect(options: ClientOptions): Promise<Client> {
  const client = new Client({ name: 'task-caller', version: '1.0.0' }, options);
  await client.connect(new StreamableHttpClientTransport({ url: gateway.url }));
  clients.push(client);
  return client;
}

const texts = (result: { content: { type: string; text?: string }[] }) =>
  result.content.map((block) => block.text);

/** Resolves once `file` exists (the upstream fixture writes it), or fails after 10 s. */
async function written(file: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!existsSync(file)) {
    if (Date.now() > deadline) throw new Error(`${file} was never written`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('tasks through the gateway', () => {
  it('runs tools that require a task upstream for a plain call, and lists task tools as optional', async () => {
    const client = await connect({ protocolVersion: '2025-11-25' });
    const tools = await client.listTools();
    const support = (name: string) => tools.find((tool) => tool.name === name)?.execution?.taskSupport;
    expect(support('jobs__must_task')).toBe('optional');
    expect(support('jobs__sleepy')).toBe('optional');
    expect(support('everything__simulate-research-query')).toBe('optional');
    expect(support('jobs__greet')).toBeUndefined();
    expect(texts(await client.callTool('jobs__must_task', {}))).toEqual(['done']);
    const research = await client.callTool('everything__simulate-research-query', { topic: 'gateways' });
    expect(research.isError).not.toBe(true);
    expect(texts(research).join('\n')).toMatch(/gateways/);
  }, 30_000);

  it("gives a 2025-11-25 caller's task task semantics: tasks/get and tasks/result through the gateway", async () => {
    const client = await connect({ protocolVersion: '2025-11-25' });
    const task = await client.callToolAsTask('jobs__steps', {});
    expect(task.taskId).toEqual(expect.any(String));
    expect(['working', 'completed']).toContain((await client.getTask(task.taskId!)).status);
    expect(texts(await task.result())).toEqual(['stepped']);
    expect((await client.getTask(task.taskId!)).status).toBe('completed');
    expect(texts(await client.taskResult(task.taskId!))).toEqual(['stepped']);
  });

  it.each(['2025-11-25', '2026-07-28'] as const)(
    'cancels the upstream task when a %s caller cancels its task at the gateway',
    async (protocolVersion) => {
      const client = await connect({ protocolVersion });
      const dir = mkdtempSync(path.join(tmpdir(), 'toolwire-gateway-task-'));
      const [file, started, aborted] = ['release', 'started', 'aborted'].map((name) => path.join(dir, name));
      const task = await client.callToolAsTask('held__hold', { file, started, aborted });
      expect(task.taskId).toEqual(expect.any(String));
      await written(started!); // the upstream runs it
      expect((await client.getTask(task.taskId!)).status).toBe('working');
      await client.cancelTask(task.taskId!);
      expect((await client.getTask(task.taskId!)).status).toBe('cancelled');
      await written(aborted!); // the upstream handler's signal aborted: the cancel reached it
      await expect(task.result()).rejects.toThrow();
    },
  );

  it("gives a 2026-07-28 caller's task (the tasks extension) the same, from a 2025-11-25 upstream", async () => {
    const client = await connect({ protocolVersion: '2026-07-28' });
    const task = await client.callToolAsTask('jobs__sleepy', { ms: 10 });
    expect(task.taskId).toEqual(expect.any(String));
    expect(texts(await task.result())).toEqual(['slept 10 ms']);
  });
});
