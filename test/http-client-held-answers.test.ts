// A Streamable HTTP server that holds its answers: each POST of a call the client gave up on (its timeout,
// its caller's abort), and each answered stream the server keeps open, must not keep a connection of the
// client's open (a gateway in front of such an upstream held one socket per call, for ever).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { Client } from '../src/client/index.js';
import { SseClientTransport, StreamableHttpClientTransport } from '../src/transports/http-client/index.js';
import { closeAll, connectClient, listen, sseHead, track, until } from './_http-client.js';

afterEach(closeAll);

const INIT_RESULT = {
  protocolVersion: '2025-11-25',
  capabilities: { tools: {} },
  serverInfo: { name: 'holding', version: '1.0.0' },
};

type Hold = (res: ServerResponse, id: number) => void;

const holds: Record<string, Hold> = {
  'no answer at all': () => undefined,
  'a JSON body never ended': (res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"jsonrpc":"2.0",');
  },
  'an SSE stream with no answer': (res) => {
    sseHead(res);
    res.write('id: 1\ndata: \n\n');
  },
};

/**
 * Calls `closed` once the connection that carried `res` closed, also when it closed before the handler ran
 * (a POST the client gave up on as it arrived: its 'close' came before the listener).
 */
function whenClosed(res: ServerResponse, closed: () => void): void {
  if (res.socket === null || res.socket.destroyed) closed();
  else res.once('close', closed);
}

/** Four calls of `t`, given up on after 50 ms: three by their timeout, one by its caller's signal. */
function givenUp(client: Client): Promise<PromiseSettledResult<unknown>[]> {
  const aborted = new AbortController();
  const calls = [
    client.callTool('t', {}, { timeout: 50 }),
    client.callTool('t', {}, { timeout: 50 }),
    client.callTool('t', {}, { timeout: 50 }),
    client.callTool('t', {}, { signal: aborted.signal }),
  ];
  setTimeout(() => aborted.abort(new Error('the caller left')), 50);
  return Promise.allSettled(calls);
}

/**
 * A handshake-era server that holds every `tools/call` POST as `hold` says; `closed()` resolves with the
 * number of such POSTs once every one of them closed. Not a count fixed in advance: a POST
 * the client gives up on before it reaches the handler (a 50 ms timeout on a busy machine) is never held.
 */
async function holdingServer(hold: Hold): Promise<{ url: string; closed: () => Promise<number> }> {
  let held = 0;
  let gone = 0;
  const closed = async () => {
    await until(() => gone === held);
    return held;
  };
  const http = await listen((req: IncomingMessage, res: ServerResponse, body: string) => {
    const message = (body ? JSON.parse(body) : {}) as { id?: number; method?: string };
    if (req.method === 'GET') res.writeHead(405).end();
    else if (req.method === 'DELETE' || message.id === undefined) res.writeHead(202).end();
    else if (message.method === 'initialize') {
      res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's1' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: INIT_RESULT }));
    } else if (message.method === 'tools/list') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: message.id,
          result: { tools: [{ name: 't', inputSchema: { type: 'object' } }] },
        }),
      );
    } else {
      held += 1;
      whenClosed(res, () => (gone += 1));
      hold(res, message.id);
    }
  });
  return { url: `${http.origin}/mcp`, closed };
}

describe('StreamableHttpClientTransport, a server holding its answers (handshake era)', () => {
  for (const [name, hold] of Object.entries(holds)) {
    it(`drops the POST of each call given up on, held with ${name}`, async () => {
      const server = await holdingServer(hold);
      const errors: Error[] = [];
      const client = track(connectClient({ onError: (error) => errors.push(error) }));
      await client.connect(new StreamableHttpClientTransport({ url: server.url }));
      for (const outcome of await givenUp(client)) expect(outcome.status).toBe('rejected');
      // Every held connection is closed by the client (without the fix they stay open until the test's timeout).
      expect(await server.closed()).toBeLessThanOrEqual(4);
      expect(errors.map(String)).toEqual([]);
    });
  }

  it('drops an answered stream the server keeps open, after a grace of a second', async () => {
    const server = await holdingServer((res, id) => {
      sseHead(res);
      res.write(`id: 1\ndata: ${JSON.stringify({ jsonrpc: '2.0', id, result: { content: [] } })}\n\n`);
    });
    const client = track(connectClient());
    await client.connect(new StreamableHttpClientTransport({ url: server.url }));
    const started = performance.now();
    const results = await Promise.all([client.callTool('t', {}), client.callTool('t', {})]);
    expect(results).toEqual([{ content: [] }, { content: [] }]);
    expect(await server.closed()).toBe(2);
    expect(performance.now() - started).toBeGreaterThanOrEqual(900);
  });
});

describe('StreamableHttpClientTransport, an answer on the GET stream', () => {
  it("drops the call's POST stream the server keeps open, a second after", async () => {
    let listening: ServerResponse | undefined;
    let done: () => void = () => undefined;
    const postClosed = new Promise<void>((resolve) => (done = resolve));
    const http = await listen((req: IncomingMessage, res: ServerResponse, body: string) => {
      const message = (body ? JSON.parse(body) : {}) as { id?: number; method?: string };
      if (req.method === 'GET') {
        sseHead(res);
        res.write(': listening\n\n');
        listening = res;
      } else if (req.method === 'DELETE' || message.id === undefined) res.writeHead(202).end();
      else if (message.method === 'initialize') {
        res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's1' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: INIT_RESULT }));
      } else {
        sseHead(res);
        res.write('id: 1\ndata: \n\n');
        res.once('close', done);
        const answer = { jsonrpc: '2.0', id: message.id, result: { content: [] } };
        listening?.write(`data: ${JSON.stringify(answer)}\n\n`);
      }
    });
    const client = track(connectClient());
    await client.connect(new StreamableHttpClientTransport({ url: `${http.origin}/mcp` }));
    await client.ping();
    await postClosed;
  });
});

describe('StreamableHttpClientTransport, a server that never accepts notifications', () => {
  it('holds at most 64 of their POSTs waiting, the rest in line, and drops them all on close', async () => {
    let waiting = 0;
    let most = 0;
    let done: () => void = () => undefined;
    const allGone = new Promise<void>((resolve) => (done = resolve));
    const http = await listen((req: IncomingMessage, res: ServerResponse, body: string) => {
      const message = (body ? JSON.parse(body) : {}) as { id?: number; method?: string };
      if (req.method === 'GET') res.writeHead(405).end();
      else if (req.method === 'DELETE') res.writeHead(200).end();
      else if (message.method === 'initialize') {
        res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's1' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: INIT_RESULT }));
      } else if (message.method === 'notifications/cancelled') {
        waiting += 1;
        most = Math.max(most, waiting);
        res.once('close', () => {
          waiting -= 1;
          if (waiting === 0) done();
        });
      } else if (message.id === undefined) res.writeHead(202).end();
      // tools/call: never answered
    });
    const client = track(connectClient());
    await client.connect(new StreamableHttpClientTransport({ url: `${http.origin}/mcp` }));
    const calls = Array.from({ length: 80 }, () => client.callTool('t', {}, { timeout: 50 }));
    for (const outcome of await Promise.allSettled(calls)) expect(outcome.status).toBe('rejected');
    const cancelled = (): number =>
      http.seen.filter((seen) => seen.body.includes('notifications/cancelled')).length;
    await until(() => cancelled() === 64);
    expect(most).toBe(64);
    await client.close();
    await allGone;
    expect(cancelled()).toBe(64);
  });
});

describe('SseClientTransport (legacy HTTP+SSE), a server that never accepts some POSTs', () => {
  /**
   * A legacy server answering on its stream, which never answers the POSTs `holds` picks: `state.waiting`
   * counts those waiting now, `most` the most that waited at once, and `allGone()` resolves once every one
   * held closed (a POST given up on before it reached the handler was never held).
   */
  async function legacyServer(holds: (method: string | undefined) => boolean) {
    let stream: ServerResponse | undefined;
    const state = { waiting: 0, most: 0, gone: 0 };
    const allGone = () => until(() => state.waiting === 0);
    const http = await listen((req: IncomingMessage, res: ServerResponse, body: string) => {
      if (req.method === 'GET') {
        sseHead(res);
        stream = res;
        res.write('event: endpoint\ndata: /messages\n\n');
        return;
      }
      const message = JSON.parse(body) as { id?: number; method?: string };
      if (holds(message.method)) {
        state.waiting += 1;
        state.most = Math.max(state.most, state.waiting);
        whenClosed(res, () => {
          state.waiting -= 1;
          state.gone += 1;
        });
        return;
      }
      res.writeHead(202).end();
      const answer = (result: unknown) =>
        stream?.write(
          `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: message.id, result })}\n\n`,
        );
      if (message.method === 'initialize') answer({ ...INIT_RESULT, protocolVersion: '2024-11-05' });
    });
    const client = track(connectClient({ protocolVersion: '2024-11-05' }));
    await client.connect(new SseClientTransport({ url: `${http.origin}/sse` }));
    return { client, http, state, allGone };
  }

  it('drops the POST of each call given up on', async () => {
    const { client, allGone } = await legacyServer((method) => method === 'tools/call');
    for (const outcome of await givenUp(client)) expect(outcome.status).toBe('rejected');
    await allGone();
  });

  it('holds at most 64 POSTs of notifications waiting, the rest in line, and drops them all on close', async () => {
    const held = (method: string | undefined) =>
      method === 'tools/call' || method === 'notifications/cancelled';
    const { client, http, state, allGone } = await legacyServer(held);
    // Given up once the server holds all 80 (a timeout would race their POSTs: one that fires before the
    // server read a POST drops it unseen).
    const aborted = new AbortController();
    const calls = Array.from({ length: 80 }, () => client.callTool('t', {}, { signal: aborted.signal }));
    await until(() => state.waiting === 80);
    aborted.abort(new Error('the caller left'));
    for (const outcome of await Promise.allSettled(calls)) expect(outcome.status).toBe('rejected');
    const cancelled = (): number =>
      http.seen.filter((seen) => seen.body.includes('notifications/cancelled')).length;
    await until(() => cancelled() === 64);
    await client.close();
    await allGone();
    expect(cancelled()).toBe(64);
  });
});
