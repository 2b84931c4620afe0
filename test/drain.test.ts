// Stopping without losing work, with real processes: `toolwire serve` answers the requests it has read when
// stdin ends, and on SIGTERM (stdio and HTTP) takes nothing new and lets running calls finish, within the
// server's `shutdownGraceMs`; a call still running then is cancelled and answered with -32603.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BIN } from './_cli.js';
import { RawWire } from './_wire.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/limits-server.mjs', import.meta.url));

const call = (id: number, name: string, args: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});
const text = (id: number, value: string) => ({
  jsonrpc: '2.0',
  id,
  result: { content: [{ type: 'text', text: value }] },
});
const ROOTS_CHANGED = { jsonrpc: '2.0', method: 'notifications/roots/list_changed' };

function stdioServer(options: Record<string, unknown> = {}): RawWire {
  return new RawWire(FIXTURE, { env: { LIMITS_SERVER_OPTIONS: JSON.stringify(options) } });
}

/** Sends pings until one is refused: the server has taken the signal and drains. */
async function untilRefused(wire: RawWire): Promise<unknown> {
  for (let id = 100; id < 150; id++) {
    const answer = (await wire.call(id, 'ping')) as { error?: unknown };
    if (answer.error) return answer;
  }
  throw new Error('the server never started draining');
}

describe('toolwire serve over stdio', () => {
  it('answers every request it read before stdin ended, then exits 0', async () => {
    await using wire = stdioServer();
    await wire.initialize('2025-11-25');
    for (const id of [1, 2, 3]) wire.send(call(id, 'slow', { ms: 300 }));
    wire.send(call(4, 'blob', { size: 5 }));
    wire.child.stdin.end();
    const answers = [await wire.next(), await wire.next(), await wire.next(), await wire.next()];
    expect(answers).toEqual(
      expect.arrayContaining([
        text(1, 'slept 300 ms'),
        text(2, 'slept 300 ms'),
        text(3, 'slept 300 ms'),
        text(4, 'xxxxx'),
      ]),
    );
    expect(await wire.exited).toBe(0);
    expect(wire.stderr).not.toContain('aborted');
  });

  it('on SIGTERM refuses new requests, lets a running call finish, then exits 0', async () => {
    await using wire = stdioServer();
    await wire.initialize('2025-11-25');
    wire.send(call(1, 'hold'));
    await expect.poll(() => wire.stderr).toContain('started hold');
    wire.child.kill('SIGTERM');
    expect(await untilRefused(wire)).toMatchObject({
      error: { code: -32603, message: 'Server shutting down: it takes no new requests' },
    });
    wire.send(ROOTS_CHANGED); // notifications still go in: this one releases the call
    expect(await wire.next()).toEqual(text(1, 'released'));
    expect(await wire.exited).toBe(0);
    expect(wire.stderr).not.toContain('aborted');
  });

  it('cancels a call still running at the end of the grace period, answers it, and exits', async () => {
    await using wire = stdioServer({ shutdownGraceMs: 500 });
    await wire.initialize('2025-11-25');
    wire.send(call(1, 'hold'));
    await expect.poll(() => wire.stderr).toContain('started hold');
    const ended = performance.now();
    wire.child.stdin.end();
    expect(await wire.next()).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: {
        code: -32603,
        message: 'Request cancelled: the server shut down before it finished (grace period 500 ms)',
      },
    });
    expect(await wire.exited).toBe(0);
    const elapsed = performance.now() - ended;
    expect(elapsed).toBeGreaterThanOrEqual(450);
    expect(elapsed).toBeLessThan(8000);
    // The child's exit may be heard before the last of its stderr is read: polled.
    await expect.poll(() => wire.stderr).toContain('aborted hold Request cancelled: the server shut down');
  });

  it('stops at once on a second signal', async () => {
    await using wire = stdioServer();
    await wire.initialize('2025-11-25');
    wire.send(call(1, 'hold'));
    await expect.poll(() => wire.stderr).toContain('started hold');
    wire.child.kill('SIGTERM');
    await untilRefused(wire);
    wire.child.kill('SIGTERM');
    expect(await wire.exited).toBe(0);
    await expect.poll(() => wire.stderr).toContain('aborted hold');
  });
});

/** `toolwire serve FIXTURE --http --port 0` with `options`; resolves with the child and its MCP URL. */
async function httpServer(options: Record<string, unknown> = {}): Promise<{
  child: ChildProcessWithoutNullStreams;
  url: URL;
  stderr: () => string;
  exited: Promise<number | null>;
}> {
  const child = spawn(process.execPath, [BIN, 'serve', FIXTURE, '--http', '--port', '0'], {
    env: { ...process.env, LIMITS_SERVER_OPTIONS: JSON.stringify(options) },
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve) =>
    child.stdout.setEncoding('utf8').once('data', (line: string) => resolve(line.trim())),
  );
  return { child, url: new URL(url), stderr: () => stderr, exited };
}

function post(url: URL, body: unknown, sessionId?: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, {
      method: 'POST',
      headers: {
        accept: 'application/json, text/event-stream',
        'content-type': 'application/json',
        ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
      },
    });
    req.on('response', resolve).on('error', reject);
    req.end(JSON.stringify(body));
  });
}

async function readAll(response: IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of response) body += String(chunk);
  return body;
}

/** The JSON-RPC messages of an SSE body. */
const messagesOf = (body: string): unknown[] =>
  body
    .split('\n')
    .filter((line) => line.startsWith('data: {'))
    .map((line) => JSON.parse(line.slice(6)) as unknown);

const INIT = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

async function openSession(url: URL): Promise<string> {
  const response = await post(url, INIT);
  const sessionId = response.headers['mcp-session-id'] as string;
  await readAll(response);
  (await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, sessionId)).resume();
  return sessionId;
}

describe('toolwire serve --http', () => {
  it('on SIGTERM refuses new sessions with 503, lets a running call finish on its stream, then exits 0', async () => {
    const server = await httpServer();
    try {
      const sessionId = await openSession(server.url);
      const held = await post(server.url, call(1, 'hold'), sessionId);
      await expect.poll(server.stderr).toContain('started hold');
      server.child.kill('SIGTERM');
      let refused: IncomingMessage | undefined;
      for (let i = 0; i < 50 && !refused; i++) {
        const response = await post(server.url, INIT);
        if (response.statusCode === 503) refused = response;
        else response.resume();
      }
      expect(JSON.parse(await readAll(refused!))).toMatchObject({
        error: { code: -32603, message: 'Service Unavailable: the server is shutting down' },
      });
      (await post(server.url, ROOTS_CHANGED, sessionId)).resume(); // releases the call
      expect(messagesOf(await readAll(held))).toEqual([text(1, 'released')]);
      expect(await server.exited).toBe(0);
      expect(server.stderr()).not.toContain('aborted');
    } finally {
      server.child.kill('SIGKILL');
    }
  });

  it('answers a call still running at the end of the grace period with a cancellation, then exits 0', async () => {
    const server = await httpServer({ shutdownGraceMs: 500 });
    try {
      const sessionId = await openSession(server.url);
      const held = await post(server.url, call(1, 'hold'), sessionId);
      await expect.poll(server.stderr).toContain('started hold');
      server.child.kill('SIGTERM');
      expect(messagesOf(await readAll(held))).toEqual([
        {
          jsonrpc: '2.0',
          id: 1,
          error: {
            code: -32603,
            message: 'Request cancelled: the server shut down before it finished (grace period 500 ms)',
          },
        },
      ]);
      expect(await server.exited).toBe(0);
      await expect.poll(server.stderr).toContain('aborted hold');
    } finally {
      server.child.kill('SIGKILL');
    }
  });
});
