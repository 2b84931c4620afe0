import { createServer, request as httpRequest, type Server } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { JsonReply, type HttpRequestLike } from './http-exchange.js';
import { toNodeHandler, type FetchHandler } from './node-adapter.js';

let server: Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

async function listen(handler: FetchHandler): Promise<string> {
  server = createServer(toNodeHandler(handler));
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

describe('toNodeHandler', () => {
  it('gives the handler the method, headers and whole body, and sends its JSON response', async () => {
    const url = await listen({
      async handle(request) {
        const text = await request.text();
        return Response.json(
          { method: request.method, type: request.headers.get('content-type'), text },
          { status: 201, headers: { 'x-seen': 'yes' } },
        );
      },
    });
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"a":1}',
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('x-seen')).toBe('yes');
    expect(await response.json()).toEqual({ method: 'POST', type: 'application/json', text: '{"a":1}' });
  });

  it("aborts the request's signal when the client goes away before the response", async () => {
    let seen: AbortSignal | undefined;
    const aborted = new Promise<void>((resolve) => {
      let hangUp!: () => void;
      void listen({
        handle(request) {
          seen = request.signal;
          request.signal.addEventListener('abort', () => resolve());
          hangUp(); // the client goes away while the request is being handled
          return new Promise<Response>(() => {});
        },
      }).then((url) => {
        const req = httpRequest(url, { method: 'POST', headers: { 'content-type': 'application/json' } });
        req.on('error', () => {});
        hangUp = () => req.destroy();
        req.end('{}');
      });
    });
    await aborted;
    expect(seen?.aborted).toBe(true);
  });

  it('leaves the signal alone once the response was sent', async () => {
    let seen: AbortSignal | undefined;
    const url = await listen({
      handle(request) {
        seen = request.signal;
        return Promise.resolve(new Response(null, { status: 202 }));
      },
    });
    expect((await fetch(url, { method: 'POST', body: '{}' })).status).toBe(202);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(seen?.aborted).toBe(false);
  });
});

describe('the request view of the native path', () => {
  it('gives the path without parsing only where new URL would give the same', async () => {
    server = createServer(
      toNodeHandler({
        serve(request: HttpRequestLike) {
          const parsed = new URL(request.url).pathname;
          return Promise.resolve(
            new JsonReply(200, {}, JSON.stringify({ path: request.path ?? null, parsed })),
          );
        },
      }),
    );
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const get = (path: string) =>
      new Promise<{ path: string | null; parsed: string }>((resolve, reject) => {
        httpRequest({ host: '127.0.0.1', port, path }, (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk.toString()));
          res.on('end', () => resolve(JSON.parse(body) as { path: string | null; parsed: string }));
        })
          .on('error', reject)
          .end();
      });
    expect(await get('/mcp?x=1')).toEqual({ path: '/mcp', parsed: '/mcp' });
    expect(await get('/a/b_c-d')).toEqual({ path: '/a/b_c-d', parsed: '/a/b_c-d' });
    // Dot segments, escapes and other characters: left to new URL (which normalizes them).
    expect(await get('/a/../mcp')).toEqual({ path: null, parsed: '/mcp' });
    expect(await get('/m%63p')).toEqual({ path: null, parsed: '/m%63p' });
    expect(await get('/mcp.json')).toEqual({ path: null, parsed: '/mcp.json' });
  });
});

describe('small POST bodies', () => {
  async function rawPost(port: number, parts: string[]): Promise<string> {
    const socket = connect(port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    for (const part of parts) {
      socket.write(part);
      await new Promise((resolve) => setTimeout(resolve, 30));
    }
    await vi.waitFor(() => expect(received).toContain('}'), { timeout: 2000 });
    socket.destroy();
    return received;
  }

  it('reads a body that comes with its headers, after them, or not at all', async () => {
    server = createServer(
      toNodeHandler({
        serve(request: HttpRequestLike) {
          const text = new TextDecoder().decode(request.wholeBody ?? new Uint8Array(0));
          return Promise.resolve(new JsonReply(200, {}, JSON.stringify({ text })));
        },
      }),
    );
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const head = (length: number) =>
      `POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\nConnection: close\r\n\r\n`;
    expect(await rawPost(port, [head(7) + '{"a":1}'])).toContain('{"text":"{\\"a\\":1}"}');
    expect(await rawPost(port, [head(7), '{"a":', '1}'])).toContain('{"text":"{\\"a\\":1}"}');
    expect(await rawPost(port, [head(0)])).toContain('{"text":""}');
  });
});
