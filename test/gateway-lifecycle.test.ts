// The gateway's and its upstreams' processes coming and going, for real. Stopping the gateway without
// losing work: `toolwire gateway` (HTTP and stdio) with a stdio upstream whose call runs until the test
// lets it go; SIGTERM while that call is in flight: the gateway takes no new request, the running call is
// answered, the upstream process is stopped, exit 0. And an HTTP upstream (`toolwire serve --http`, its
// own process) killed with SIGKILL and started again on its port: its tools leave and come back.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import { StreamableHttpClientTransport } from '../src/transports/http-client/index.js';
import { StdioClientTransport } from '../src/transports/stdio/index.js';
import { BIN, CRASHY_FIXTURE, TOKEN, startGateway, stop, waitForLine, writeConfig } from './_gateway.js';

const HELD = fileURLToPath(new URL('./fixtures/held-server.mjs', import.meta.url));
const UPSTREAM = ['--default', 'allow', '--upstream', 'held', '--', process.execPath, BIN, 'serve', HELD];

const texts = (result: { content: { type: string; text?: string }[] }) =>
  result.content.map((block) => block.text);

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Starts `held__hold` and resolves once the upstream runs it (its progress came through). */
async function holdCall(client: Client) {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'toolwire-held-')), 'release');
  let running!: () => void;
  const started = new Promise<void>((resolve) => (running = resolve));
  const answer = client.callTool('held__hold', { file }, { onProgress: () => running() });
  await started;
  return { answer, release: () => writeFileSync(file, '') };
}

describe('toolwire gateway on SIGTERM', () => {
  it('over HTTP: refuses new requests, answers the call in flight, stops its upstream, exits 0', async () => {
    const gateway = await startGateway(UPSTREAM);
    const client = new Client({ name: 'drain-test', version: '1.0.0' });
    await client.connect(new StreamableHttpClientTransport({ url: gateway.url }));
    try {
      const upstreamPid = Number(texts(await client.callTool('held__pid', {}))[0]);
      expect(isRunning(upstreamPid)).toBe(true);
      const held = await holdCall(client);
      const exited = new Promise<number | null>((resolve) => gateway.child.once('exit', resolve));
      gateway.child.kill('SIGTERM');
      await waitForLine(
        () => gateway.stderr(),
        /stopping: the running calls get up to \d+ ms/,
        gateway.child,
      );
      await expect(client.callTool('held__pid', {})).rejects.toThrow();
      held.release();
      expect(texts(await held.answer)).toEqual(['released']);
      expect(await exited).toBe(0);
      expect(isRunning(upstreamPid)).toBe(false);
    } finally {
      await client.close().catch(() => undefined);
      await gateway.close();
    }
  });

  it('ends a call waiting for approval with an isError result saying why, and exits 0', async () => {
    const gateway = await startGateway(['--policy', 'held.hold=ask', ...UPSTREAM]);
    const client = new Client({ name: 'drain-test', version: '1.0.0' });
    await client.connect(new StreamableHttpClientTransport({ url: gateway.url }));
    try {
      const file = path.join(mkdtempSync(path.join(tmpdir(), 'toolwire-held-')), 'release');
      const answer = client.callTool('held__hold', { file });
      await waitForLine(() => gateway.stderr(), /approval \S+ pending: held\.hold/, gateway.child);
      const exited = new Promise<number | null>((resolve) => gateway.child.once('exit', resolve));
      gateway.child.kill('SIGTERM');
      const result = await answer;
      expect(result.isError).toBe(true);
      expect(texts(result)[0]).toBe('The gateway did not run held__hold: the gateway is shutting down.');
      expect(await exited).toBe(0);
    } finally {
      await client.close().catch(() => undefined);
      await gateway.close();
    }
  });

  it('over stdio: answers the call in flight, stops its upstream, exits 0', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'gateway', '--stdio', ...UPSTREAM],
      env: { ...(process.env as Record<string, string>), TOOLWIRE_TOKEN: TOKEN },
      stderr: 'pipe',
    });
    let stderr = '';
    const client = new Client({ name: 'drain-test', version: '1.0.0' });
    await client.connect(transport);
    transport.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const closed = new Promise<void>((resolve) => (client.onclose = resolve));
    try {
      const upstreamPid = Number(texts(await client.callTool('held__pid', {}))[0]);
      const held = await holdCall(client);
      const stopping = new Promise<void>((resolve) => {
        const check = () => {
          if (!/stopping: the running calls get up to \d+ ms/.test(stderr)) return;
          transport.stderr!.off('data', check);
          resolve();
        };
        transport.stderr!.on('data', check);
      });
      process.kill(transport.pid!, 'SIGTERM');
      await stopping;
      held.release();
      expect(texts(await held.answer)).toEqual(['released']);
      await closed;
      expect(transport.exitStatus).toEqual({ code: 0, signal: null });
      expect(isRunning(upstreamPid)).toBe(false);
    } finally {
      await client.close().catch(() => undefined);
    }
  });
});

/** `toolwire serve --http --port PORT CRASHY` in a process of its own; resolves with it and its URL. */
async function httpUpstream(port: number): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [BIN, 'serve', '--http', '--port', String(port), CRASHY_FIXTURE], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let stdout = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  const [, url] = await waitForLine(() => stdout, /^(http:\/\/\S+\/mcp)\n/, child);
  return { child, url: url! };
}

/** The first text of an SDK client's call result, and whether it is an error. */
function firstText(result: unknown): { text: string | undefined; isError: boolean } {
  const { content, isError } = result as { content: { text?: string }[]; isError?: boolean };
  return { text: content[0]?.text, isError: isError === true };
}

describe('an HTTP upstream process killed and started again', () => {
  it('takes its tools away (list_changed), answers their calls with isError, and brings them back', async () => {
    let upstream = await httpUpstream(0);
    const port = Number(new URL(upstream.url).port);
    const config = writeConfig({
      // The same server met in each era: the health check is a ping (2025-11-25) or a tools/list (2026-07-28).
      upstreams: { web: { url: upstream.url }, old: { url: upstream.url, protocolVersion: '2025-11-25' } },
      policy: { default: 'allow' },
      reconnect: { initialDelayMs: 50, maxDelayMs: 200, checkIntervalMs: 100 },
    });
    const gateway = await startGateway(['--config', config]);
    const client = new ClientV1({ name: 'model-client', version: '1.0.0' });
    await client.connect(new HttpV1(new URL(gateway.url)));
    let changed = 0;
    let onChange: (() => void) | undefined;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changed++;
      onChange?.();
    });
    const listChanged = () => new Promise<void>((resolve) => (onChange = resolve));
    const webTools = async () =>
      (await client.listTools()).tools
        .map((tool) => tool.name)
        .filter((name) => /^(web|old)__/.test(name))
        .sort();
    try {
      const events = await gateway.events();
      /** Waits until both upstreams have reported `status` (one event stream, read in order). */
      const both = async (status: string) => {
        const waiting = new Set(['web', 'old']);
        while (waiting.size > 0) {
          const event = await events.next(
            'upstream.status',
            (e) => e.status === status && waiting.has(e.upstream as string),
          );
          waiting.delete(event.upstream as string);
        }
      };
      const before = firstText(await client.callTool({ name: 'web__hello', arguments: {} }));
      expect(before.text).toBe(`hello from ${upstream.child.pid}`);

      const gone = listChanged();
      const killed = new Promise((resolve) => upstream.child.once('exit', resolve));
      upstream.child.kill('SIGKILL');
      await killed;
      // No call needed: the health check's ping fails, the upstream is down, its tools leave the list.
      await both('down');
      await gone;
      expect(await webTools()).toEqual([]);
      const down = firstText(await client.callTool({ name: 'web__hello', arguments: {} }));
      expect(down.isError).toBe(true);
      expect(down.text).toMatch(/^Upstream web is unavailable/);

      const back = listChanged();
      const changesBefore = changed;
      upstream = await httpUpstream(port);
      await both('ready');
      await back;
      expect(changed).toBeGreaterThan(changesBefore);
      expect(await webTools()).toEqual(['old__crash', 'old__hello', 'web__crash', 'web__hello']);
      const after = firstText(await client.callTool({ name: 'web__hello', arguments: {} }));
      expect(after).toEqual({ text: `hello from ${upstream.child.pid}`, isError: false });
    } finally {
      await client.close().catch(() => undefined);
      await gateway.close();
      await stop(upstream.child);
    }
  });
});
