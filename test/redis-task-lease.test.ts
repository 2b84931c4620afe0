// A task whose instance dies (`kill -9`) mid-run, on a real Redis with real processes: every instance
// running tasks renews their leases, so a task of a dead instance is settled `failed` (-32603, "The
// server instance running task X stopped before it finished") by the first read on another instance
// once its lease runs out, in both forms of tasks (the 2026-07-28 extension and the 2025-11-25 core);
// a task on a living instance that runs several leases long ends as it should.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_REDIS_PREFIX } from '../src/stores/redis-options.js';
import type { JsonObject } from '../src/protocol/jsonrpc.js';
import { open, rpcTo } from './_http.js';
import { startRedis, type RedisServerHandle } from './_redis.js';

const FIXTURE = new URL('./fixtures/leased-tasks-instance.mjs', import.meta.url).pathname;
/** Renewed every 800 ms: a living instance would have to stall 1.6 s to lose a task. */
const LEASE_MS = 2400;
const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': TASKS,
  'io.modelcontextprotocol/clientInfo': { name: 'raw-tasks', version: '1' },
};

interface Instance {
  url: string;
  child: ChildProcess;
  exited: Promise<unknown>;
}

let redis: RedisServerHandle;
const started: Instance[] = [];

async function instance(): Promise<Instance> {
  const child = spawn(process.execPath, [FIXTURE, redis.url, String(LEASE_MS)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const it: Instance = { url: '', child, exited };
  started.push(it);
  it.url = await Promise.race([
    new Promise<string>((resolve) => createInterface({ input: child.stdout! }).once('line', resolve)),
    exited.then(() => {
      throw new Error(`the instance exited before listening: ${stderr}`);
    }),
  ]);
  return it;
}

async function stop(on: Instance, signal: NodeJS.Signals): Promise<void> {
  if (on.child.exitCode === null && on.child.signalCode === null) on.child.kill(signal);
  await on.exited;
}

beforeAll(async () => {
  redis = await startRedis();
});

afterEach(async () => {
  // SIGKILL: a cleanup that cannot hang on a request still open (nothing here tests a graceful close).
  await Promise.all(started.splice(0).map((on) => stop(on, 'SIGKILL')));
});

afterAll(async () => {
  await redis?.close();
});

/** A request to `on` (stateless-era unless `session` headers are given). */
function rpc(on: Instance, method: string, params: JsonObject, session?: Record<string, string>) {
  return rpcTo(on.url, method, params, META, session);
}

/** A 2025-11-25 session opened on `on` (shared through Redis with every instance): its headers. */
async function openSession(on: Instance): Promise<Record<string, string>> {
  const sessionId = await open(on.url, '2025-11-25', { tasks: { requests: {} } });
  return { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' };
}

const stopped = (taskId: string) => `The server instance running task ${taskId} stopped before it finished`;

describe('a task whose instance is killed', () => {
  it('the 2026-07-28 extension: tasks/get on another instance finds it failed once its lease runs out', async () => {
    const [A, B] = await Promise.all([instance(), instance()]);
    const created = await rpc(A, 'tools/call', { name: 'sleepy', arguments: { ms: 60_000 } });
    const taskId = created.result!.taskId as string;
    expect((await rpc(B, 'tasks/get', { taskId })).result).toMatchObject({ status: 'working' });
    await stop(A, 'SIGKILL');
    // Within the lease and the polling: the task does not wait for its ttl (an hour) to end.
    await expect
      .poll(async () => (await rpc(B, 'tasks/get', { taskId })).result, {
        timeout: LEASE_MS + 10_000,
        interval: 100,
      })
      .toMatchObject({
        status: 'failed',
        statusMessage: stopped(taskId),
        error: { code: -32603, message: stopped(taskId) },
      });
  });

  it('the 2025-11-25 core: a tasks/result waiting on another instance ends with the error', async () => {
    const [A, B] = await Promise.all([instance(), instance()]);
    const session = await openSession(B);
    const created = await rpc(
      A,
      'tools/call',
      { name: 'sleepy', arguments: { ms: 60_000 }, task: {} },
      session,
    );
    const taskId = (created.result!.task as { taskId: string }).taskId;
    const result = rpc(B, 'tasks/result', { taskId }, session);
    expect((await rpc(B, 'tasks/get', { taskId }, session)).result).toMatchObject({ status: 'working' });
    await stop(A, 'SIGKILL');
    expect((await result).error).toEqual({ code: -32603, message: stopped(taskId) });
    expect((await rpc(B, 'tasks/get', { taskId }, session)).result).toMatchObject({
      status: 'failed',
      statusMessage: stopped(taskId),
    });
  });
});

describe('a task on a living instance', () => {
  it('runs on past its lease, renewed: both forms end as their handlers do', async () => {
    const [A, B] = await Promise.all([instance(), instance()]);
    const ms = 3 * LEASE_MS;
    const extension = (await rpc(A, 'tools/call', { name: 'sleepy', arguments: { ms } })).result!
      .taskId as string;
    const session = await openSession(B);
    const core = await rpc(A, 'tools/call', { name: 'sleepy', arguments: { ms }, task: {} }, session);
    const coreId = (core.result!.task as { taskId: string }).taskId;
    // Awaited on B, which reads Redis every poll interval (each read would settle an expired lease).
    const result = await rpc(B, 'tasks/result', { taskId: coreId }, session);
    expect(result.result).toMatchObject({ content: [{ type: 'text', text: `slept ${ms} ms` }] });
    await expect
      .poll(async () => (await rpc(B, 'tasks/get', { taskId: extension })).result!.status, {
        timeout: 10_000,
        interval: 100,
      })
      .toBe('completed');
  });

  it('stops its handler when another instance settled it (its lease ran out while it was cut off)', async () => {
    const [A, B] = await Promise.all([instance(), instance()]);
    const aborted = async () =>
      (
        (await rpc(A, 'tools/call', { name: 'aborted_count', arguments: {} })).result!.structuredContent as {
          aborted: number;
        }
      ).aborted;
    const before = await aborted();
    const created = await rpc(A, 'tools/call', { name: 'sleepy', arguments: { ms: 60_000 } });
    const taskId = created.result!.taskId as string;
    // As if A had not renewed in time: its lease ran out in Redis, and B reads the task first.
    const client = new Redis(redis.url);
    try {
      await client.hset(`${DEFAULT_REDIS_PREFIX}task:t:${taskId}`, 'lease', '0');
    } finally {
      client.disconnect();
    }
    expect((await rpc(B, 'tasks/get', { taskId })).result).toMatchObject({
      status: 'failed',
      error: { code: -32603, message: stopped(taskId) },
    });
    // A's next renewal learns that the task ended: its handler's signal aborts; the record stays failed.
    await expect.poll(aborted, { timeout: 10_000, interval: 100 }).toBe(before + 1);
    expect((await rpc(A, 'tasks/get', { taskId })).result).toMatchObject({ status: 'failed' });
  });
});
