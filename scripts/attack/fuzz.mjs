// Frame fuzzing (fast-check, seeded, shrinking): random and malformed JSON-RPC frames — wrong types in
// params, huge and odd ids, batches, unicode edge cases, bytes that are not JSON or not UTF-8 — on stdio and
// on HTTP (one frame per POST, in a session), and random header values on a good HTTP request. Every frame
// must leave the server alive; every response must be well-formed JSON-RPC, carry an id the frame sent (or
// null), and come once; every request with a valid id must be answered; no 5xx, no -32603 for bad input.
import fc from 'fast-check';
import { buildFrame, framePlan, idKey, malformedResponse, statelessFramePlan } from './lib/frames.mjs';
import { HANDSHAKE_VERSION, STATELESS_VERSION, answerTo, messagesOf, openSession } from './lib/http.mjs';
import { StdioPeer } from './lib/stdio-peer.mjs';

const NEWLINE = Buffer.from('\n');

/** Runs `property` with fast-check; a counterexample (shrunk while the server lives) becomes a failure. */
async function check(ctx, arbitrary, predicate, numRuns) {
  let first; // the first failing value, as it was: shrinking against a dead server would say nothing
  const result = await fc.check(
    fc.asyncProperty(arbitrary, async (value) => {
      ctx.tries++;
      if (!ctx.target.alive()) throw new Error('the server is gone');
      const problems = await predicate(value);
      if (problems.length > 0) {
        first ??= { value, problems };
        throw new Error(problems.join('; '));
      }
    }),
    {
      seed: ctx.seed,
      numRuns,
      interruptAfterTimeLimit: ctx.quick ? 20_000 : 45_000,
      markInterruptAsFailure: false,
    },
  );
  if (!result.failed) return;
  const shown = (value) =>
    JSON.stringify(value, (_, v) => (v instanceof Uint8Array ? `<${v.length} bytes>` : v))
      .replace(/(.)\1{19,}/gsu, (run, c) => `${c}×${run.length}`)
      .slice(0, 300);
  ctx.fail(`first failing frame ${shown(first?.value)}: ${first?.problems.join('; ').slice(0, 300)}`);
  if (ctx.target.alive())
    ctx.fail(
      `shrunk to ${shown(result.counterexample?.[0])} (seed ${result.seed}, path "${result.counterexample_path ?? result.counterexamplePath}")`,
    );
}

/** Problems with the responses among `messages`, given the ids sent so far and the answers counted. */
function judgeResponses(messages, known, answered) {
  const problems = [];
  for (const message of messages) {
    const bad = malformedResponse(message);
    if (bad) problems.push(bad);
    if (message.method !== undefined || !('id' in message) || message.id === null) continue;
    const key = idKey(message.id);
    if (!known.has(key)) problems.push(`a response to an id never sent: ${key.slice(0, 60)}`);
    answered.set(key, (answered.get(key) ?? 0) + 1);
  }
  return problems;
}

const stdioFrames = {
  name: 'stdio-frames',
  title: 'fast-check frames on stdio (malformed JSON-RPC, odd ids, batches, unicode, raw bytes)',
  target: { transport: 'stdio' },
  async run(ctx) {
    const peer = new StdioPeer(ctx.target.child);
    await peer.initialize();
    let counter = 0;
    const known = new Set();
    const answered = new Map();
    let seen = peer.messages.length;
    let slowest = { ms: 0 };
    await check(
      ctx,
      framePlan,
      async (plan) => {
        const frame = buildFrame(plan, () => ++counter);
        for (const key of frame.sent) known.add(key);
        const started = performance.now();
        await peer.write(Buffer.concat([frame.bytes, NEWLINE]));
        const problems = [];
        try {
          await peer.request('ping', undefined, 10_000);
          for (const id of frame.definite) await peer.answer(id, 10_000);
        } catch (error) {
          problems.push(`no answer: ${error.message}`);
        }
        const ms = performance.now() - started;
        if (ms > slowest.ms) slowest = { ms, frame: abridged(frame.bytes) };
        const fresh = peer.messages
          .slice(seen)
          .filter((m) => typeof m.id !== 'string' || !m.id.startsWith('attack-'));
        seen = peer.messages.length;
        problems.push(...judgeResponses(fresh, known, answered));
        for (const id of frame.definite)
          if ((answered.get(idKey(id)) ?? 0) > 1)
            problems.push(`answered ${answered.get(idKey(id))} times: ${idKey(id).slice(0, 60)}`);
        if (peer.garbage.length > 0)
          problems.push(`not JSON on stdout: ${peer.garbage.splice(0).join(' | ')}`);
        return problems;
      },
      ctx.quick ? 150 : 1000,
    );
    ctx.note(`slowest frame ${slowest.ms.toFixed(0)} ms: ${JSON.stringify(slowest.frame)}`);
  },
};

/** A frame for a report: runs of one character shortened, at most 300 characters. */
function abridged(bytes) {
  const text = bytes.length > 400_000 ? `${bytes.subarray(0, 400_000).toString()}…` : bytes.toString();
  return text.replace(/(.)\1{19,}/gsu, (run, c) => `${c}×${run.length}`).slice(0, 300);
}

/** Problems with one HTTP answer to a frame. */
function judgeHttp(frame, response, known, answered) {
  const { status, text } = response;
  if (status >= 500) return [`HTTP ${status}: ${text.slice(0, 120)}`];
  if (response.messages === undefined)
    return [`HTTP ${status} with a body that does not parse: ${text.slice(0, 120)}`];
  const problems = judgeResponses(response.messages, known, answered);
  if (status === 200 || status === 202) {
    for (const id of frame.definite)
      if (!answerTo(response.messages, id))
        problems.push(`HTTP ${status} without the answer to ${idKey(id).slice(0, 60)}`);
  } else if (!response.messages.some((m) => m.error)) {
    problems.push(`HTTP ${status} without a JSON-RPC error: ${text.slice(0, 120)}`);
  }
  return problems;
}

/** Frames as POST bodies; `open(url)` gives the headers of every POST, `extra(bytes)` any from the frame. */
function httpFrames(name, title, open, { extra = () => ({}), plans = framePlan } = {}) {
  return {
    name,
    title,
    target: { transport: 'http' },
    async run(ctx) {
      const url = ctx.target.url;
      const headers = await open(url);
      let counter = 0;
      const known = new Set();
      const answered = new Map();
      const statuses = new Map();
      await check(
        ctx,
        plans,
        async (plan) => {
          const frame = buildFrame(plan, () => ++counter);
          for (const key of frame.sent) known.add(key);
          let response;
          try {
            response = await postBytes(url, frame.bytes, { ...headers, ...extra(frame.bytes) });
          } catch (error) {
            return [`no answer: ${error.message}`];
          }
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
          return judgeHttp(frame, response, known, answered);
        },
        ctx.quick ? 150 : 1000,
      );
      const tally = [...statuses].sort(([a], [b]) => a - b).map(([status, n]) => `${status} ×${n}`);
      ctx.note(`answers: ${tally.join(', ')}`);
    },
  };
}

/** The stateless era's request headers a frame implies (Mcp-Method, Mcp-Name), when they can be sent. */
function statelessHeaders(bytes) {
  let message;
  try {
    message = JSON.parse(bytes.toString());
  } catch {
    return {};
  }
  const safe = (value) => typeof value === 'string' && /^[\x21-\x7e]*$/.test(value);
  const out = {};
  if (safe(message?.method)) out['mcp-method'] = message.method;
  if (safe(message?.params?.name)) out['mcp-name'] = message.params.name;
  return out;
}

const sessionFrames = httpFrames(
  'http-frames',
  'fast-check frames as POST bodies in a session (SSE answers)',
  async (url) => ({ 'mcp-session-id': await openSession(url) }),
);
const statelessFrames = httpFrames(
  'http-stateless-frames',
  'fast-check frames as 2026-07-28 POSTs (no session; Mcp-Method and Mcp-Name from the frame)',
  async () => ({ 'mcp-protocol-version': STATELESS_VERSION }),
  { extra: statelessHeaders, plans: statelessFramePlan },
);

const HEADER_VALUES = {
  'mcp-protocol-version': [
    HANDSHAKE_VERSION,
    STATELESS_VERSION,
    '2024-11-05',
    'garbage',
    '',
    '9'.repeat(4000),
  ],
  accept: [
    'application/json, text/event-stream',
    'application/json',
    'text/event-stream',
    '*/*',
    'text/html',
    '',
  ],
  'content-type': [
    'application/json',
    'application/json; charset=utf-8',
    'text/plain',
    'application/json-seq',
    '',
  ],
  'mcp-session-id': ['SESSION', 'nope', '', '\u00ff'.repeat(10), 'x'.repeat(8000)],
  'mcp-method': [undefined, 'tools/call', 'ping', ''],
  origin: [undefined, 'http://127.0.0.1', 'http://evil.example', 'null'],
};

const httpHeaders = {
  name: 'http-headers',
  title: 'fast-check header values on a good tools/call (version, accept, content type, session, origin)',
  target: { transport: 'http' },
  async run(ctx) {
    const url = ctx.target.url;
    const session = await openSession(url);
    const headers = fc.record(
      Object.fromEntries(
        Object.entries(HEADER_VALUES).map(([name, values]) => [name, fc.constantFrom(...values)]),
      ),
    );
    let n = 0;
    await check(
      ctx,
      headers,
      async (chosen) => {
        const id = ++n;
        const sent = Object.fromEntries(
          Object.entries(chosen)
            .filter(([, v]) => v !== undefined)
            .map(([k, v]) => [k, v === 'SESSION' ? session : v]),
        );
        const body = {
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: 'echo', arguments: { text: `h${id}` } },
        };
        let response;
        try {
          response = await postBytes(url, Buffer.from(JSON.stringify(body)), sent, true);
        } catch (error) {
          return [`no answer: ${error.message}`];
        }
        if (response.status >= 500) return [`HTTP ${response.status}: ${response.text.slice(0, 120)}`];
        if (response.status === 200) {
          const answer = answerTo(response.messages, id);
          if (answer?.result?.content?.[0]?.text !== `h${id}` && !answer?.error)
            return [`HTTP 200 without the right answer: ${response.text.slice(0, 120)}`];
        } else if (response.status < 400) return [`HTTP ${response.status} for a request`];
        return [];
      },
      ctx.quick ? 100 : 400,
    );
  },
};

/** A POST of exact bytes (headers as given: `replace` drops the defaults). */
async function postBytes(url, bytes, headers, replace = false) {
  const all = replace
    ? headers
    : {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': HANDSHAKE_VERSION,
        ...headers,
      };
  const response = await fetch(url, {
    method: 'POST',
    headers: all,
    body: bytes,
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  let messages;
  try {
    messages = messagesOf(response.headers.get('content-type'), text);
  } catch {
    messages = undefined;
  }
  return { status: response.status, text, messages };
}

export default [stdioFrames, sessionFrames, statelessFrames, httpHeaders];
