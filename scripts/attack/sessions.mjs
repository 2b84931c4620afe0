// Session floods: handshake sessions opened as fast as 16 connections can (past the 10,000 cap in the full
// run), GET streams stacked on one session, legacy HTTP+SSE streams never read, guessed and reused session
// ids. Sessions cost bounded memory, the cap answers 503, ended sessions give their memory back, and a
// guessed id never reaches anyone's session.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect } from 'node:net';
import { HANDSHAKE_VERSION, endSession, openSession, post } from './lib/http.mjs';
import { head } from './lib/raw-http.mjs';

/** Runs `task(i)` for i < count on `workers` loops; resolves the results in order. */
async function pool(count, workers, task) {
  const results = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (next < count) {
        const i = next++;
        results[i] = await task(i).then(
          (value) => ({ value }),
          (error) => ({ error: error.message }),
        );
      }
    }),
  );
  return results;
}

/** A GET that opens a stream and is never read; resolves once its answer's head came (or 5 s passed). */
async function unreadGet(url, headers, target) {
  const u = new URL(url);
  const socket = connect(Number(u.port), u.hostname);
  socket.on('error', () => {});
  await new Promise((resolve) => socket.once('connect', resolve));
  let answer = '';
  const headed = new Promise((resolve) => {
    const onData = (chunk) => {
      answer += chunk.toString('latin1');
      if (!answer.includes('\r\n\r\n')) return;
      socket.off('data', onData);
      socket.pause();
      resolve();
    };
    socket.on('data', onData);
  });
  socket.write(head(url, headers, { method: 'GET', target }));
  await Promise.race([headed, sleep(5000)]);
  return { socket, status: () => Number(answer.slice(9, 12)) || undefined };
}

export default [
  {
    name: 'flood',
    title: 'handshake sessions opened by 16 connections at once, past the cap (1000 here), then ended',
    // The default cap is 10,000: the same code with a cap a flood reaches in seconds.
    target: (ctx) => ({
      transport: 'stdio',
      env: { TOOLWIRE_ATTACK_HTTP_OPTIONS: JSON.stringify({ maxSessions: ctx.quick ? 200 : 1000 }) },
    }),
    async run(ctx) {
      const url = ctx.target.url;
      const count = ctx.quick ? 250 : 1100;
      const before = await ctx.memory();
      const opened = await pool(count, 16, () => openSession(url));
      ctx.tries += count;
      const ids = opened.filter((r) => r.value).map((r) => r.value);
      const refused = opened.filter((r) => r.error);
      ctx.check(
        refused.every((r) => /^initialize: 503 /.test(r.error)),
        () =>
          `a session refused otherwise than 503: ${refused.find((r) => !/^initialize: 503 /.test(r.error))?.error.slice(0, 160)}`,
      );
      const during = await ctx.memory();
      const perSessionKb = ((during.heapMb - before.heapMb) * 1024) / Math.max(1, ids.length);
      ctx.note(
        `${ids.length} sessions opened, ${refused.length} refused; heap after GC ${perSessionKb.toFixed(1)} KB per session, RSS ${during.rssMb.toFixed(0)} MB`,
      );
      ctx.check(perSessionKb < 64, `a session holds ${perSessionKb.toFixed(0)} KB of heap`);
      const ended = await pool(ids.length, 16, (i) => endSession(url, ids[i]));
      ctx.tries += ids.length;
      ctx.check(
        ended.every((r) => r.value === 200 || r.value === 204),
        () =>
          `DELETE answered ${ended.find((r) => r.value !== 200 && r.value !== 204)?.value ?? ended.find((r) => r.error)?.error}`,
      );
      // After the flood, a new caller gets a session again.
      ctx.tries++;
      await openSession(url).catch((error) =>
        ctx.fail(`a new session after the flood ended: ${error.message}`),
      );
    },
  },
  {
    name: 'get-streams',
    title: 'GET streams stacked on one session (never read), and GETs on sessions that do not exist',
    async run(ctx) {
      const url = ctx.target.url;
      const session = await openSession(url);
      const headers = {
        accept: 'text/event-stream',
        'mcp-session-id': session,
        'mcp-protocol-version': HANDSHAKE_VERSION,
      };
      const streams = [];
      for (let i = 0; i < (ctx.quick ? 20 : 100); i++) streams.push(await unreadGet(url, headers));
      await sleep(200);
      ctx.tries += streams.length;
      const statuses = streams.map((s) => s.status());
      const open = statuses.filter((s) => s === 200).length;
      ctx.check(open <= 1, `${open} GET streams open at once on one session`);
      ctx.check(
        statuses.every((s) => s === 200 || s === 409),
        `GET stream answers: ${[...new Set(statuses)].join(', ')}`,
      );
      for (const s of streams) s.socket.destroy();
      for (let i = 0; i < (ctx.quick ? 50 : 500); i++) {
        ctx.tries++;
        const res = await fetch(url, {
          headers: { ...headers, 'mcp-session-id': randomUUID() },
          signal: AbortSignal.timeout(5000),
        });
        await res.arrayBuffer();
        if (!ctx.check(res.status === 404, `a GET on a session that does not exist: ${res.status}`)) break;
      }
    },
  },
  {
    name: 'legacy-streams',
    title: 'legacy HTTP+SSE streams (GET /sse) opened and never read, and messages to guessed session ids',
    async run(ctx) {
      const url = ctx.target.url;
      const sse = new URL('/sse', url).href;
      const streams = [];
      for (let i = 0; i < (ctx.quick ? 50 : 300); i++)
        streams.push(await unreadGet(sse, { accept: 'text/event-stream' }));
      ctx.tries += streams.length;
      await sleep(200);
      ctx.check(
        streams.every((s) => s.status() === 200 || s.status() === 503),
        `GET /sse answers: ${[...new Set(streams.map((s) => s.status()))].join(', ')}`,
      );
      const message = { jsonrpc: '2.0', id: 1, method: 'ping' };
      for (let i = 0; i < (ctx.quick ? 50 : 300); i++) {
        ctx.tries++;
        const res = await post(new URL(`/messages?sessionId=${randomUUID()}`, url).href, message);
        if (
          !ctx.check(
            res.status === 404 || res.status === 400,
            `POST /messages to a guessed session: ${res.status}`,
          )
        )
          break;
      }
      for (const s of streams) s.socket.destroy();
      await sleep(300);
    },
  },
  {
    name: 'guessed-ids',
    title:
      'POSTs and DELETEs with guessed, malformed and ended session ids: 404 or 400, never someone else’s',
    async run(ctx) {
      const url = ctx.target.url;
      const ended = await openSession(url);
      await endSession(url, ended);
      const ids = [
        ended,
        randomUUID(),
        'x',
        '0'.repeat(36),
        '../../etc',
        '\u00e9',
        ended.toUpperCase(),
        ` ${ended}`,
      ];
      const call = {
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'echo', arguments: { text: 'mine?' } },
      };
      for (let round = 0; round < (ctx.quick ? 10 : 100); round++) {
        for (const id of ids) {
          ctx.tries += 2;
          const res = await post(url, call, { headers: { 'mcp-session-id': id } }).catch((error) => ({
            status: error.message,
          }));
          ctx.check(
            res.status === 404 || res.status === 400,
            `POST with session id ${JSON.stringify(id).slice(0, 40)}: ${res.status}`,
          );
          const del = await endSession(url, id).catch((error) => error.message);
          ctx.check(
            del === 404 || del === 400,
            `DELETE of session id ${JSON.stringify(id).slice(0, 40)}: ${del}`,
          );
        }
      }
    },
  },
];
