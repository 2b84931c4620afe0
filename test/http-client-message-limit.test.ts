// The HTTP client transports read no message past `maxMessageSize`: a server that answers with a body or
// an SSE event of hundreds of MiB (hand-written node:http servers on 127.0.0.1) makes the request fail at
// once with MESSAGE_TOO_LARGE, and the rest is never read — the server sees the connection go long before
// it could write it all. Both eras, JSON and SSE answers, the standalone GET stream, the legacy HTTP+SSE
// transport, and error bodies.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import { ToolwireError } from '../src/protocol/index.js';
import {
  SseClientTransport,
  StreamableHttpClientTransport,
  TransportError,
} from '../src/transports/http-client/index.js';
import { closeAll, connectClient, listen, sseHead, track, until } from './_http-client.js';

afterEach(closeAll);

const MiB = 1024 * 1024;
/** What each hostile answer would be, whole: far over the limits used here. */
const TOTAL_MIB = 256;

/** Writes `head`, then up to TOTAL_MIB MiB of `x` (waiting for the reader), then `tail`; counts what went. */
async function flood(
  res: ServerResponse,
  head: string,
  tail: string,
  sent: { bytes: number; whole: boolean },
) {
  const chunk = 'x'.repeat(MiB);
  res.write(head);
  for (let i = 0; i < TOTAL_MIB; i++) {
    if (res.destroyed || res.writableEnded) return;
    sent.bytes += chunk.length;
    if (!res.write(chunk)) {
      await new Promise<void>((resolve) => {
        res.once('drain', resolve);
        res.once('close', resolve);
      });
    }
  }
  sent.whole = true;
  res.end(tail);
}

type Script = (
  req: IncomingMessage,
  res: ServerResponse,
  message: { id?: number | string; method?: string },
) => void;

/**
 * A Streamable HTTP server speaking 2025-11-25 (session `s1`) and 2026-07-28 (`server/discover`);
 * `tools/call` goes to `script`.
 */
async function server(script: Script, options: { getStream?: Script } = {}) {
  const http = await listen((req, res, body) => {
    const message = (body ? JSON.parse(body) : {}) as { id?: number | string; method?: string };
    const json = (result: unknown) => {
      res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's1' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
    };
    if (req.method === 'GET') {
      if (options.getStream) options.getStream(req, res, message);
      else res.writeHead(405).end();
    } else if (req.method === 'DELETE' || message.id === undefined) res.writeHead(202).end();
    else if (message.method === 'initialize')
      json({
        protocolVersion: '2025-11-25',
        capabilities: { tools: {} },
        serverInfo: { name: 'flood', version: '1' },
      });
    else if (message.method === 'server/discover')
      json({
        supportedVersions: ['2026-07-28'],
        capabilities: { tools: {} },
        serverInfo: { name: 'flood', version: '1' },
      });
    else if (message.method === 'tools/list')
      json({ tools: [{ name: 'big', inputSchema: { type: 'object' } }] });
    else script(req, res, message);
  });
  return { ...http, url: `${http.origin}/mcp` };
}

const answerHead = (id: unknown) =>
  `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"`;

/** Calls `big` and expects MESSAGE_TOO_LARGE naming the limit, well before the (long) request timeout. */
async function expectTooLarge(client: Client, limit: number): Promise<TransportError> {
  const started = performance.now();
  const error = await client.callTool('big', {}, { timeout: 60_000 }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ToolwireError);
  expect((error as ToolwireError).code).toBe('MESSAGE_TOO_LARGE');
  expect((error as ToolwireError).details).toMatchObject({ maxMessageSize: limit });
  // At its timeout it would have taken 60 s.
  expect(performance.now() - started).toBeLessThan(20_000);
  return error as TransportError;
}

describe('the HTTP client reads no message over maxMessageSize', () => {
  it('a JSON answer (handshake era): the request fails at once and the body is not read on', async () => {
    const sent = { bytes: 0, whole: false };
    const http = await server((_req, res, message) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      void flood(res, answerHead(message.id), '"}]}}', sent);
    });
    const client = track(connectClient());
    await client.connect(new StreamableHttpClientTransport({ url: http.url, maxMessageSize: 2 * MiB }));
    const error = await expectTooLarge(client, 2 * MiB);
    expect(error.message).toMatch(/answer to request/);
    await until(() => sent.bytes > 0);
    expect(sent.whole).toBe(false);
    expect(sent.bytes).toBeLessThan(TOTAL_MIB * MiB);
    // the session goes on
    expect((await client.listTools()).map((t) => t.name)).toEqual(['big']);
  });

  it('a JSON answer whose Content-Length is over the limit is refused unread', async () => {
    const http = await server((_req, res, message) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(TOTAL_MIB * MiB) });
      res.write(answerHead(message.id)); // and never more: only the header can tell
    });
    const client = track(connectClient());
    await client.connect(new StreamableHttpClientTransport({ url: http.url, maxMessageSize: MiB }));
    const error = await expectTooLarge(client, MiB);
    expect(error.message).toContain(`${TOTAL_MIB * MiB} bytes`);
  });

  it('an SSE event (handshake era): its request fails at once, the stream is dropped', async () => {
    const sent = { bytes: 0, whole: false };
    const http = await server((_req, res, message) => {
      sseHead(res);
      void flood(res, `id: 1\ndata: ${answerHead(message.id)}`, '"}]}}\n\n', sent);
    });
    const client = track(connectClient());
    await client.connect(new StreamableHttpClientTransport({ url: http.url, maxMessageSize: 2 * MiB }));
    await expectTooLarge(client, 2 * MiB);
    expect(sent.whole).toBe(false);
    expect((await client.listTools()).length).toBe(1);
  });

  it('the default limit is 16 MiB', async () => {
    const sent = { bytes: 0, whole: false };
    const http = await server((_req, res, message) => {
      sseHead(res);
      void flood(res, `data: ${answerHead(message.id)}`, '"}]}}\n\n', sent);
    });
    const client = track(connectClient());
    await client.connect(new StreamableHttpClientTransport({ url: http.url }));
    await expectTooLarge(client, 16 * MiB);
    expect(sent.whole).toBe(false);
  });

  it('an event over the limit on the GET stream is reported and skipped; the stream reads on', async () => {
    let getStream: ServerResponse | undefined;
    const http = await server(
      (_req, res, message) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { content: [] } }));
      },
      {
        getStream: (_req, res) => {
          sseHead(res);
          getStream = res;
          res.write(
            `id: g1\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"${'y'.repeat(3 * MiB)}"}}\n\n`,
          );
          res.write(
            `id: g2\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'small' } })}\n\n`,
          );
        },
      },
    );
    const errors: unknown[] = [];
    const logs: unknown[] = [];
    const client = track(
      connectClient({
        onError: (error) => errors.push(error),
        onLog: (params) => void logs.push(params.data),
      }),
    );
    await client.connect(new StreamableHttpClientTransport({ url: http.url, maxMessageSize: MiB }));
    await until(() => logs.length > 0, 10_000);
    expect(logs).toEqual(['small']);
    expect(errors.some((e) => e instanceof TransportError && e.code === 'MESSAGE_TOO_LARGE')).toBe(true);
    expect(getStream?.destroyed).toBe(false);
  });

  it('an error body is read only as far as it is worth quoting', async () => {
    const sent = { bytes: 0, whole: false };
    const http = await server((_req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      void flood(res, 'upstream exploded: ', '', sent);
    });
    const client = track(connectClient());
    await client.connect(new StreamableHttpClientTransport({ url: http.url }));
    const error = await client.callTool('big', {}, { timeout: 60_000 }).then(
      () => undefined,
      (e: unknown) => e as TransportError,
    );
    expect(error?.message).toContain('HTTP 500');
    expect(error?.message).toContain('upstream exploded');
    expect(sent.whole).toBe(false);
  });
});

describe('the stateless era (2026-07-28)', () => {
  for (const form of ['json', 'sse'] as const) {
    it(`a ${form} answer over the limit fails its request at once`, async () => {
      const sent = { bytes: 0, whole: false };
      const http = await server((_req, res, message) => {
        if (form === 'json') {
          res.writeHead(200, { 'content-type': 'application/json' });
          void flood(res, answerHead(message.id), '"}]}}', sent);
        } else {
          sseHead(res);
          void flood(res, `data: ${answerHead(message.id)}`, '"}]}}\n\n', sent);
        }
      });
      const client = track(
        new Client({ name: 'stateless', version: '1' }, { protocolVersion: '2026-07-28' }),
      );
      await client.connect(new StreamableHttpClientTransport({ url: http.url, maxMessageSize: 2 * MiB }));
      await expectTooLarge(client, 2 * MiB);
      expect(sent.whole).toBe(false);
    });
  }
});

describe('the legacy HTTP+SSE transport', () => {
  it('skips an event over the limit and reports it; an answer over it fails its request at once', async () => {
    let stream: ServerResponse | undefined;
    const http = await listen((req, res, body) => {
      if (req.method === 'GET') {
        sseHead(res);
        stream = res;
        res.write('event: endpoint\ndata: /messages\n\n');
        return;
      }
      const message = JSON.parse(body) as { id?: number; method?: string };
      res.writeHead(202).end();
      if (message.id === undefined || !stream) return;
      const answer = (result: unknown) =>
        stream?.write(
          `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: message.id, result })}\n\n`,
        );
      if (message.method === 'initialize')
        answer({
          protocolVersion: '2024-11-05',
          capabilities: { tools: {} },
          serverInfo: { name: 'l', version: '1' },
        });
      else if (message.method === 'ping') {
        stream.write(`event: message\ndata: ${'z'.repeat(2 * MiB)}\n\n`);
        answer({});
      } else if (message.method === 'tools/list') answer({ tools: [], pad: 'z'.repeat(2 * MiB) });
    });
    const errors: unknown[] = [];
    const client = track(
      new Client(
        { name: 'legacy', version: '1' },
        { protocolVersion: '2024-11-05', onError: (e) => errors.push(e) },
      ),
    );
    await client.connect(new SseClientTransport({ url: `${http.origin}/sse`, maxMessageSize: MiB }));
    await client.ping();
    expect(errors.some((e) => e instanceof TransportError && e.code === 'MESSAGE_TOO_LARGE')).toBe(true);
    // An answer over the limit: the start of its data names its request, which fails at once.
    const started = performance.now();
    await expect(client.listTools({ timeout: 60_000 })).rejects.toMatchObject({ code: 'MESSAGE_TOO_LARGE' });
    expect(performance.now() - started).toBeLessThan(20_000);
  });
});
