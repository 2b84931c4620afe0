// Batch amplification: JSON-RPC batches are part of 2025-03-26 only (2024-11-05 had them in JSON-RPC
// terms; 2025-06-18 removed them). A huge batch (10,000 calls in one line or body) must be refused as a
// whole or answered whole and right; a batch under the cap whose answers are 1 MiB each must not make the
// server hold or write them all at once at the others' expense; batches in revisions without them, empty
// and nested batches get one clear error.
import { HANDSHAKE_VERSION, openSession, post } from './lib/http.mjs';
import { StdioPeer } from './lib/stdio-peer.mjs';

const BATCH_VERSION = '2025-03-26';
const echo = (id, text) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'echo', arguments: { text } },
});
const errorOf = (m) => m?.error?.code;

/**
 * Judges the answers to a batch of echo calls with ids `b-<i>`: all of them, each right, or one error for
 * the whole batch (no id, -32600). `answers(i)` is the answer to call i (or undefined); `whole` the error.
 */
function judgeBatch(ctx, size, answers, wholeError, what) {
  if (wholeError !== undefined) {
    ctx.check(wholeError === -32600, `${what}: the batch was refused with ${wholeError}, not -32600`);
    return 'refused';
  }
  for (let i = 0; i < size; i++) {
    const answer = answers(i);
    if (
      !ctx.check(
        answer?.result?.content?.[0]?.text === `t${i}`,
        () => `${what}: call ${i} got ${JSON.stringify(answer)?.slice(0, 120)}`,
      )
    )
      break;
  }
  return 'answered';
}

export default [
  {
    name: 'stdio-huge-batch',
    title:
      'a batch of 10,000 calls in one stdio line (2025-03-26): refused whole, or every call answered right',
    target: { transport: 'stdio' },
    async run(ctx) {
      const peer = new StdioPeer(ctx.target.child);
      await peer.initialize(BATCH_VERSION);
      const rounds = ctx.quick ? 1 : 3;
      const outcomes = [];
      for (let round = 0; round < rounds; round++) {
        const size = 10_000;
        const ids = Array.from({ length: size }, (_, i) => `r${round}-b-${i}`);
        const from = peer.messages.length;
        await peer.write(`${JSON.stringify(ids.map((id, i) => echo(id, `t${i}`)))}\n`);
        ctx.tries++;
        await peer.request('ping', undefined, 30_000);
        const first = await peer.answer(ids[0], 2000).catch(() => undefined);
        const whole = first ? undefined : peer.messages.slice(from).find((m) => m.error && m.id == null);
        if (!first && !whole) {
          ctx.fail('the 10,000-call batch got neither answers nor an error');
          break;
        }
        if (first) for (const id of ids) await peer.answer(id, 30_000).catch(() => undefined);
        const answers = new Map(peer.messages.slice(from).map((m) => [m.id, m]));
        outcomes.push(judgeBatch(ctx, size, (i) => answers.get(ids[i]), errorOf(whole), 'stdio batch'));
      }
      ctx.note(`10,000-call batches: ${outcomes.join(', ')}`);
    },
  },
  {
    name: 'http-huge-batch',
    title:
      'a batch of 10,000 calls in one POST (2025-03-26 session): refused whole, or answered whole and right',
    target: { transport: 'http', flags: ['--json'] },
    async run(ctx) {
      const url = ctx.target.url;
      const session = await openSession(url, { version: BATCH_VERSION });
      const outcomes = [];
      for (let round = 0; round < (ctx.quick ? 1 : 3); round++) {
        const ids = Array.from({ length: 10_000 }, (_, i) => `b-${i}`);
        const res = await post(
          url,
          ids.map((id, i) => echo(id, `t${i}`)),
          { session, version: BATCH_VERSION, timeoutMs: 30_000 },
        );
        ctx.tries++;
        ctx.check(res.status < 500, `HTTP ${res.status} for a big batch`);
        const byId = new Map((res.messages ?? []).map((m) => [m.id, m]));
        const whole =
          res.status >= 400 || (res.messages?.length === 1 && res.messages[0].id == null)
            ? (errorOf(res.messages?.[0]) ?? res.status)
            : undefined;
        outcomes.push(
          `${res.status} ${judgeBatch(ctx, ids.length, (i) => byId.get(ids[i]), whole, 'HTTP batch')}`,
        );
      }
      ctx.note(`10,000-call batches: ${outcomes.join(', ')}`);
    },
  },
  {
    name: 'amplification',
    title: 'batches of 100 calls (under any cap) each answered with 1 MiB: 100 MiB out per 10 KiB in',
    target: { transport: 'stdio' },
    async run(ctx) {
      const peer = new StdioPeer(ctx.target.child, {
        keep: (m) => (Array.isArray(m) ? m.map(short) : short(m)),
      });
      await peer.initialize(BATCH_VERSION);
      let answered = 0;
      let refused = 0;
      for (let round = 0; round < (ctx.quick ? 1 : 3); round++) {
        const ids = Array.from({ length: 100 }, (_, i) => `a${round}-${i}`);
        const batch = ids.map((id) => ({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: 'reflect', arguments: { kind: 'plain', bytes: 1 << 20 } },
        }));
        await peer.write(`${JSON.stringify(batch)}\n`);
        ctx.tries++;
        const first = await peer.answer(ids[0], 30_000).catch(() => undefined);
        if (
          !ctx.check(
            first !== undefined || peer.messages.some((m) => m.error && m.id == null),
            'a batch of 100 reflect calls got no answer',
          )
        )
          break;
        // Each call is answered whole, or not run: -31429 `batch-answers` once the batch's answers hold
        // the server's budget (`maxBatchAnswerBytes`, 8 MiB), which bounds what it holds for one batch.
        if (first)
          for (const id of ids) {
            const answer = await peer.answer(id, 30_000).catch(() => undefined);
            if (answer?.error?.data?.limit === 'batch-answers' && answer.error.code === -31429) refused++;
            else if (answer?.length >= 1 << 20) answered++;
            else ctx.fail(`${id}: a short or missing answer: ${JSON.stringify(answer)?.slice(0, 120)}`);
          }
      }
      ctx.check(answered > 0, 'no call of the batches was answered');
      ctx.note(
        `${answered} calls answered with 1 MiB, ${refused} not run (batch-answers budget); ` +
          `server RSS after the batches: ${ctx.target.rssMb().toFixed(0)} MB`,
      );
    },
  },
  {
    name: 'revisions',
    title: 'batches where the revision has none (2025-06-18 on, the stateless era), empty and nested batches',
    target: { transport: 'stdio' },
    async run(ctx) {
      const url = ctx.target.url; // the side HTTP port, JSON answers
      const pair = [echo('x1', 't0'), echo('x2', 't1')];
      const cases = [];
      for (const version of ['2025-06-18', HANDSHAKE_VERSION]) {
        const session = await openSession(url, { version });
        cases.push({ what: `a batch at ${version}`, body: pair, session, version, refused: true });
      }
      const old = await openSession(url, { version: BATCH_VERSION });
      cases.push({ what: 'an empty batch', body: [], session: old, version: BATCH_VERSION, refused: true });
      cases.push({
        what: 'a nested batch',
        body: [pair],
        session: old,
        version: BATCH_VERSION,
        refused: 'each',
      });
      cases.push({
        what: 'a batch of numbers',
        body: [1, 2, 3],
        session: old,
        version: BATCH_VERSION,
        refused: 'each',
      });
      for (let round = 0; round < (ctx.quick ? 5 : 50); round++) {
        for (const c of cases) {
          ctx.tries++;
          const res = await post(url, c.body, { session: c.session, version: c.version });
          const messages = res.messages ?? [];
          if (c.refused === true)
            ctx.check(
              res.status >= 400 &&
                res.status < 500 &&
                messages.length === 1 &&
                messages[0].error &&
                !messages[0].result,
              `${c.what}: HTTP ${res.status} ${res.text.slice(0, 120)}`,
            );
          else
            ctx.check(
              res.status < 500 && messages.length > 0 && messages.every((m) => m.error),
              `${c.what}: HTTP ${res.status} ${res.text.slice(0, 120)}`,
            );
        }
      }
      // The same on stdio, in the stateless era: 2026-07-28 requests in a batch.
      const peer = new StdioPeer(ctx.target.child);
      await peer.write(
        `${JSON.stringify([{ ...echo('m1', 't0'), params: { ...echo('m1', 't0').params, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } } }])}\n`,
      );
      ctx.tries++;
      const refused = await peer
        .waitFor((m) => m.error !== undefined || m.id === 'm1', 10_000)
        .catch(() => undefined);
      ctx.check(
        refused?.error !== undefined,
        `a stateless-era batch on stdio: ${JSON.stringify(refused)?.slice(0, 120)}`,
      );
    },
  },
];

/** A message with its text cut short and its length kept. */
function short(message) {
  const text = message?.result?.content?.[0]?.text;
  if (typeof text !== 'string') return message;
  return {
    ...message,
    length: text.length,
    result: { ...message.result, content: [{ type: 'text', text: text.slice(0, 10) }] },
  };
}
