// Output a client does not read is bounded per connection, on the wire: a stdio child whose stdout the
// test leaves unread stops reading its stdin (its memory stays flat) and answers everything once the test
// reads; over legacy HTTP+SSE and Streamable HTTP, an unread stream stops its session's POSTs with 429
// while other sessions are served.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Server, ServerOptions } from '../src/server/index.js';
import { StreamableHttpHandler, type StreamableHttpOptions } from '../src/transports/http/index.js';
import { BIN } from './_cli.js';
import { SseReader } from './_sse.js';
import { RawWire } from './_wire.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/limits-server.mjs', import.meta.url));

/** A field of /proc/<pid>/status in MiB (VmRSS: resident now, VmHWM: the peak). */
function memoryMiB(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1];
  return Number(kib) / 1024;
}

/** CPU time the process has used so far, in clock ticks (utime + stime of /proc/<pid>/stat). */
function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/** Resolves once the process has used no CPU for `quietPolls` polls in a row (it waits on something). */
async function idle(pid: number, quietPolls = 3, everyMs = 100): Promise<void> {
  let last = cpuTicks(pid);
  let quiet = 0;
  while (quiet < quietPolls) {
    await new Promise((resolve) => setTimeout(resolve, everyMs));
    const now = cpuTicks(pid);
    quiet = now === last ? quiet + 1 : 0;
    last = now;
  }
}

describe('a stdio client that does not read stdout', () => {
  it('makes the server stop reading stdin, with flat memory, and everything is answered once it reads', async () => {
    await using wire = new RawWire(FIXTURE);
    await wire.initialize('2025-11-25');
    const pid = wire.child.pid!;
    const before = memoryMiB(pid, 'VmRSS');
    wire.pauseReading();
    // 3000 answers of 64 KiB: 188 MiB of output for 0.3 MB of requests.
    const count = 3000;
    for (let id = 1; id <= count; id++) {
      wire.send({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: 'blob', arguments: { size: 65_536 } },
      });
    }
    // Either the server read every request (no backpressure), or it went idle with requests unread.
    const drained = new Promise<void>((resolve) => wire.child.stdin.once('drain', resolve));
    await Promise.race([drained, idle(pid)]);
    expect(wire.child.stdin.writableLength).toBeGreaterThan(0); // requests wait in the pipe, unread
    // Its peak so far: the queue's 8 MiB and a slice of answers, far from the 188 MiB of all of them.
    expect(memoryMiB(pid, 'VmHWM') - before).toBeLessThan(64);

    wire.resumeReading();
    // Every request answered once, in full. Their order is not what this checks (JSON-RPC does not promise
    // one; src/protocol/engine/answer-order.test.ts pins the order of answers the pacer held).
    const answered = new Set<number>();
    for (let n = 1; n <= count; n++) {
      const answer = (await wire.next(20_000)) as { id: number; result: { content: [{ text: string }] } };
      expect(answer.result.content[0].text).toHaveLength(65_536);
      expect(answered.has(answer.id)).toBe(false);
      answered.add(answer.id);
    }
    expect([...answered].sort((a, b) => a - b)).toEqual(Array.from({ length: count }, (_, i) => i + 1));
  });
});

/** A raw HTTP exchange on 127.0.0.1: the status, and the response itself (its body left unread). */
function rawRequest(
  url: URL,
  method: string,
  body?: string,
  headers: Record<string, string> = {},
): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers: { 'content-type': 'application/json', ...headers } });
    req.on('response', resolve).on('error', reject);
    req.end(body);
  });
}

async function readAll(response: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of response) text += String(chunk);
  return text;
}

/** A legacy HTTP+SSE session: its `/sse` response and the URL its messages are POSTed to. */
async function openLegacy(
  base: URL,
): Promise<{ stream: IncomingMessage; messages: URL; next: () => Promise<string> }> {
  const stream = await rawRequest(new URL('/sse', base), 'GET', undefined, { accept: 'text/event-stream' });
  stream.setEncoding('utf8');
  let buffer = '';
  const waiting: Array<(event: string) => void> = [];
  const events: string[] = [];
  stream.on('data', (chunk: string) => {
    buffer += chunk;
    for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const waiter = waiting.shift();
      if (waiter) waiter(event);
      else events.push(event);
    }
  });
  const next = () => {
    const event = events.shift();
    return event !== undefined ? Promise.resolve(event) : new Promise<string>((r) => waiting.push(r));
  };
  const endpoint = /data: (\S+)/.exec(await next())![1]!;
  const messages = new URL(endpoint, base);
  const init = {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  };
  expect((await rawRequest(messages, 'POST', JSON.stringify(init))).statusCode).toBe(202);
  expect(await next()).toContain('"id":0');
  const ack = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });
  expect((await rawRequest(messages, 'POST', ack)).statusCode).toBe(202);
  return { stream, messages, next };
}

const blob = (id: number, size: number) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'blob', arguments: { size } } });

describe('a legacy HTTP+SSE client that does not read its stream', () => {
  it('gets 429 on its POSTs once 8 MiB wait unread, with flat server memory, while another session is served', async () => {
    const child = spawn(process.execPath, [BIN, 'serve', FIXTURE, '--http', '--port', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const url = await new Promise<string>((resolve) =>
        child.stdout.setEncoding('utf8').once('data', (line: string) => resolve(line.trim())),
      );
      const base = new URL(url);
      const pid = child.pid!;
      const stalled = await openLegacy(base);
      const before = memoryMiB(pid, 'VmRSS');
      stalled.stream.pause(); // reads nothing more: the socket, then the server's queue, fill up

      // 64 KiB answers, one POST at a time, until the server refuses (at most 1000: 64 MiB).
      let refused: IncomingMessage | undefined;
      let accepted = 0;
      for (let id = 1; id <= 1000 && !refused; id++) {
        const response = await rawRequest(stalled.messages, 'POST', blob(id, 65_536));
        if (response.statusCode === 202) {
          accepted += 1;
          response.resume();
        } else {
          refused = response;
        }
      }
      expect(refused?.statusCode).toBe(429);
      expect(refused?.headers['retry-after']).toBe('1');
      const body = JSON.parse(await readAll(refused!)) as { error: { code: number; message: string } };
      expect(body.error.code).toBe(-31429);
      expect(body.error.message).toMatch(
        /^Too Many Requests: \d+ bytes in \d+ messages wait for the client to read them \(limits: 8388608 bytes, 4096 messages\); read the session's streams, then retry$/,
      );
      // What the kernel's socket buffers took, plus the 8 MiB queue: nowhere near the 64 MiB asked for.
      expect(accepted * 64).toBeLessThan(32 * 1024);
      expect(memoryMiB(pid, 'VmHWM') - before).toBeLessThan(64);

      // Another session is served as usual.
      const other = await openLegacy(base);
      expect((await rawRequest(other.messages, 'POST', blob(1, 10))).statusCode).toBe(202);
      expect(await other.next()).toContain('xxxxxxxxxx');
      other.stream.destroy();

      // Once the stalled client reads, its session takes requests again.
      stalled.stream.resume();
      for (let i = 0; i < accepted; i++) expect(await stalled.next()).toContain('"result"');
      expect((await rawRequest(stalled.messages, 'POST', blob(5000, 10))).statusCode).toBe(202);
      expect(await stalled.next()).toContain('"id":5000');
      stalled.stream.destroy();
    } finally {
      child.kill();
    }
  });
});

/** The fixture served by a Streamable HTTP handler in this process: its `handle(Request)` seam, no sockets. */
async function handlerFor(
  serverOptions: ServerOptions,
  options: StreamableHttpOptions,
): Promise<{ handler: StreamableHttpHandler; server: Server }> {
  const mod = (await import(FIXTURE)) as { default: (options: ServerOptions) => Server };
  const server = mod.default(serverOptions);
  return { handler: new StreamableHttpHandler(server, options), server };
}

function mcpRequest(method: string, body?: unknown, headers: Record<string, string> = {}): Request {
  return new Request('http://127.0.0.1/mcp', {
    method,
    headers: {
      host: '127.0.0.1',
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
      ...headers,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

async function openStreamable(
  handler: StreamableHttpHandler,
): Promise<{ post: (body: unknown) => Promise<Response>; sessionId: string }> {
  const init = await handler.handle(
    mcpRequest('POST', {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  );
  const sessionId = init.headers.get('mcp-session-id')!;
  await new SseReader(init).nextMessage();
  const headers = { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' };
  const post = (body: unknown) => handler.handle(mcpRequest('POST', body, headers));
  expect((await post({ jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(202);
  return { post, sessionId };
}

const call = (id: number, name: string, args: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});

/** Lets the answers of requests already dispatched be written (they settle in microtasks). */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('a Streamable HTTP client that does not read its streams', () => {
  const limits = { maxQueuedBytes: 256 * 1024, maxQueuedMessages: 100 };

  it('gets 429 on POSTs with requests once its unread streams hold the limit; other sessions are served', async () => {
    const { handler } = await handlerFor({}, limits);
    const { post } = await openStreamable(handler);
    const unread: Response[] = [];
    for (let id = 1; id <= 4; id++) unread.push(await post(call(id, 'blob', { size: 65_536 })));
    await settle();
    const refused = await post(call(5, 'blob', { size: 10 }));
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toMatchObject({ error: { code: -31429, message: /^Too Many Requests: / } });
    // Notifications still go in (a cancellation frees work rather than adding it).
    const cancel = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 99 } };
    expect((await post(cancel)).status).toBe(202);

    const other = await openStreamable(handler);
    const answered = await other.post(call(1, 'blob', { size: 10 }));
    expect(await new SseReader(answered).nextMessage()).toMatchObject({ id: 1, result: {} });

    for (const response of unread)
      expect(await new SseReader(response).nextMessage()).toMatchObject({ result: {} });
    const again = await post(call(6, 'blob', { size: 10 }));
    expect(await new SseReader(again).nextMessage()).toMatchObject({ id: 6, result: {} });
    await handler.close();
  });

  it('ends a stream that alone holds twice the limit; the client resumes it from the event store', async () => {
    const { handler } = await handlerFor({}, limits);
    const { post, sessionId } = await openStreamable(handler);
    // 300 log messages of 1 KiB on one stream, not awaited (awaited, they would wait for the client to
    // read): twice 100 messages is reached first.
    const response = await post(call(1, 'flood', { count: 300, size: 1024, wait: false }));
    await settle();
    const reader = new SseReader(response);
    let lastId: string | undefined;
    let received = 0;
    for (let event = await reader.next(); event; event = await reader.next()) {
      lastId = event.id;
      received += 1;
    }
    expect(received).toBe(200); // what it held at twice the limit, then the end: no answer yet
    const resumed = await handler.handle(
      mcpRequest('GET', undefined, {
        accept: 'text/event-stream',
        'mcp-session-id': sessionId,
        'last-event-id': lastId!,
      }),
    );
    const rest = new SseReader(resumed);
    let answer: Record<string, unknown> | undefined;
    for (let message = await rest.nextMessage(); message; message = await rest.nextMessage())
      answer = message;
    expect(answer).toMatchObject({ id: 1, result: { content: [{ type: 'text', text: 'flooded' }] } });
    await handler.close();
  });

  it('ends an unread GET stream at twice the limit, with server notifications the client never reads', async () => {
    const { handler, server } = await handlerFor({}, { ...limits, eventStore: false });
    const { post, sessionId } = await openStreamable(handler);
    await new SseReader(
      await post({ jsonrpc: '2.0', id: 1, method: 'resources/subscribe', params: { uri: 'test://watched' } }),
    ).nextMessage();
    const stream = await handler.handle(
      mcpRequest('GET', undefined, { accept: 'text/event-stream', 'mcp-session-id': sessionId }),
    );
    for (let i = 0; i < 300; i++) await server.notifyResourceUpdated('test://watched');
    const reader = new SseReader(stream);
    let received = 0;
    while (await reader.nextMessage()) received += 1;
    expect(received).toBe(200);
    // The session lives on: the client may open its GET stream again.
    const reopened = await handler.handle(
      mcpRequest('GET', undefined, { accept: 'text/event-stream', 'mcp-session-id': sessionId }),
    );
    expect(reopened.status).toBe(200);
    await reopened.body?.cancel();
    await handler.close();
  });
});
