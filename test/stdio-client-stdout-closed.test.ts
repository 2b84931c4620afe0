// A stdio server that closes its stdout and goes on running (test/fixtures/stdout-closer-server.mjs does so
// at its first tools/call): no answer can come any more, so the client fails what it waits for at once,
// refuses later requests, and shuts the process down as the stdio transport's shutdown goes (stdin closed,
// then SIGTERM: this one ignores the end of its stdin).
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import { StdioClientTransport } from '../src/transports/stdio/index.js';

const CLOSER = fileURLToPath(new URL('./fixtures/stdout-closer-server.mjs', import.meta.url));

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
});

describe('StdioClientTransport, a server that closed its stdout and runs on', () => {
  it('fails the call in flight at once, then NOT_CONNECTED, and stops the process with SIGTERM', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLOSER],
      stderr: 'ignore',
      shutdownTimeoutMs: 300,
    });
    const errors: Error[] = [];
    const client = new Client(
      { name: 'stdout-closed', version: '1' },
      { protocolVersion: '2025-11-25', onError: (error) => errors.push(error) },
    );
    cleanup.push(() => client.close());
    await client.connect(transport);
    let closed = false;
    client.onclose = () => (closed = true);
    await expect(client.callTool('close', {}, { timeout: 15_000 })).rejects.toMatchObject({
      code: 'CONNECTION_CLOSED',
    });
    expect(closed).toBe(true);
    expect(errors.map((error) => error.message)).toContainEqual(
      expect.stringMatching(/closed its stdout without exiting; it is being shut down/),
    );
    await expect(client.listTools()).rejects.toMatchObject({ code: 'NOT_CONNECTED' });
    // close() resolves once the process exited: its stdin closed, then SIGTERM (it ignores the end of stdin).
    await transport.close();
    expect(transport.exitStatus).toEqual({ code: null, signal: 'SIGTERM' });
  });
});
