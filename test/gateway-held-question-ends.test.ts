// A stateless-era caller's call through the gateway, held upstream while its questions wait for the caller's
// next round (held-run.ts): whatever ends the run — no retry within the parked call's ttl, the upstream
// answering the call while its questions wait — ends every question the upstream asked for it on the
// upstream's side too (answered with an error, not left waiting: a roots/list was, for ever). The upstream
// is a stdio child process (test/fixtures/question-fates-server.mjs) that records what each of its questions
// got; the caller speaks 2026-07-28 over Streamable HTTP (raw POSTs) and over stdio (`toolwire gateway
// --stdio`, raw lines).
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway, serveGateway } from '../src/gateway/index.js';
import type { JsonObject } from '../src/index.js';
import { META, answer, stateless } from './_http-stateless.js';
import { BIN, TOKEN, writeConfig } from './_gateway.js';
import { RawWire } from './_wire.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/question-fates-server.mjs', import.meta.url));
const UPSTREAMS = { fx: { command: process.execPath, args: [FIXTURE], stderr: 'ignore' as const } };
const ALL = ['elicitation/create', 'sampling/createMessage', 'roots/list'];
const CALLER_META = META({
  'io.modelcontextprotocol/clientCapabilities': { elicitation: {}, sampling: {}, roots: {} },
});

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
});

/** A stateless-era `tools/call` through the gateway: its result. */
type Call = (name: string, args: JsonObject, retry?: JsonObject) => Promise<JsonObject>;

/** A gateway over Streamable HTTP in front of the fixture. */
async function overHttp(ttlMs = 60_000): Promise<Call> {
  const gateway = createGateway(
    { upstreams: UPSTREAMS, policy: { default: 'allow' } },
    { onLog: () => undefined, parkedCalls: { ttlMs } },
  );
  cleanup.push(() => gateway.close());
  await gateway.start();
  const served = await serveGateway(gateway, { port: 0, console: false });
  cleanup.push(() => served.close());
  return async (name, args, retry = {}) => {
    const params = { name, arguments: args, ...retry, _meta: CALLER_META };
    const message = await stateless(served.url!, { method: 'tools/call', params }).then(answer);
    return message.result as JsonObject;
  };
}

/** `toolwire gateway --stdio` in front of the fixture, spoken to in raw lines. */
function overStdio(ttlMs: number): Call {
  const config = writeConfig({ upstreams: UPSTREAMS, policy: { default: 'allow' }, parkedCalls: { ttlMs } });
  const wire = new RawWire(
    { command: process.execPath, args: [BIN, 'gateway', '--stdio', '--config', config] },
    { env: { TOOLWIRE_TOKEN: TOKEN } },
  );
  cleanup.push(() => wire.close());
  let id = 0;
  return async (name, args, retry = {}) => {
    const params = { name, arguments: args, ...retry, _meta: CALLER_META };
    wire.send({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params });
    return (await wire.answer<{ result: JsonObject }>(id)).result;
  };
}

interface Fates {
  questions: Record<string, string>;
  cancelled: string[];
}

const fates = async (call: Call): Promise<Fates> =>
  JSON.parse(((await call('fx__fates', {})).content as { text: string }[])[0]!.text) as Fates;

/** Once no question waits upstream any more: what each got. */
async function ended(call: Call): Promise<Fates> {
  await expect
    .poll(async () => Object.values((await fates(call)).questions).includes('pending'), { timeout: 10_000 })
    .toBe(false);
  return fates(call);
}

/** What the caller answers each kind of question with. */
const ANSWERS: Record<string, JsonObject> = {
  'elicitation/create': { action: 'accept', content: { n: 1 } },
  'sampling/createMessage': { role: 'assistant', content: { type: 'text', text: 'n' }, model: 'm' },
  'roots/list': { roots: [] },
};

/** The retry of an `input_required` result, every question answered. */
function retryOf(result: JsonObject): JsonObject {
  const requests = result.inputRequests as Record<string, { method: string }>;
  const inputResponses = Object.fromEntries(
    Object.entries(requests).map(([key, { method }]) => [key, ANSWERS[method]!]),
  );
  return { requestState: result.requestState as string, inputResponses };
}

describe.each([
  ['Streamable HTTP', overHttp],
  ['stdio', overStdio],
] as const)('a held stateless-era call over %s', (_transport, gatewayOver) => {
  it('with no retry within its ttl, is cancelled upstream and every question it asked ends there', async () => {
    const call = await gatewayOver(300);
    const first = await call('fx__ask', { tag: 't', methods: ALL, then: 'hang' });
    expect(first.resultType).toBe('input_required');
    expect(Object.keys(first.inputRequests as JsonObject).sort()).toEqual([
      'elicit-1',
      'roots-3',
      'sample-2',
    ]);
    // No retry comes: once the ttl has passed, the call and each of its questions end upstream.
    const { questions, cancelled } = await ended(call);
    expect(cancelled).toEqual(['t']);
    expect(Object.keys(questions).sort()).toEqual(['t#0', 't#1', 't#2']);
    for (const fate of Object.values(questions))
      expect(fate).toBe('error -32603: Internal error: The call this request was asked during ended');
  });

  it('answered by the upstream while its questions wait, ends them there, and its caller gets the result', async () => {
    const call = await gatewayOver(60_000);
    let result = await call('fx__ask', { tag: 'r', methods: ALL, then: 'return' });
    // The result may come after the questions were put to the caller: its retry takes it.
    if (result.resultType === 'input_required')
      result = await call('fx__ask', { tag: 'r', methods: ALL, then: 'return' }, retryOf(result));
    expect(result.content).toEqual([{ type: 'text', text: 'asked' }]);
    const { questions } = await ended(call);
    for (const fate of Object.values(questions))
      expect(fate).toBe('error -32603: Internal error: The call this request was asked during ended');
  });
});
