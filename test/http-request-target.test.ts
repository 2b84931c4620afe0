// What reaches the HTTP server before any MCP: request targets that are not paths (`*`, absolute-form),
// Host headers that cannot be a host, and media types. Raw HTTP/1.1 over a socket, since fetch cannot send
// most of these; each gets a 4xx with a clear JSON-RPC error body, never a 500.
import { describe, expect, it } from 'vitest';
import { apiKeyVerifier, toNodeHandler, type ServeHttpOptions } from '../src/transports/http/index.js';
import { INIT, closeServedAfterEach, post, raw, start } from './_http.js';

closeServedAfterEach();

const CONFIGS: Record<string, ServeHttpOptions> = {
  default: {},
  stateless: { stateless: true, responseMode: 'json' },
  'with auth': {
    auth: {
      verifier: apiKeyVerifier({ key: { subject: 'alice' } }),
      resource: 'http://localhost/mcp',
      authorizationServers: ['https://issuer.example.test'],
    },
  },
};

const body = JSON.stringify(INIT());
const requests: Record<string, (port: number) => string> = {
  'OPTIONS *': () => 'OPTIONS * HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n',
  'an absolute-form target': () =>
    'GET http://evil.example/mcp HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\nConnection: close\r\n\r\n',
  'an absolute-form POST': (port) =>
    `POST http://127.0.0.1:${port}/messages?sessionId=x HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
  'a Host with port 99999': () =>
    'GET /mcp HTTP/1.1\r\nHost: localhost:99999\r\nAccept: text/event-stream\r\nConnection: close\r\n\r\n',
  'a Host with port 99999 on the legacy POST path': () =>
    'POST /messages?sessionId=x HTTP/1.1\r\nHost: localhost:99999\r\nContent-Type: application/json\r\n' +
    `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
  'a Host that is no host': () =>
    'POST /mcp HTTP/1.1\r\nHost: local host\r\nAccept: application/json, text/event-stream\r\n' +
    `Content-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
  'two Host headers': () =>
    'GET /mcp HTTP/1.1\r\nHost: localhost\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\nConnection: close\r\n\r\n',
};

describe('request targets and Host headers the server cannot serve', () => {
  for (const [config, options] of Object.entries(CONFIGS)) {
    for (const [name, text] of Object.entries(requests)) {
      it(`answers ${name} with 400 and a JSON-RPC error (${config})`, async () => {
        const { handle } = await start(options);
        const answer = await raw(handle.port, text(handle.port));
        expect(answer.status).toBe(400);
        expect(answer.headers['content-type']).toBe('application/json');
        const error = JSON.parse(answer.body) as {
          jsonrpc: string;
          error: { code: number; message: string };
        };
        expect(error).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
        expect(error.error.message).toMatch(/^Bad Request: the (request target|Host header) /);
      });
    }
  }

  it('answers the same through the fetch-style path of toNodeHandler', async () => {
    const { handle } = await start();
    const { createServer } = await import('node:http');
    const web = createServer(toNodeHandler({ handle: (request) => handle.handler.handle(request) }));
    await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
    const port = (web.address() as { port: number }).port;
    try {
      for (const text of Object.values(requests)) expect((await raw(port, text(port))).status).toBe(400);
    } finally {
      await new Promise((resolve) => web.close(resolve));
    }
  });

  it('answers an HTTP/1.1 request without Host with 400 (node:http refuses it first)', async () => {
    const { handle } = await start();
    const answer = await raw(
      handle.port,
      'GET /mcp HTTP/1.1\r\nAccept: text/event-stream\r\nConnection: close\r\n\r\n',
    );
    expect(answer.status).toBe(400);
  });

  it('still serves a plain request with a loopback Host and port', async () => {
    const { handle } = await start();
    const answer = await raw(
      handle.port,
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${handle.port}\r\nAccept: application/json, text/event-stream\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    );
    expect(answer.status).toBe(200);
    expect(answer.headers['mcp-session-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('media types on the wire', () => {
  it('refuses Accept and Content-Type values that only contain the right names (406, 415)', async () => {
    const { url } = await start();
    const status = async (headers: Record<string, string>) => (await post(url, INIT(), headers)).status;
    expect(await status({ accept: 'application/json-seq, text/event-stream' })).toBe(406);
    expect(await status({ accept: 'application/json, text/event-stream;q=0' })).toBe(406);
    expect(await status({ accept: 'text/plain; x="application/json, text/event-stream"' })).toBe(406);
    expect(await status({ 'content-type': 'application/json-seq' })).toBe(415);
    expect(await status({ 'content-type': 'text/plain; charset="application/json"' })).toBe(415);
    const refused = await post(url, INIT(), { accept: 'application/json-seq, text/event-stream' });
    expect(await refused.json()).toMatchObject({ error: { code: -32600, message: /^Not Acceptable/ } });
    const sse = await fetch(url, { headers: { accept: 'text/event-stream;q=0, */*' } });
    expect(sse.status).toBe(406);
  });

  it('accepts parameters, any case and order, and wildcards', async () => {
    const { url } = await start({ responseMode: 'json' });
    for (const headers of <Record<string, string>[]>[
      { accept: 'Text/Event-Stream;q=0.5, APPLICATION/JSON' },
      { accept: '*/*' },
      { accept: 'application/*, text/*;q=0.1' },
      { 'content-type': 'application/json; charset=UTF-8' },
    ]) {
      const response = await post(url, INIT(), headers);
      expect(response.status, JSON.stringify(headers)).toBe(200);
      expect(await response.json()).toMatchObject({ id: 0, result: { protocolVersion: '2025-11-25' } });
    }
  });
});
