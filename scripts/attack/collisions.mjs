// Cross-session id collisions: many callers using the same request ids (and progress tokens) at the same
// time — handshake sessions over HTTP (SSE answers), stateless-era requests, legacy HTTP+SSE sessions,
// stdio beside HTTP — and cancellations aimed at another session's id. Every answer reaches the caller
// that asked, with its own value; no one can cancel someone else's call.
import { setTimeout as sleep } from 'node:timers/promises';
import { STATELESS_META, answerTo, openSession, post } from './lib/http.mjs';
import { StdioPeer } from './lib/stdio-peer.mjs';

const add = (id, a, b, meta) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'add', arguments: { a, b }, ...(meta ? { _meta: meta } : {}) },
});
/** The sum in an answer: structuredContent, or its JSON text (2024-11-05 has no structuredContent). */
const sumOf = (message) => {
  const result = message?.result;
  if (result?.structuredContent) return result.structuredContent.sum;
  try {
    return JSON.parse(result?.content?.[0]?.text ?? 'null')?.sum;
  } catch {
    return undefined;
  }
};

/** `callers` callers, each sending ids 1..`ids` at once (a + b = caller * 1000 + id); checks every sum. */
async function collide(ctx, callers, ids, send) {
  await Promise.all(
    Array.from({ length: callers }, async (_, c) => {
      const answers = await Promise.all(
        Array.from({ length: ids }, (_, i) => send(c, i + 1).catch((error) => ({ error: error.message }))),
      );
      ctx.tries += ids;
      answers.forEach((answer, i) =>
        ctx.check(
          sumOf(answer) === c * 1000 + i + 1,
          () =>
            `caller ${c}, id ${i + 1}: expected ${c * 1000 + i + 1}, got ${JSON.stringify(answer)?.slice(0, 140)}`,
        ),
      );
    }),
  );
}

/** The events of a legacy SSE stream, as they come. */
async function* sseEvents(response) {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of response.body) {
    buffer += decoder.decode(chunk, { stream: true });
    let end;
    while ((end = buffer.indexOf('\n\n')) !== -1) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = /^event: ?(.*)$/m.exec(block)?.[1] ?? 'message';
      const data = block
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trim())
        .join('\n');
      yield { event, data };
    }
  }
}

export default [
  {
    name: 'http-sessions',
    title: '8 handshake sessions sending ids 1..10 at once, and the same progress token, over SSE',
    async run(ctx) {
      const url = ctx.target.url;
      const sessions = await Promise.all(Array.from({ length: 8 }, () => openSession(url)));
      for (let round = 0; round < (ctx.quick ? 1 : 5); round++) {
        await collide(ctx, 8, 10, async (c, id) =>
          answerTo((await post(url, add(id, c * 1000, id), { session: sessions[c] })).messages, id),
        );
      }
      // The same progress token in every session: each stream carries its own 30 notifications.
      await Promise.all(
        sessions.map(async (session, c) => {
          ctx.tries++;
          const res = await post(
            url,
            {
              jsonrpc: '2.0',
              id: 1,
              method: 'tools/call',
              params: { name: 'chatter', arguments: { count: 30 }, _meta: { progressToken: 'same' } },
            },
            { session },
          );
          const progress = (res.messages ?? []).filter((m) => m.method === 'notifications/progress');
          ctx.check(
            progress.length === 30 && progress.every((m) => m.params.progressToken === 'same'),
            `session ${c}: ${progress.length} progress notifications, not its own 30`,
          );
          ctx.check(
            answerTo(res.messages, 1)?.result?.content?.[0]?.text === 'sent 30',
            `session ${c}: no result for its chatter call`,
          );
        }),
      );
    },
  },
  {
    name: 'stateless',
    title: '8 stateless-era (2026-07-28) callers sending ids 1..10 at once',
    target: { transport: 'http', flags: ['--json'] },
    async run(ctx) {
      const url = ctx.target.url;
      for (let round = 0; round < (ctx.quick ? 1 : 5); round++) {
        await collide(ctx, 8, 10, async (c, id) =>
          answerTo(
            (await post(url, add(id, c * 1000, id, STATELESS_META), { version: '2026-07-28' })).messages,
            id,
          ),
        );
      }
    },
  },
  {
    name: 'legacy-sse',
    title: '4 legacy HTTP+SSE sessions (2024-11-05) sending ids 1..10 at once, answers on their own streams',
    async run(ctx) {
      const url = ctx.target.url;
      const sessions = await Promise.all(
        Array.from({ length: 4 }, async () => {
          const stream = await fetch(new URL('/sse', url), { headers: { accept: 'text/event-stream' } });
          const events = sseEvents(stream);
          const endpoint = (await events.next()).value;
          const messages = new URL(endpoint.data, url).href;
          const answers = new Map();
          const waiters = new Map();
          void (async () => {
            for await (const event of events) {
              const message = JSON.parse(event.data);
              answers.set(message.id, message);
              waiters.get(message.id)?.(message);
            }
          })().catch(() => {});
          const request = async (message) => {
            const answer = new Promise((resolve) => waiters.set(message.id, resolve));
            const res = await post(messages, message, { version: '2024-11-05' });
            if (res.status >= 300) throw new Error(`POST /messages: ${res.status}`);
            return Promise.race([answer, sleep(10_000).then(() => ({ error: 'no answer on the stream' }))]);
          };
          await request({
            jsonrpc: '2.0',
            id: 0,
            method: 'initialize',
            params: {
              protocolVersion: '2024-11-05',
              capabilities: {},
              clientInfo: { name: 'x', version: '1' },
            },
          });
          await post(
            messages,
            { jsonrpc: '2.0', method: 'notifications/initialized' },
            { version: '2024-11-05' },
          );
          return { request, close: () => stream.body.cancel().catch(() => {}) };
        }),
      );
      for (let round = 0; round < (ctx.quick ? 1 : 3); round++) {
        await collide(ctx, 4, 50, (c, id) => sessions[c].request(add(id, c * 1000, id)));
      }
      await Promise.all(sessions.map((s) => s.close()));
    },
  },
  {
    name: 'stdio-and-http',
    title:
      'stdio and 4 HTTP sessions of one server using the same ids at once; cancels aimed at the other’s id',
    target: { transport: 'stdio' },
    async run(ctx) {
      const peer = new StdioPeer(ctx.target.child);
      await peer.initialize();
      const url = ctx.target.url;
      const sessions = await Promise.all(Array.from({ length: 4 }, () => openSession(url)));
      for (let round = 0; round < (ctx.quick ? 1 : 5); round++) {
        const stdioCalls = Array.from({ length: 50 }, (_, i) => i + 1);
        const answers = Promise.all(
          stdioCalls.map((id) => peer.answer(id, 10_000).catch((error) => ({ error: error.message }))),
        );
        // The ids are raw integers, as every session uses them; the stdio caller is caller 9.
        await peer.write(stdioCalls.map((id) => `${JSON.stringify(add(id, 9000, id))}\n`).join(''));
        await collide(ctx, 4, 50, async (c, id) =>
          answerTo((await post(url, add(id, c * 1000, id), { session: sessions[c] })).messages, id),
        );
        (await answers).forEach((answer, i) =>
          ctx.check(
            sumOf(answer) === 9000 + i + 1,
            () => `stdio id ${i + 1}: ${JSON.stringify(answer)?.slice(0, 140)}`,
          ),
        );
        ctx.tries += 50;
        peer.forgetAnswers();
      }
      // A slow call on stdio with id "c"; every HTTP session cancels its own "c": the stdio call finishes.
      const slow = peer.answer('c', 10_000);
      await peer.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: 'c', method: 'tools/call', params: { name: 'slow', arguments: { ms: 300 } } })}\n`,
      );
      await sleep(50);
      for (const session of sessions)
        await post(
          url,
          { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'c' } },
          { session },
        );
      ctx.tries++;
      const answer = await slow.catch((error) => ({ error: error.message }));
      ctx.check(
        answer?.result?.content?.[0]?.text === 'slept 300',
        `a cancel from another session reached the stdio call: ${JSON.stringify(answer).slice(0, 140)}`,
      );
    },
  },
];
