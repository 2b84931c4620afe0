// A long session in SSE mode (the default) keeps no memory per finished POST: the heap after garbage
// collection stays flat over thousands of calls on real HTTP, as in JSON mode, the default event store
// included (a session keeps its last 32 finished streams resumable, and deletes older ones).
import { Agent, request } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { redisStores } from '../src/stores/redis.js';
import { MemoryEventStore } from '../src/transports/http/index.js';
import { startRedis } from './_redis.js';
import { SseReader } from './_sse.js';
import { ACCEPT, closeServedAfterEach, open, post, served, start } from './_http.js';

closeServedAfterEach();

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function heapAfterGc(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/** POSTs `body` over a keep-alive agent (node:http: fetch keeps per-response state until a later task). */
function postKeepAlive(agent: Agent, url: string, body: unknown, sid: string): Promise<string> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          accept: ACCEPT,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(text)),
          'mcp-session-id': sid,
        },
      },
      (res) => {
        let out = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (out += chunk));
        res.on('end', () => resolve(out));
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

/** `count` echo calls on the session, 8 at a time, each read to the end of its stream. */
async function calls(agent: Agent, url: string, sid: string, from: number, count: number): Promise<void> {
  let next = from;
  const worker = async () => {
    while (next < from + count) {
      const id = next++;
      const params = { name: 'echo', arguments: { text: `${id}` } };
      const answer = await postKeepAlive(
        agent,
        url,
        { jsonrpc: '2.0', id, method: 'tools/call', params },
        sid,
      );
      expect(answer).toContain(`"id":${id},"result"`);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
}

describe('SSE mode over a long session', () => {
  it('keeps the heap flat: no memory per finished POST', async () => {
    const store = new MemoryEventStore();
    const { url } = await start({ eventStore: store });
    const sid = await open(url);
    const agent = new Agent({ keepAlive: true, maxSockets: 8 });
    try {
      // Warm-up: the store fills, code is compiled, the heap settles (≈400 B per call at first, leak or not).
      await calls(agent, url, sid, 1, 2000);
      const before = heapAfterGc();
      const count = 1500;
      await calls(agent, url, sid, 10_000, count);
      const perCall = (heapAfterGc() - before) / count;
      // A set of stream ids kept for the session's life grew ≈550 B per POST (≈40 without it): the bound
      // leaves room for what a collection happens to leave, not for a per-request leak.
      expect(perCall).toBeLessThan(250);
      expect(store.streamCount).toBe(32);
    } finally {
      agent.destroy();
    }
  }, 60_000);

  it('still resumes the stream of a call that finished while the client was away', async () => {
    const { url } = await start();
    const sid = await open(url);
    const reader = new SseReader(
      await post(
        url,
        {
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: { name: 'slow', arguments: { steps: 2, ms: 30 }, _meta: { progressToken: 'p' } },
        },
        { 'mcp-session-id': sid },
      ),
    );
    const priming = await reader.next();
    await reader.cancel(); // gone before the call ends
    await expect.poll(() => served.handle!.handler.load.pendingRequests).toBe(0); // it finished meanwhile
    const resumed = new SseReader(
      await fetch(url, {
        headers: { accept: 'text/event-stream', 'mcp-session-id': sid, 'last-event-id': priming!.id! },
      }),
    );
    const messages = [];
    for (let m = await resumed.nextMessage(); m; m = await resumed.nextMessage()) messages.push(m);
    expect(messages.at(-1)).toMatchObject({ id: 7, result: { content: [{ type: 'text' }] } });
  });
});

describe('SSE mode on the Redis event store', () => {
  it('keeps only the last 32 finished streams of a session, and none once it ends', async () => {
    const redis = await startRedis();
    const stores = redisStores(redis.url, { prefix: 'sse-retention:' });
    try {
      const { url } = await start({ eventStore: stores.events, sessionStore: stores.sessions });
      const sid = await open(url);
      const agent = new Agent({ keepAlive: true, maxSockets: 8 });
      try {
        await calls(agent, url, sid, 1, 100);
      } finally {
        agent.destroy();
      }
      // Each stream is a Redis key kept 24 h unless deleted: a session's history must not stay that long.
      const keys = () => stores.client.keys('sse-retention:events:*');
      await expect.poll(async () => (await keys()).length).toBe(32);
      expect((await fetch(url, { method: 'DELETE', headers: { 'mcp-session-id': sid } })).status).toBe(200);
      await expect.poll(async () => (await keys()).length).toBe(0);
    } finally {
      await stores.close();
      await redis.close();
    }
  });
});
