// A tool's progress notifications go at the pace its client reads them, over Streamable HTTP: `await
// ctx.progress(…)` waits while the call's SSE stream is congested, so a client that stops reading holds
// the tool back (bounded memory, nothing dropped) instead of the tool queuing thousands of events at once.
// Before, progress never waited: the tool sent its 20,000 events of 1 KiB in one run of microtasks, the
// stream overflowed the session's unread-output limit and was ended, and what followed went only to the
// event store. And a loop of them gives the event loop a turn every 64 messages even while the client reads
// them as fast as they come: before, 5,000 went before any other work could run.
import { describe, expect, it } from 'vitest';
import { Server, text } from '../src/server/index.js';
import { ACCEPT, closeServedAfterEach, open, served } from './_http.js';
import { SseReader } from './_sse.js';
import { serveHttp } from '../src/transports/http/index.js';

closeServedAfterEach();

const COUNT = 20_000;

/** Resolves when `read()` has not changed for `turns` polls 20 ms apart (or `done` settles first). */
async function settled(read: () => number, done: Promise<unknown>, turns = 10): Promise<void> {
  let ended = false;
  void done.finally(() => (ended = true));
  let last = -1;
  let same = 0;
  while (!ended && same < turns) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    const now = read();
    same = now === last ? same + 1 : 0;
    last = now;
  }
}

/** Serves `server` over HTTP, opens a session and calls its `chatter` tool with a progress token. */
async function callChatter(server: Server): Promise<Response> {
  const handle = await serveHttp(server, { port: 0 });
  served.handle = handle;
  const session = await open(handle.url);
  return fetch(handle.url, {
    method: 'POST',
    headers: { accept: ACCEPT, 'content-type': 'application/json', 'mcp-session-id': session },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'chatter', arguments: {}, _meta: { progressToken: 'p' } },
    }),
  });
}

describe('progress notifications to a client that stops reading', () => {
  it('hold the tool back until the client reads again, then all arrive, in order, with the result', async () => {
    const server = new Server({ name: 'paced', version: '1.0.0' }, { rateLimit: false });
    let sent = 0;
    let finished!: () => void;
    const done = new Promise<void>((resolve) => (finished = resolve));
    let aborted = false;
    server.tool('chatter', {}, async (_args, ctx) => {
      try {
        for (let i = 1; i <= COUNT && !ctx.signal.aborted; i++) {
          await ctx.progress(i, COUNT, 'x'.repeat(1024));
          sent = i;
        }
        aborted = ctx.signal.aborted;
        return text(`sent ${sent}`);
      } finally {
        finished();
      }
    });
    const response = await callChatter(server);
    expect(response.headers.get('content-type')).toBe('text/event-stream');

    // Not reading: the tool goes on until the socket and the stream are full, then waits.
    await settled(() => sent, done);
    expect(aborted, 'the call was cancelled').toBe(false);
    expect(sent, 'the tool did not wait for the client').toBeLessThan(COUNT);

    // Reading again: every notification, in order, then the result.
    const reader = new SseReader(response);
    let expected = 1;
    for (;;) {
      const message = await reader.nextMessage(30_000);
      if (message === undefined) break;
      if (message.method === 'notifications/progress') {
        expect((message.params as { progress: number }).progress).toBe(expected++);
        continue;
      }
      expect(message).toMatchObject({
        id: 1,
        result: { content: [{ type: 'text', text: `sent ${COUNT}` }] },
      });
      break;
    }
    expect(expected - 1).toBe(COUNT);
    await done;
  }, 120_000);

  it('a loop of them yields to other work while the client reads them', async () => {
    const server = new Server({ name: 'paced', version: '1.0.0' }, { rateLimit: false });
    let sent = 0;
    let sentWhenOthersRan: number | undefined;
    server.tool('chatter', {}, async (_args, ctx) => {
      // Other work, queued as the loop starts: it runs when the loop gives the event loop a turn.
      setImmediate(() => (sentWhenOthersRan = sent));
      for (let i = 1; i <= 5000; i++) {
        await ctx.progress(i, 5000, 'x'.repeat(100));
        sent = i;
      }
      return text('done');
    });
    const response = await callChatter(server);
    const reader = new SseReader(response);
    let progress = 0;
    for (
      let message = await reader.nextMessage(30_000);
      message;
      message = await reader.nextMessage(30_000)
    ) {
      if (message.method === 'notifications/progress') progress++;
      else if ('result' in message) break;
    }
    expect(progress).toBe(5000);
    // Every 64 progress messages at most, the loop waits a turn: the other work ran early in it.
    expect(sentWhenOthersRan).toBeLessThanOrEqual(128);
  }, 60_000);
});
