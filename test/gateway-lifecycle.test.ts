// Stopping the gateway without losing work, with real processes: `toolwire gateway` (HTTP and stdio) with
// a stdio upstream whose call runs until the test lets it go. SIGTERM while that call is in flight: the
// gateway takes no new request, the running call is answered, the upstream process is stopped, exit 0.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import { StreamableHttpClientTransport } from '../src/transports/http-client/index.js';
import { StdioClientTransport } from '../src/transports/stdio/index.js';
import { BIN, TOKEN, startGateway, waitForLine } from './_gateway.js';

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
