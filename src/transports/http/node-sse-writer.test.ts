import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { SseReply } from './http-exchange.js';
import { toNodeHandler } from './node-adapter.js';
import { SSE_HEADERS } from './sse-wire.js';
import { SseSink } from './sse-sink.js';

let server: Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

/**
 * Serves `reply()` natively; counts the response's `write` and `end` calls, and in `sent` the writes its
 * socket made (each `_write` or `_writev` the socket's stream hands to the connection: a write syscall).
 */
async function listen(reply: () => SseReply): Promise<{ url: string; calls: string[]; sent: string[] }> {
  const calls: string[] = [];
  const sent: string[] = [];
  const handler = toNodeHandler({ serve: () => Promise.resolve(reply()) });
  server = createServer((req, res) => {
    const socket = res.socket as Socket & {
      _write: (chunk: Buffer | string, ...rest: unknown[]) => void;
      _writev: (chunks: { chunk: Buffer | string }[], ...rest: unknown[]) => void;
    };
    const socketWrite = socket._write.bind(socket);
    const socketWritev = socket._writev.bind(socket);
    socket._write = (chunk, ...rest) => (sent.push(String(chunk)), socketWrite(chunk, ...rest));
    socket._writev = (chunks, ...rest) => (
      sent.push(chunks.map((c) => String(c.chunk)).join('')),
      socketWritev(chunks, ...rest)
    );
    const write = res.write.bind(res) as (...args: unknown[]) => boolean;
    const end = res.end.bind(res) as (...args: unknown[]) => typeof res;
    res.write = ((...args: unknown[]) => (calls.push('write'), write(...args))) as typeof res.write;
    res.end = ((...args: unknown[]) => (
      calls.push(args[0] === undefined ? 'end' : 'end+body'),
      end(...args)
    )) as typeof res.end;
    handler(req, res);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, calls, sent };
}

/** A POST whose response is not read until asked: resolves once its headers are in. */
function post(url: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers: { 'content-type': 'application/json' } });
    req.on('response', (res) => {
      res.pause();
      resolve(res);
    });
    req.on('error', reject);
    req.end('{}');
  });
}

function readAll(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => (text += chunk));
    res.on('end', () => resolve(text));
    res.on('error', reject);
    res.resume();
  });
}

describe('the native SSE path of the node adapter', () => {
  it('sends a stream its answer already ended with its headers, in one end()', async () => {
    const { url, calls } = await listen(() => {
      const sink = new SseSink(15_000);
      sink.event({ data: '{"a":1}' });
      sink.event({ id: '7', data: 'two\nlines' });
      sink.close();
      return new SseReply(sink, { ...SSE_HEADERS, 'mcp-session-id': 's' });
    });
    const response = await fetch(url, { method: 'POST', body: '{}' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('mcp-session-id')).toBe('s');
    expect(await response.text()).toBe('data: {"a":1}\n\nid: 7\ndata: two\ndata: lines\n\n');
    expect(calls).toEqual(['end+body']);
  });

  it('sends a live stream with what was queued for the end of its first turn in one write', async () => {
    const { url, sent } = await listen(() => {
      const sink = new SseSink(15_000);
      sink.event({ id: '1', data: '' }); // a session's POST opens with its priming event
      // The answer comes from a callback already queued for the end of the turn, as when the server
      // starts a request a turn after reading it (the answer pacer's waves).
      setImmediate(() => {
        sink.event({ id: '2', data: '{"result":{}}' });
        sink.close();
      });
      return new SseReply(sink, SSE_HEADERS);
    });
    const response = await fetch(url, { method: 'POST', body: '{}' });
    expect(await response.text()).toBe('id: 1\ndata: \n\nid: 2\ndata: {"result":{}}\n\n');
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatch(/^HTTP\/1\.1 200 OK\r\n[^]*id: 1\ndata: [^]*id: 2\n[^]*0\r\n\r\n$/);
  });

  it('sends what a live stream wrote in its first turn at the end of that turn, the rest as written', async () => {
    const sink = new SseSink();
    sink.event({ id: '1', data: '' });
    const { url, sent } = await listen(() => new SseReply(sink, SSE_HEADERS));
    const response = await fetch(url, { method: 'POST', body: '{}' }); // resolves on the headers
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    expect((await reader.read()).value).toBe('id: 1\ndata: \n\n');
    expect(sent).toHaveLength(1);
    sink.event({ data: 'later' });
    expect((await reader.read()).value).toBe('data: later\n\n');
    expect(sent).toHaveLength(2);
    sink.close();
    expect((await reader.read()).done).toBe(true);
  });

  it('sends the headers of a live stream at once, then each event as it is written', async () => {
    const sink = new SseSink();
    const { url } = await listen(() => new SseReply(sink, SSE_HEADERS));
    const response = await fetch(url, { method: 'POST', body: '{}' }); // resolves on the headers alone
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    sink.event({ data: 'first' });
    expect((await reader.read()).value).toBe('data: first\n\n');
    sink.event({ data: 'second' });
    expect((await reader.read()).value).toBe('data: second\n\n');
    sink.close();
    expect((await reader.read()).done).toBe(true);
  });

  it('holds events while the socket is full and sends them all, in order, once the client reads', async () => {
    const sink = new SseSink();
    const { url } = await listen(() => new SseReply(sink, SSE_HEADERS));
    const res = await post(url);
    const filler = 'x'.repeat(16 * 1024);
    let written = 0;
    // The client reads nothing: the socket fills and then the sink's queue holds what is written.
    while (sink.queuedBytes === 0 && written < 4096) sink.event({ data: `${written++} ${filler}` });
    expect(sink.queuedBytes).toBeGreaterThan(0);
    for (let i = 0; i < 3; i++) sink.event({ data: `${written++} ${filler}` });
    sink.close();
    const events = (await readAll(res)).split('\n\n').filter((e) => e.length > 0);
    expect(events.map((e) => Number(/^data: (\d+) /.exec(e)?.[1]))).toEqual(
      Array.from({ length: written }, (_, i) => i),
    );
    expect(sink.queuedBytes).toBe(0);
  });

  it('cancels the stream when the client goes away', async () => {
    const sink = new SseSink();
    const cancelled = new Promise<void>((resolve) => (sink.oncancel = resolve));
    const { url } = await listen(() => new SseReply(sink, SSE_HEADERS));
    const res = await post(url);
    res.destroy();
    await cancelled;
    expect(sink.closed).toBe(true);
    expect(sink.event({ data: 'late' })).toBe(false);
  });
});
