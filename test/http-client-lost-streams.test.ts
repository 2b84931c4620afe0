// The Streamable HTTP client when resuming a stream fails, against a hand-written node:http server: a GET
// answered 404 means the session ended (the client MUST start a new one, 2025-11-25), a GET answered 400
// gives up that stream only.
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { StreamableHttpClientTransport } from '../src/transports/http-client/index.js';
import { closeAll, connectClient, listen, sseHead, track, until, type HttpFixture } from './_http-client.js';

afterEach(closeAll);

const INIT_RESULT = {
  protocolVersion: '2025-11-25',
  capabilities: { tools: {} },
  serverInfo: { name: 'scripted', version: '1.0.0' },
};

interface Script {
  /** Answers a GET of the live session (`resume`: it carries `Last-Event-ID`). */
  get(res: ServerResponse, resume: boolean): void;
  /** What `tools/call` does to the live session once its stream ended: nothing, or end it. */
  endsSession?: boolean;
}

/**
 * Sessions `s1`, `s2`, … (one per initialize, the last one live; any other id gets 404). `tools/call`
 * answers with a stream that ends after its priming event (id `e1`, retry 10 ms); other requests get a
 * JSON result.
 */
async function sessionServer(script: Script): Promise<HttpFixture & { url: string; live(): string }> {
  let sessions = 0;
  let live: string | undefined;
  const http = await listen((req, res, body) => {
    const message = (body ? JSON.parse(body) : {}) as { id?: number; method?: string };
    if (req.method === 'POST' && message.method === 'initialize') {
      live = `s${++sessions}`;
      res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': live });
      return void res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: INIT_RESULT }));
    }
    if (req.headers['mcp-session-id'] !== live) return void res.writeHead(404).end();
    if (req.method === 'GET') return script.get(res, req.headers['last-event-id'] !== undefined);
    if (req.method === 'DELETE' || message.id === undefined) return void res.writeHead(202).end();
    if (message.method === 'tools/call') {
      sseHead(res);
      res.end('id: e1\nretry: 10\ndata: \n\n');
      if (script.endsSession) live = undefined;
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { tools: [] } }));
  });
  return { ...http, url: `${http.origin}/mcp`, live: () => live ?? '' };
}

/** The server has no GET stream of its own (405); a resumption gets `status`. */
const resumeAnswered = (status: number) => (res: ServerResponse, resume: boolean) => {
  if (!resume) return void res.writeHead(405).end();
  const error = { code: -32600, message: 'Unknown Last-Event-ID: e1' };
  res
    .writeHead(status, { 'content-type': 'application/json' })
    .end(JSON.stringify({ jsonrpc: '2.0', error }));
};

describe('StreamableHttpClientTransport, a resumption refused', () => {
  it('starts a new session when a resuming GET gets 404: the call fails, the next one is served', async () => {
    const server = await sessionServer({ get: resumeAnswered(404), endsSession: true });
    const errors: Error[] = [];
    const client = track(connectClient({ onError: (error) => errors.push(error) }));
    let closed = false;
    client.onclose = () => (closed = true);
    await client.connect(new StreamableHttpClientTransport({ url: server.url }));
    await expect(client.callTool('x')).rejects.toThrow(/was lost: the server ended session s1 \(HTTP 404\)/);
    expect(await client.listTools()).toEqual([]);
    const posts = server.seen.filter((seen) => seen.method === 'POST');
    const initializes = posts.filter((seen) => seen.body.includes('"initialize"'));
    expect(initializes.map((seen) => seen.headers['mcp-session-id'])).toEqual([undefined, undefined]);
    expect(posts.at(-1)?.headers['mcp-session-id']).toBe('s2');
    expect(server.live()).toBe('s2');
    expect(closed).toBe(false);
    expect(errors).toMatchObject([{ code: 'CONNECTION_CLOSED' }]); // the lost stream, reported once
  });

  it('keeps the session when a resuming GET gets 400: only that stream is given up', async () => {
    const server = await sessionServer({ get: resumeAnswered(400) });
    const client = track(connectClient({ onError: () => undefined }));
    await client.connect(new StreamableHttpClientTransport({ url: server.url }));
    await expect(client.callTool('x')).rejects.toThrow(/was lost: .*HTTP 400.*Unknown Last-Event-ID/);
    expect(await client.listTools()).toEqual([]);
    expect(server.seen.filter((seen) => seen.body.includes('"initialize"'))).toHaveLength(1);
    expect(server.seen.at(-1)?.headers['mcp-session-id']).toBe('s1');
  });

  it('starts a new session, which listens again, when the server message stream resumes into a 404', async () => {
    let gets = 0;
    const server = await sessionServer({
      get: (res, resume) => {
        gets++;
        if (resume) return void res.writeHead(404).end();
        sseHead(res);
        // The first session's stream ends (as its session does); the next session's stays open.
        if (gets === 1) res.end('id: g1\nretry: 10\ndata: \n\n');
        else res.write(': open\n\n');
      },
    });
    const client = track(connectClient());
    await client.connect(new StreamableHttpClientTransport({ url: server.url }));
    await until(() => server.live() === 's2' && gets === 3);
    const sessionsOfGets = server.seen.filter((seen) => seen.method === 'GET');
    expect(
      sessionsOfGets.map((seen) => [seen.headers['mcp-session-id'], seen.headers['last-event-id']]),
    ).toEqual([
      ['s1', undefined],
      ['s1', 'g1'],
      ['s2', undefined],
    ]);
    expect(await client.listTools()).toEqual([]);
  });

  it('does not start a new session when the first GET of one gets 404 (a server with no GET stream)', async () => {
    const server = await sessionServer({ get: (res) => void res.writeHead(404).end() });
    const client = track(connectClient());
    await client.connect(new StreamableHttpClientTransport({ url: server.url }));
    expect(await client.listTools()).toEqual([]);
    // The GET goes out beside the POSTs, not before them: waited for. Then a while for a new session to
    // start had the 404 ended this one (only a busy machine makes the check miss it, never fail).
    await until(() => server.seen.some((seen) => seen.method === 'GET'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(server.seen.filter((seen) => seen.body.includes('"initialize"'))).toHaveLength(1);
    expect(server.seen.filter((seen) => seen.method === 'GET')).toHaveLength(1);
  });
});
