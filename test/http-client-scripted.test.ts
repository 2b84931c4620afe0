// The Streamable HTTP client transport against small hand-written node:http servers on 127.0.0.1, for
// what the SDK server does not do on demand: retry timing, session expiry, custom headers and fetch,
// JSON-RPC errors on HTTP error statuses, answers that are not JSON or too deep, ended streams.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ProtocolError } from '../src/protocol/index.js';
import { StreamableHttpClientTransport, TransportError } from '../src/transports/http-client/index.js';
import { closeAll, connectClient, listen, sseHead, track, until, type HttpFixture } from './_http-client.js';

afterEach(closeAll);

const INIT_RESULT = {
  protocolVersion: '2025-11-25',
  capabilities: { tools: {} },
  serverInfo: { name: 'scripted', version: '1.0.0' },
};

/**
 * A hand-written Streamable HTTP server: answers initialize (JSON, session `s1`), accepts
 * notifications and responses (202), refuses the standalone GET (405) and hands every other
 * request to `script`.
 */
async function scriptedServer(
  script: (req: IncomingMessage, res: ServerResponse, message: { id?: number; method?: string }) => void,
  options: { standalone?: boolean } = {},
): Promise<HttpFixture & { url: string }> {
  const http = await listen((req, res, body) => {
    const message = (body ? JSON.parse(body) : {}) as { id?: number; method?: string };
    if (req.method === 'POST' && message.method === 'initialize') {
      res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's1' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: INIT_RESULT }));
    } else if (req.method === 'POST' && message.id === undefined) {
      res.writeHead(202).end();
    } else if (req.method === 'GET' && !options.standalone && req.headers['last-event-id'] === undefined) {
      res.writeHead(405).end();
    } else if (req.method === 'DELETE') {
      res.writeHead(200).end();
    } else {
      script(req, res, message);
    }
  });
  return { ...http, url: `${http.origin}/mcp` };
}

/** Starts `transport`, recording the errors and the messages it reports. */
async function recordedStart(
  transport: StreamableHttpClientTransport,
): Promise<{ errors: Error[]; messages: unknown[] }> {
  const errors: Error[] = [];
  const messages: unknown[] = [];
  transport.onerror = (error) => errors.push(error);
  transport.onmessage = (message) => messages.push(message);
  await transport.start();
  return { errors, messages };
}

// ---------------------------------------------------------------------------------------------
// (c) hand-written servers for the hard cases

describe('StreamableHttpClientTransport (hand-written servers)', () => {
  it('reconnects after exactly the retry of a priming event, with Last-Event-ID (sse-retry)', async () => {
    let streamEnded = 0;
    let pendingId: number | undefined;
    const server = await scriptedServer((req, res, message) => {
      sseHead(res);
      if (req.method === 'POST') {
        res.write('id: e1\nretry: 500\ndata: \n\n');
        setTimeout(() => {
          streamEnded = performance.now();
          res.end();
        }, 50);
      } else {
        const result = { jsonrpc: '2.0', id: pendingId, result: { tools: [] } };
        res.end(`id: e2\ndata: ${JSON.stringify(result)}\n\n`);
      }
      pendingId ??= message.id;
    });
    const client = track(connectClient());
    // Without the server's retry the client would wait 10 s, so an upper bound of 5× the retry tells them apart.
    await client.connect(
      new StreamableHttpClientTransport({ url: server.url, reconnect: { initialDelayMs: 10_000 } }),
    );
    expect(await client.listTools()).toEqual([]);

    const resumed = server.seen.find((seen) => seen.headers['last-event-id'] !== undefined);
    expect(resumed?.method).toBe('GET');
    expect(resumed?.headers['last-event-id']).toBe('e1');
    expect(resumed?.headers['mcp-session-id']).toBe('s1');
    const delay = (resumed?.at ?? 0) - streamEnded;
    expect(delay).toBeGreaterThanOrEqual(498);
    expect(delay).toBeLessThan(2500);
  });

  it('closes with a sessionExpired error on a 404 to a request that carried the session id', async () => {
    const server = await scriptedServer((_req, res) => void res.writeHead(404).end('gone'));
    const transport = new StreamableHttpClientTransport({ url: server.url });
    const errors: Error[] = [];
    const client = connectClient({ onError: (error) => errors.push(error) });
    const closed = new Promise<void>((resolve) => (client.onclose = resolve));
    await client.connect(transport);
    await expect(client.listTools()).rejects.toThrow(/closed/);
    await closed;
    const expired = errors.find((error) => error instanceof TransportError);
    expect(expired).toMatchObject({
      code: 'CONNECTION_CLOSED',
      details: { status: 404, sessionExpired: true },
    });
    expect(server.seen.some((seen) => seen.method === 'DELETE')).toBe(false);
  });

  it('uses the custom headers and fetch for every request: POST, GET and DELETE', async () => {
    const server = await scriptedServer((_req, res, message) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { tools: [] } }));
    });
    const fetched: string[] = [];
    const transport = new StreamableHttpClientTransport({
      url: server.url,
      headers: async () => ({ authorization: 'Bearer t0k3n' }),
      fetch: (input, init) => {
        fetched.push(init?.method ?? 'GET');
        return fetch(input, init);
      },
    });
    const errors: Error[] = [];
    const client = connectClient({ onError: (error) => errors.push(error) });
    await client.connect(transport);
    await until(() => server.seen.some((seen) => seen.method === 'GET'));
    await client.listTools();
    await client.close();

    expect(fetched).toEqual(['POST', 'POST', 'GET', 'POST', 'DELETE']);
    expect(server.seen.map((seen) => seen.headers.authorization)).toEqual(fetched.map(() => 'Bearer t0k3n'));
    expect(errors).toEqual([]); // the 405 to the GET stream is not an error
  });

  it('delivers a JSON-RPC error that names the request, even on an HTTP error status', async () => {
    const server = await scriptedServer((_req, res, message) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: -32602, message: 'bad' } }));
    });
    const client = track(connectClient());
    await client.connect(new StreamableHttpClientTransport({ url: server.url }));
    const error = await client.callTool('x').catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error).toMatchObject({ code: -32602, message: 'bad' });
  });

  it('reports a -32700 for an answer that is not JSON, and goes on with the messages that are', async () => {
    const server = await scriptedServer((_req, res, message) => {
      if (message.method === 'tools/list') {
        sseHead(res);
        const answer = { jsonrpc: '2.0', id: message.id, result: { tools: [] } };
        res.end(`data: {not json\n\ndata: ${JSON.stringify(answer)}\n\n`);
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"jsonrpc": "2.0", "id": ');
      }
    });
    const transport = track(new StreamableHttpClientTransport({ url: server.url }));
    const { errors, messages } = await recordedStart(transport);
    await transport.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    await vi.waitFor(() => expect(messages).toHaveLength(1), { timeout: 10_000 });
    expect(messages[0]).toMatchObject({ id: 1, result: { tools: [] } });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(ProtocolError);
    expect(errors[0]).toMatchObject({ code: -32700 });
    await transport.send({ jsonrpc: '2.0', id: 2, method: 'tools/call' }).catch(() => undefined);
    await vi.waitFor(() => expect(errors).toHaveLength(2), { timeout: 10_000 });
    expect(errors[1]).toMatchObject({
      code: -32700,
      message: expect.stringMatching(/^Parse error/) as string,
    });
  });

  it('reports a -32700 for a million-deep answer, JSON or SSE, without parsing it', async () => {
    const deep = `${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}`;
    const server = await scriptedServer((_req, res, message) => {
      if (message.method === 'tools/list') {
        sseHead(res);
        const answer = { jsonrpc: '2.0', id: message.id, result: { tools: [] } };
        res.end(`data: ${deep}\n\ndata: ${JSON.stringify(answer)}\n\n`);
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(deep);
      }
    });
    const transport = track(new StreamableHttpClientTransport({ url: server.url }));
    const { errors, messages } = await recordedStart(transport);
    await transport.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    await vi.waitFor(() => expect(messages).toHaveLength(1), { timeout: 10_000 });
    expect(messages[0]).toMatchObject({ id: 1, result: { tools: [] } });
    await transport.send({ jsonrpc: '2.0', id: 2, method: 'tools/call' }).catch(() => undefined);
    await vi.waitFor(() => expect(errors).toHaveLength(2), { timeout: 10_000 });
    for (const error of errors) {
      expect(error).toBeInstanceOf(ProtocolError);
      expect(error).toMatchObject({
        code: -32700,
        message: 'Parse error: JSON nested deeper than 1024 levels',
      });
    }
  });

  it('fails the request a too-deep answer names at once, JSON or SSE, not at its timeout', async () => {
    const deep = `${'{"x":'.repeat(100_000)}{}${'}'.repeat(100_000)}`;
    let calls = 0;
    const server = await scriptedServer((_req, res, message) => {
      const text = `{"jsonrpc":"2.0","result":{"tools":[{"name":"t","inputSchema":${deep}}]},"id":${message.id}}`;
      if (calls++ % 2 === 0) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(text);
      } else {
        sseHead(res);
        res.end(`data: ${text}\n\n`);
      }
    });
    const client = connectClient({ requestTimeout: 60_000 });
    await client.connect(track(new StreamableHttpClientTransport({ url: server.url })));
    for (let i = 0; i < 2; i++) {
      const started = Date.now();
      await expect(client.listTools()).rejects.toMatchObject({
        code: -32700,
        message: expect.stringMatching(
          /^The answer to request \d+ was refused unparsed: JSON nested deeper than 1024 levels$/,
        ) as string,
      });
      expect(Date.now() - started).toBeLessThan(30_000); // the request timeout is 60 s
    }
    await client.close();
  });

  it('rejects send with the status and a body excerpt on other HTTP errors', async () => {
    const server = await scriptedServer((_req, res) => void res.writeHead(500).end('database\n  on fire'));
    const transport = track(new StreamableHttpClientTransport({ url: server.url }));
    await transport.start();
    const error = await transport
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/list' })
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(TransportError);
    expect(error).toMatchObject({ code: 'SEND_FAILED', details: { status: 500, body: 'database on fire' } });
    expect((error as Error).message).toMatch(/HTTP 500 Internal Server Error: database on fire/);
  });

  it('reopens the standalone GET stream with Last-Event-ID when the server ends it', async () => {
    const server = await scriptedServer(
      (req, res, message) => {
        if (req.method === 'POST') {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { tools: [] } }));
          return;
        }
        sseHead(res);
        if (req.headers['last-event-id'] === undefined) {
          const changed = { jsonrpc: '2.0', method: 'notifications/tools/list_changed' };
          res.end(`retry: 50\nid: g1\ndata: ${JSON.stringify(changed)}\n\n`);
        } else {
          res.write(': holding the stream open\n\n');
        }
      },
      { standalone: true },
    );
    const client = track(connectClient());
    let notified = 0;
    client.onToolsChanged(() => notified++);
    await client.connect(new StreamableHttpClientTransport({ url: server.url }));
    await until(() => server.seen.some((seen) => seen.headers['last-event-id'] === 'g1'));
    const gets = server.seen.filter((seen) => seen.method === 'GET');
    expect(gets.map((seen) => seen.headers['last-event-id'])).toEqual([undefined, 'g1']);
    expect((gets[1]?.at ?? 0) - (gets[0]?.at ?? 0)).toBeGreaterThanOrEqual(45);
    await until(() => notified > 0); // the notification made the client list the tools again
  });

  it('fails a request at once when its stream ends without an event id to resume from', async () => {
    const server = await scriptedServer((_req, res) => {
      sseHead(res);
      res.end(': nothing to see\n\n');
    });
    const errors: Error[] = [];
    const client = track(connectClient({ onError: (error) => errors.push(error) }));
    await client.connect(new StreamableHttpClientTransport({ url: server.url }));
    await expect(client.listTools()).rejects.toThrow(/was lost: the server ended it before the response/);
    expect(errors[0]).toMatchObject({ code: 'CONNECTION_CLOSED' });
  });

  /** A server whose GET stream ends at once with `retry: 0` (and `event`), and a client watching it. */
  async function endingAtOnce(event: string) {
    const server = await scriptedServer(
      (req, res) => {
        if (req.method !== 'GET') return void res.writeHead(404).end();
        sseHead(res);
        res.end(`retry: 0\n${event}\n`);
      },
      { standalone: true },
    );
    const errors: Error[] = [];
    const client = track(connectClient({ onError: (error) => errors.push(error) }));
    const transport = new StreamableHttpClientTransport({ url: server.url, reconnect: { maxRetries: 3 } });
    await client.connect(transport);
    await until(() => errors.some((error) => /server message stream was lost/.test(error.message)), 10_000);
    const gets = server.seen.filter((seen) => seen.method === 'GET').map((seen) => seen.at);
    return { errors, gets, gaps: gets.slice(1).map((at, i) => at - (gets[i] ?? 0)) };
  }

  it('backs off from 100 ms and gives up on a GET stream the server ends at once with retry: 0', async () => {
    const { errors, gets, gaps } = await endingAtOnce(': nothing\n');
    // Held to 100 ms only, it reconnected 10 times a second for ever (0 ms: ≈560).
    expect(gets).toHaveLength(3);
    expect(gaps[0]).toBeGreaterThanOrEqual(190);
    expect(gaps[1]).toBeGreaterThanOrEqual(390);
    expect(errors.at(-1)?.message).toBe(
      'The server message stream was lost: the server ended it at once 3 times in a row, asking for a reconnection within 0 ms',
    );
  });

  it('respects a retry under 100 ms once after a message, then backs off and gives up', async () => {
    const message = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message' });
    const { gets, gaps } = await endingAtOnce(`data: ${message}\n`);
    // Respected as is each time, it reconnected ≈90 times a second for ever.
    expect(gets).toHaveLength(4);
    expect(gaps[0]).toBeLessThan(190);
    expect(gaps[1]).toBeGreaterThanOrEqual(190);
    expect(gaps[2]).toBeGreaterThanOrEqual(390);
  });
});
