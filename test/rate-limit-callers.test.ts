// The default rate limit is a bucket per caller, on the wire: one caller's flood empties its own bucket
// and nobody else's. Before, the default was one global bucket (20,000 calls, 20,000/s): a flood past it —
// the attack suite's 50,000 pipelined stdio calls did it — refused every other session's calls with
// -31429. The store's clock stands still here, so the buckets do not refill while the flood runs: the
// test counts calls, not time. A caller without a session (the stateless era) is told by its address (the
// `clientAddress` option's reading of the request).
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { MemoryRateLimitStore, Server, text } from '../src/server/index.js';
import { serveHttp } from '../src/transports/http/index.js';
import { closeServedAfterEach, open, post, served } from './_http.js';

closeServedAfterEach();

const echo = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'echo', arguments: { text: `${id}` } },
});

function echoServer(rateLimit: ConstructorParameters<typeof Server>[1]): Server {
  const server = new Server({ name: 'limited', version: '1.0.0' }, rateLimit);
  server.tool(
    'echo',
    {
      inputSchema: {
        type: 'object',
        properties: { text: { type: 'string' } },
        required: ['text'],
      } as const,
    },
    ({ text: value }) => text(value),
  );
  return server;
}

type Answer = {
  id: number;
  result?: { content: Array<{ text: string }> };
  error?: { code: number; data?: unknown };
};

describe('the default rate limit', () => {
  it('counts per caller: a session that floods past it limits itself, another session is served', async () => {
    const store = new MemoryRateLimitStore({ now: () => 0 });
    const handle = await serveHttp(echoServer({ rateLimit: { store } }), { port: 0, responseMode: 'json' });
    served.handle = handle;
    const flooder = await open(handle.url, '2025-03-26');
    const other = await open(handle.url, '2025-03-26');
    const headers = (session: string) => ({
      'mcp-session-id': session,
      'mcp-protocol-version': '2025-03-26',
    });

    // 20,100 calls in batches of 100: the default bucket holds 20,000.
    let refused: Answer | undefined;
    let answered = 0;
    for (let batch = 0; batch < 201; batch++) {
      const calls = Array.from({ length: 100 }, (_, i) => echo(batch * 100 + i + 1));
      const answers = (await (await post(handle.url, calls, headers(flooder))).json()) as Answer[];
      for (const answer of answers) {
        if (answer.error) refused ??= answer;
        else answered++;
      }
    }
    expect(answered).toBe(20_000);
    expect(refused).toMatchObject({ error: { code: -31429, data: { limit: 'caller' } } });

    const response = await post(handle.url, echo(1), headers(other));
    expect(await response.json()).toMatchObject({ id: 1, result: { content: [{ text: '1' }] } });
  }, 120_000);

  it('tells callers outside any session by their address (stateless era)', async () => {
    const store = new MemoryRateLimitStore({ now: () => 0 });
    const server = echoServer({ rateLimit: { store, perCaller: { burst: 2, perSecond: 1 } } });
    // Loopback peers have no address by default (a reverse proxy's clients would all share one): here
    // each loopback address is a client, as a proxy's `X-Forwarded-For` would be.
    const handle = await serveHttp(server, {
      port: 0,
      responseMode: 'json',
      clientAddress: (request) => request.remoteAddress,
    });
    served.handle = handle;
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    /** One stateless call from `localAddress`: its HTTP status and answer. */
    const call = (id: number, localAddress: string) =>
      new Promise<{ status: number; body: Answer }>((resolve, reject) => {
        const body = JSON.stringify({ ...echo(id), params: { ...echo(id).params, _meta: meta } });
        const req = request(
          handle.url,
          {
            method: 'POST',
            localAddress,
            headers: {
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
              'mcp-protocol-version': '2026-07-28',
              'mcp-method': 'tools/call',
              'mcp-name': 'echo',
            },
          },
          (res) => {
            let text = '';
            res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Answer }));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    expect((await call(1, '127.0.0.1')).status).toBe(200);
    expect((await call(2, '127.0.0.1')).status).toBe(200);
    const over = await call(3, '127.0.0.1');
    expect(over.status).toBe(429);
    expect(over.body).toMatchObject({ error: { code: -31429, data: { limit: 'caller' } } });
    const elsewhere = await call(4, '127.0.0.2');
    expect(elsewhere).toMatchObject({ status: 200, body: { result: { content: [{ text: '4' }] } } });
  });
});
