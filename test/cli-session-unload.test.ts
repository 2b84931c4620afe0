// `--session-unload-ms MS` of `toolwire serve --http --redis URL` and `toolwire gateway --http --redis URL`:
// the HTTP handler's `sessionUnloadMs`, checked at the command line (exit 2 with what is wrong). A real
// `toolwire serve` process on a real Redis, told 50 ms, lets go of an idle session's copy (the process's
// connection count drops) and takes it up again at its next request.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, REPO, runCli } from './_cli.js';
import { open, post } from './_http.js';
import { startRedis, type RedisServerHandle } from './_redis.js';
import { SseReader } from './_sse.js';

let redis: RedisServerHandle;
const children: ReturnType<typeof spawn>[] = [];

beforeAll(async () => {
  redis = await startRedis();
});

afterAll(async () => {
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGTERM');
        }),
    ),
  );
  await redis?.close();
});

/** `toolwire serve MODULE --http --port 0 --redis URL …args`; resolves with its URL once it listens. */
async function serve(module: string, args: readonly string[]): Promise<string> {
  const child = spawn(
    process.execPath,
    [BIN, 'serve', module, '--http', '--port', '0', '--redis', redis.url, ...args],
    { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  children.push(child);
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return Promise.race([
    new Promise<string>((resolve) => createInterface({ input: child.stdout! }).once('line', resolve)),
    new Promise<string>((_, reject) =>
      child.once('exit', (code) => reject(new Error(`toolwire serve exited (${code}): ${stderr}`))),
    ),
  ]);
}

/** How many connections the process holds, asked on `sessionId` (which is then in use). */
async function connections(url: string, sessionId: string): Promise<number> {
  const response = await post(
    url,
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'connections', arguments: {} } },
    { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' },
  );
  expect(response.status).toBe(200);
  const answer = (await new SseReader(response).nextMessage()) as {
    result: { structuredContent: { connections: number } };
  };
  return answer.result.structuredContent.connections;
}

describe('--session-unload-ms', () => {
  it('serve: an idle copy leaves the process after that long; its next request takes it up again', async () => {
    const url = await serve('test/fixtures/connections-server.mjs', ['--session-unload-ms', '50']);
    const idle = await open(url);
    const busy = await open(url);
    // Both were loaded by their `initialize`; no count is read before the poll, since on a loaded machine
    // `idle` may already be gone by then. `busy` is used at every look, `idle` never: its copy goes (at
    // two looks, 50 ms apart; the default would take 5 to 10 s, past this poll's 3 s).
    await expect.poll(() => connections(url, busy), { timeout: 3_000, interval: 25 }).toBe(1);
    expect(await connections(url, idle)).toBe(2);
  });

  it('takes 0 (keep idle copies)', async () => {
    const url = await serve('test/fixtures/connections-server.mjs', ['--session-unload-ms', '0']);
    const session = await open(url);
    expect(await connections(url, session)).toBe(1);
  });

  it('refuses what is not 0 or a positive integer, and a command line without Redis (exit 2)', async () => {
    const serveArgs = ['serve', '--http', '--port', '0', '--redis', redis.url];
    for (const value of ['soon', '1.5', '2147483648']) {
      const run = await runCli([...serveArgs, '--session-unload-ms', value]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(
        `--session-unload-ms must be 0 (keep idle sessions loaded) or a positive integer of milliseconds below 2147483648, got "${value}"`,
      );
    }
    const alone = await runCli(['serve', '--http', '--port', '0', '--session-unload-ms', '100']);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('--session-unload-ms goes with --redis');
    const gateway = ['gateway', '--upstream', 'x=http://127.0.0.1:9/mcp'];
    const wrong = await runCli([...gateway, '--http', '--redis', redis.url, '--session-unload-ms', 'x']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('--session-unload-ms must be 0');
    for (const args of [
      ['--http', '--session-unload-ms', '100'],
      ['--stdio', '--redis', redis.url, '--session-unload-ms', '100'],
    ]) {
      const run = await runCli([...gateway, ...args]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('--session-unload-ms goes with --http and Redis');
    }
  });
});
