// A hostile upstream asking a thousand questions at once during one call (elicitation, sampling and roots,
// in turn: test/fixtures/question-fates-server.mjs, a stdio child process that records what each question
// got), behind a gateway served over Streamable HTTP: the caller is asked 16 of them at most at once — a
// handshake-era host as requests, a stateless-era caller in one round's `inputRequests` — and the upstream
// gets -31429 for each of the others at once, saying why. Before, every question reached the caller: a
// handshake-era host had a thousand requests open, a stateless-era round listed a thousand.
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import { createGateway, serveGateway } from '../src/gateway/index.js';
import type { JsonObject } from '../src/index.js';
import { StreamableHttpClientTransport } from '../src/transports/http-client/index.js';
import { META, answer, stateless } from './_http-stateless.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/question-fates-server.mjs', import.meta.url));
const UPSTREAMS = { fx: { command: process.execPath, args: [FIXTURE], stderr: 'ignore' as const } };
const KINDS = ['elicitation/create', 'sampling/createMessage', 'roots/list'];
const COUNT = 1000;
const MAX = 16;
const METHODS = Array.from({ length: COUNT }, (_, i) => KINDS[i % KINDS.length]!);
const REFUSED =
  /^error -31429: Too many questions: the gateway relays at most 16 of a server's questions \(elicitation, sampling, roots\) to one caller at once, and 16 are waiting for its answers; (elicitation\/create|sampling\/createMessage|roots\/list) was not relayed \(ask again once one is answered\)$/;

/** What a caller answers each kind of question with. */
const ANSWERS: Record<string, JsonObject> = {
  'elicitation/create': { action: 'accept', content: { n: 1 } },
  'sampling/createMessage': { role: 'assistant', content: { type: 'text', text: 'n' }, model: 'm' },
  'roots/list': { roots: [] },
};

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
});

async function gatewayUrl(): Promise<string> {
  const gateway = createGateway(
    { upstreams: UPSTREAMS, policy: { default: 'allow' } },
    { onLog: () => undefined },
  );
  cleanup.push(() => gateway.close());
  await gateway.start();
  const served = await serveGateway(gateway, { port: 0, console: false });
  cleanup.push(() => served.close());
  return served.url!;
}

interface Fates {
  questions: Record<string, string>;
}

/**
 * A question refused because nothing said whose it was: one the upstream asks while a `fates` call of a
 * stateless-era caller (which has no connection) is in flight beside the call that asks.
 */
const UNCLAIMED = /^error -32602: The gateway could not relay /;

/**
 * How many of the upstream's questions are still waiting, and how many were refused as past the cap (or,
 * with `unclaimed`, as nobody's).
 */
function tally(fates: Fates, unclaimed = false): { pending: number; refused: number; other: string[] } {
  let pending = 0;
  let refused = 0;
  const other: string[] = [];
  for (const fate of Object.values(fates.questions)) {
    if (fate === 'pending') pending++;
    else if (REFUSED.test(fate) || (unclaimed && UNCLAIMED.test(fate))) refused++;
    else other.push(fate);
  }
  return { pending, refused, other };
}

const textOf = (result: unknown) => (result as { content: { text: string }[] }).content[0]!.text;

describe('an upstream asking a thousand questions at once', () => {
  it('has 16 of them put to a handshake-era host at once; the others are refused with -31429', async () => {
    const url = await gatewayUrl();
    // The host answers nothing until the test says so: every question it is asked stays open.
    const open: (() => void)[] = [];
    let most = 0;
    const held = <T>(value: T) =>
      new Promise<T>((resolve) => {
        open.push(() => resolve(value));
        most = Math.max(most, open.length);
      });
    const host = new Client(
      { name: 'host', version: '1.0.0' },
      {
        protocolVersion: '2025-11-25',
        elicitation: () => held({ action: 'accept' as const, content: { n: 1 } }),
        sampling: () =>
          held({ role: 'assistant' as const, content: { type: 'text' as const, text: 'n' }, model: 'm' }),
        roots: () => held([]),
      },
    );
    await host.connect(new StreamableHttpClientTransport({ url }));
    cleanup.push(() => host.close());
    const fates = async () => tally(JSON.parse(textOf(await host.callTool('fx__fates', {}))) as Fates);
    const asking = host.callTool('fx__ask', { tag: 'q', methods: METHODS }, { timeout: 60_000 });
    // Every question past the 16 open is refused at once; the 16 wait for the host.
    await expect.poll(fates, { timeout: 20_000 }).toEqual({ pending: MAX, refused: COUNT - MAX, other: [] });
    expect(open.length).toBe(MAX);
    expect(most).toBe(MAX);
    for (const answerIt of open.splice(0)) answerIt();
    // The call ends once every question has its fate: 16 answered, the others refused.
    const result = await asking;
    const got = JSON.parse(textOf(result)) as unknown[];
    expect(got).toHaveLength(COUNT);
    expect(got.filter((fate) => typeof fate === 'string' && REFUSED.test(`${fate}`))).toHaveLength(
      COUNT - MAX,
    );
    expect(most).toBe(MAX);
  }, 60_000);

  it('has 16 of them listed in a stateless-era round; the others are refused with -31429', async () => {
    const url = await gatewayUrl();
    const meta = META({
      'io.modelcontextprotocol/clientCapabilities': { elicitation: {}, sampling: {}, roots: {} },
    });
    const call = async (name: string, args: JsonObject, retry: JsonObject = {}) => {
      const params = { name, arguments: args, ...retry, _meta: meta };
      const message = await stateless(url, { method: 'tools/call', params }).then(answer);
      return message.result as JsonObject;
    };
    const fates = async () => tally(JSON.parse(textOf(await call('fx__fates', {}))) as Fates, true);
    const args = { tag: 's', methods: METHODS };
    // Each round lists the questions held so far, unanswered: 16 at most, however many come meanwhile.
    let round = await call('fx__ask', args);
    for (let rounds = 1; ; rounds++) {
      expect(round.resultType).toBe('input_required');
      const listed = Object.keys(round.inputRequests as JsonObject).length;
      expect(listed).toBeLessThanOrEqual(MAX);
      if (listed === MAX || rounds === 100) break;
      round = await call('fx__ask', args, { requestState: round.requestState as string });
    }
    const requests = round.inputRequests as Record<string, { method: string }>;
    expect(Object.keys(requests)).toHaveLength(MAX);
    // While the call is parked with its 16, the questions past them are refused upstream at once (a `fates`
    // call beside it leaves one asked meanwhile nobody's: refused too).
    await expect.poll(fates, { timeout: 20_000 }).toEqual({ pending: MAX, refused: COUNT - MAX, other: [] });
    // Answered, the call ends: the upstream got the 16 answers, and the others were refused.
    const inputResponses = Object.fromEntries(
      Object.entries(requests).map(([key, { method }]) => [key, ANSWERS[method]!]),
    );
    const result = await call('fx__ask', args, {
      requestState: round.requestState as string,
      inputResponses,
    });
    const got = JSON.parse(textOf(result)) as unknown[];
    expect(got).toHaveLength(COUNT);
    expect(got.filter((fate) => typeof fate !== 'string')).toHaveLength(MAX);
  }, 60_000);
});
