// `toolwire serve --http`: prints its URL, serves Streamable HTTP there, exits on SIGTERM.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { runCli } from './_cli.js';

describe('toolwire serve --http', () => {
  it('serves a module over HTTP on 127.0.0.1 and prints the URL', async () => {
    const child = spawn(
      process.execPath,
      ['bin/toolwire.mjs', 'serve', 'test/fixtures/protocol-server.mjs', '--http', '--port', '0', '--json'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const url = await new Promise<string>((resolve) =>
      createInterface({ input: child.stdout }).once('line', resolve),
    );
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const response = await fetch(url, {
      method: 'POST',
      headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }),
    });
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toMatchObject({
      id: 1,
      result: { protocolVersion: '2025-06-18', serverInfo: { name: 'protocol-fixture' } },
    });
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('refuses HTTP options without --http', async () => {
    const child = spawn(process.execPath, ['bin/toolwire.mjs', 'serve', '--port', '1'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(2);
  });

  it('exits 2 when the port is taken, suggesting --port', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as { port: number };
    try {
      const result = await runCli(['serve', '--http', '--port', String(port)]);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe(
        `toolwire: cannot serve over HTTP: port ${port} on 127.0.0.1 is already in use\n` +
          `Pick another with --port, e.g. --port 3000, or --port 0 for any free one.\n`,
      );
    } finally {
      await new Promise<void>((resolve) => taken.close(() => resolve()));
    }
  });

  it('exits 2 for a --port that is not 0-65535 in digits, and a --host of no address here', async () => {
    // '' used to serve on a free port (Number('') is 0); the hosts exited 4 with getaddrinfo's words.
    for (const port of ['', '1e3', '0x50', ' 80', '65536']) {
      const result = await runCli(['serve', '--http', '--port', port]);
      expect(result.code, port).toBe(2);
      expect(result.stderr, port).toMatch(new RegExp(`^toolwire: --port must be 0-65535, got "${port}"\n`));
      expect(result.stdout).toBe('');
    }
    // 192.0.2.1: TEST-NET-1, for documentation, no machine's own address.
    for (const [host, why] of [
      ['192.0.2.1', 'is not an address of this machine'],
      ['999.1.1.1', 'does not resolve'],
    ] as const) {
      const result = await runCli(['serve', '--http', '--host', host, '--port', '0']);
      expect(result.code, host).toBe(2);
      expect(result.stderr).toBe(
        `toolwire: cannot serve over HTTP: --host ${host} ${why}\n` +
          'Pick an interface of this machine with --host, e.g. --host 127.0.0.1 (the default) or --host 0.0.0.0.\n',
      );
    }
  });
});
