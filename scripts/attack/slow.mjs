// Slow readers and writers: headers and bodies a byte at a time (slowloris), clients that never read their
// answers (HTTP JSON, an SSE stream full of progress, a stdio client that stops reading stdout) and a
// pipelined flood of small requests on stdio. Memory must stay bounded, nothing may be lost, and the
// bystander must not notice.
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { openSession } from './lib/http.mjs';
import { exchange, head } from './lib/raw-http.mjs';
import { StdioPeer } from './lib/stdio-peer.mjs';

const MiB = 1024 * 1024;
const BASE = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
};
const call = (id, name, args, meta) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) },
  });

/** A connection that writes `text` and then never reads: what the server sends piles up on its side. */
async function stalled(url, text) {
  const u = new URL(url);
  const socket = connect(Number(u.port), u.hostname);
  socket.on('error', () => {});
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.pause();
  socket.write(text);
  return socket;
}

/** A message with its first text block cut to 100 characters, and its text's length beside it. */
function shortened(message) {
  const text = message?.result?.content?.[0]?.text;
  if (typeof text !== 'string') return message;
  return {
    ...message,
    length: text.length,
    result: { ...message.result, content: [{ type: 'text', text: text.slice(0, 100) }] },
  };
}

/** Splits `text` into one-byte parts. */
const bytewise = (text) => [...Buffer.from(text)].map((b) => Buffer.of(b));

/** How `results` of exchanges ended, for a note. */
const ended = (results) =>
  `${results.filter((r) => r.status !== undefined).length} answered (${[...new Set(results.map((r) => r.status).filter(Boolean))].join(', ') || '-'}), ` +
  `${results.filter((r) => r.closed && r.status === undefined).length} closed, ${results.filter((r) => r.timedOut).length} still open`;

export default [
  {
    name: 'slowloris-headers',
    title: 'request heads sent a byte every 100 ms on many connections',
    async run(ctx) {
      const url = ctx.target.url;
      const count = ctx.quick ? 20 : 200;
      const text = `${head(url, { ...BASE, 'content-length': '2' })}{}`;
      const results = await Promise.all(
        Array.from({ length: count }, () =>
          exchange(url, bytewise(text), { gapMs: 100, timeoutMs: ctx.quick ? 3000 : 6000 }),
        ),
      );
      ctx.tries += count;
      ctx.note(`after ${ctx.quick ? 3 : 6} s: ${ended(results)}`);
    },
  },
  {
    name: 'slow-body',
    title: 'bodies sent a byte every 100 ms after a whole head, on many connections',
    async run(ctx) {
      const url = ctx.target.url;
      const session = await openSession(url);
      const count = ctx.quick ? 20 : 200;
      const body = call(1, 'echo', { text: 'slow' });
      const headText = head(url, {
        ...BASE,
        'mcp-session-id': session,
        'content-length': String(body.length),
      });
      const results = await Promise.all(
        Array.from({ length: count }, () =>
          exchange(url, [headText, ...bytewise(body)], { gapMs: 100, timeoutMs: ctx.quick ? 3000 : 6000 }),
        ),
      );
      ctx.tries += count;
      for (const r of results.filter((r) => r.status !== undefined))
        ctx.check(r.status === 200 || r.status >= 400, `a slow body got ${r.status}`);
      ctx.note(`after ${ctx.quick ? 3 : 6} s: ${ended(results)}`);
    },
  },
  {
    name: 'unread-json',
    title: 'clients that ask for 1 MiB answers (JSON mode) and never read them',
    target: { transport: 'http', flags: ['--json'] },
    async run(ctx) {
      const url = ctx.target.url;
      const session = await openSession(url);
      const count = ctx.quick ? 20 : 100;
      const body = call(1, 'reflect', { kind: 'plain', bytes: MiB });
      const text =
        head(url, { ...BASE, 'mcp-session-id': session, 'content-length': String(body.length) }) + body;
      // One at a time, 10 ms apart: the question is what unread answers cost, not what a burst does.
      const sockets = [];
      for (let i = 0; i < count; i++) {
        sockets.push(await stalled(url, text));
        await sleep(10);
      }
      ctx.tries += count;
      await sleep(ctx.quick ? 1000 : 3000);
      ctx.note(
        `${count} unread 1 MiB answers: server RSS ${ctx.target.rssMb().toFixed(0)} MB while they wait`,
      );
      for (const socket of sockets) socket.destroy();
    },
  },
  {
    name: 'unread-sse',
    title: 'SSE streams of 20,000 progress notifications (1 KiB each) that the client never reads',
    heapBudgetMb: 24,
    async run(ctx) {
      const url = ctx.target.url;
      const session = await openSession(url);
      const count = ctx.quick ? 3 : 10;
      const sockets = [];
      for (let i = 0; i < count; i++) {
        const body = call(i + 1, 'chatter', { count: 20_000 }, { progressToken: `p${i}` });
        sockets.push(
          await stalled(
            url,
            head(url, { ...BASE, 'mcp-session-id': session, 'content-length': String(body.length) }) + body,
          ),
        );
      }
      ctx.tries += count;
      await sleep(ctx.quick ? 2000 : 5000);
      ctx.note(
        `${count} unread streams of 20 MB: server RSS ${ctx.target.rssMb().toFixed(0)} MB while they wait`,
      );
      for (const socket of sockets) socket.destroy();
      await sleep(500);
    },
  },
  {
    name: 'stdout-unread',
    title: 'a stdio client that stops reading stdout while asking for 1 MiB answers, then reads them all',
    target: { transport: 'stdio' },
    async run(ctx) {
      // Keeps each answer's length and first characters only.
      const peer = new StdioPeer(ctx.target.child, { keep: shortened });
      await peer.initialize();
      const count = ctx.quick ? 50 : 200;
      ctx.target.child.stdout.pause();
      let line = '';
      for (let i = 0; i < count; i++)
        line += `${call(`big-${i}`, 'reflect', { kind: 'plain', bytes: MiB })}\n`;
      void peer.write(line); // may never complete while the server (rightly) stops reading
      await sleep(ctx.quick ? 1500 : 3000);
      const rss = ctx.target.rssMb();
      ctx.note(`${count} MiB of answers unread: server RSS ${rss.toFixed(0)} MB`);
      ctx.check(rss < 400, `the server buffered the unread answers: RSS ${rss.toFixed(0)} MB`);
      ctx.target.child.stdout.resume();
      for (let i = 0; i < count; i++) {
        ctx.tries++;
        const answer = await peer.answer(`big-${i}`, 30_000).catch(() => undefined);
        const text = answer?.result?.content?.[0]?.text;
        if (
          !ctx.check(
            answer?.length >= MiB && text?.startsWith('xxx'),
            `answer big-${i} lost or wrong: ${JSON.stringify(answer)?.slice(0, 120)}`,
          )
        )
          break;
      }
    },
  },
  {
    name: 'stdio-pipelined',
    title: '50,000 small calls written to stdin as fast as the pipe takes them',
    target: { transport: 'stdio' },
    async run(ctx) {
      const peer = new StdioPeer(ctx.target.child);
      await peer.initialize();
      const count = ctx.quick ? 10_000 : 50_000;
      let text = '';
      for (let i = 0; i < count; i++) {
        text += `${call(`f-${i}`, 'echo', { text: `f${i}` })}\n`;
        if (text.length > 256 * 1024 || i === count - 1) {
          await peer.write(text);
          text = '';
        }
      }
      // The flood's own calls may be refused by a rate limit (-31429): a right answer to a flood. Others'
      // calls (the bystander's) may not.
      let limited = 0;
      for (let i = 0; i < count; i++) {
        ctx.tries++;
        const answer = await peer.answer(`f-${i}`, 30_000).catch(() => undefined);
        if (answer?.error?.code === -31429) limited++;
        if (
          !ctx.check(
            answer?.result?.content?.[0]?.text === `f${i}` || answer?.error?.code === -31429,
            `call f-${i}: ${JSON.stringify(answer)?.slice(0, 160)}`,
          )
        )
          break;
      }
      ctx.note(`${limited} of the flood's ${count} calls were refused by the rate limit (-31429)`);
    },
  },
];
