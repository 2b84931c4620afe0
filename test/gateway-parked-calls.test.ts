// Stateless-era callers through the gateway over HTTP, in front of a stdio upstream that asks many
// questions at once (test/fixtures/many-questions-server.mjs): the upstream call is held between the
// caller's rounds (parked), so it runs once and no question is asked twice; a retry from another caller
// takes nothing back, a parked call with no retry is cancelled upstream, and past the cap a call is not
// parked (its retry runs it again upstream, as before).
import { fileURLToPath } from 'node:url';
import { Client as SdkClient } from '@modelcontextprotocol/client';
import { StreamableHTTPClientTransport as SdkHttpTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import {
  createGateway,
  serveGateway,
  type GatewayConfig,
  type GatewayOptions,
  type StdioUpstreamConfig,
} from '../src/gateway/index.js';
import type { ElicitParams, ElicitResult, JsonObject } from '../src/index.js';
import { Server, text } from '../src/server/index.js';
import { StreamableHttpClientTransport } from '../src/transports/http-client/index.js';
import { apiKeyVerifier } from '../src/transports/http/auth/index.js';
import { serveHttp, type StreamableHttpOptions } from '../src/transports/http/index.js';
import { META, answer, stateless } from './_http-stateless.js';
import { servedGateway } from './_served-gateway.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/many-questions-server.mjs', import.meta.url));
const upstream = (): StdioUpstreamConfig => ({
  command: process.execPath,
  args: [FIXTURE],
  stderr: 'ignore',
});

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
});

/** A gateway over HTTP in front of the fixture (as `fx`, unless `upstreams` say otherwise). */
async function start(
  options: GatewayOptions = {},
  config: Partial<GatewayConfig> = {},
  mcp: StreamableHttpOptions = {},
): Promise<string> {
  const gateway = createGateway(
    { upstreams: { fx: upstream() }, policy: { default: 'allow' }, ...config },
    { onLog: () => undefined, ...options },
  );
  cleanup.push(() => gateway.close());
  await gateway.start();
  const served = await serveGateway(gateway, { port: 0, console: false, mcp });
  cleanup.push(() => served.close());
  return served.url!;
}

/**
 * A handshake-era upstream over HTTP in this process whose tool `wait` asks one question, then waits until
 * its call is cancelled: how many times it ran, and a promise of each step.
 */
async function waitingUpstream(): Promise<{
  url: string;
  runs: () => number;
  answered: Promise<void>;
  stopped: Promise<void>;
}> {
  const server = new Server({ name: 'waiter', version: '1.0.0' });
  let runs = 0;
  let answered!: () => void;
  let stopped!: () => void;
  const steps = {
    answered: new Promise<void>((resolve) => (answered = resolve)),
    stopped: new Promise<void>((resolve) => (stopped = resolve)),
  };
  server.tool('wait', {}, async (_args, ctx) => {
    runs++;
    ctx.signal.addEventListener('abort', () => stopped(), { once: true });
    await ctx.elicit({ message: 'question 0', requestedSchema: { type: 'object', properties: {} } });
    answered();
    return new Promise(() => undefined);
  });
  server.tool('noop', {}, () => text('ok'));
  const handle = await serveHttp(server, { port: 0 });
  cleanup.push(() => handle.close());
  return { url: handle.url, runs: () => runs, ...steps };
}

/** The answer to "question i": `{ n: i }`. */
function answerOf(params: ElicitParams): ElicitResult {
  const n = Number(/^question (\d+)/.exec(params.message)?.[1]);
  return { action: 'accept', content: { n } };
}

/** A toolwire client pinned to 2026-07-28 on `url`, answering with `elicitation`. */
async function caller(
  url: string,
  elicitation: (params: ElicitParams) => ElicitResult | Promise<ElicitResult> = answerOf,
): Promise<Client> {
  const client = new Client(
    { name: 'model', version: '1.0.0' },
    { protocolVersion: '2026-07-28', elicitation },
  );
  await client.connect(new StreamableHttpClientTransport({ url }));
  cleanup.push(() => client.close());
  return client;
}

const textOf = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;
const contents = (count: number) => Array.from({ length: count }, (_, n) => ({ n }));

interface Tally {
  runs: Record<string, number>;
  cancelled: Record<string, number>;
}
async function tally(client: Client, tool = 'fx__tally'): Promise<Tally> {
  return JSON.parse(textOf(await client.callTool(tool))) as Tally;
}

// 16 at once: the most the gateway holds for one request (question-budget.ts); one more would be refused.
describe('a stateless-era caller of an upstream that asks 16 questions at once', () => {
  it.each([1, 400])(
    'gets the result (%i KiB a question): the upstream ran once, and each answer reached its question',
    async (kib) => {
      const url = await start();
      const asked: number[] = [];
      const client = await caller(url, (params) => {
        const result = answerOf(params);
        asked.push((result.content as { n: number }).n);
        return result;
      });
      const result = await client.callTool('fx__ask', { count: 16, kib, tag: 'many' });
      expect(JSON.parse(textOf(result))).toEqual(contents(16));
      // Every question asked of the caller once; the tool ran once upstream, and nothing was cancelled.
      expect(asked.sort((a, b) => a - b)).toEqual(contents(16).map(({ n }) => n));
      expect(await tally(client)).toEqual({ runs: { many: 1 }, cancelled: {} });
    },
  );

  it("gets the result through the official SDK 2.x client's stateless era", async () => {
    const url = await start();
    const sdk = new SdkClient(
      { name: 'sdk-v2', version: '2.0.0' },
      {
        capabilities: { elicitation: {} },
        versionNegotiation: { mode: 'auto', probe: { timeoutMs: 5_000 } },
      },
    );
    sdk.setRequestHandler('elicitation/create', (request) =>
      Promise.resolve({ ...answerOf(request.params as ElicitParams) }),
    );
    await sdk.connect(new SdkHttpTransport(new URL(url)));
    cleanup.push(() => sdk.close());
    expect(sdk.getProtocolEra()).toBe('modern');
    const result = await sdk.callTool({ name: 'fx__ask', arguments: { count: 16, kib: 1, tag: 'sdk' } });
    expect(JSON.parse(textOf(result as { content: unknown[] }))).toEqual(contents(16));
    const counts = await sdk.callTool({ name: 'fx__tally', arguments: {} });
    expect(JSON.parse(textOf(counts as { content: unknown[] }))).toEqual({
      runs: { sdk: 1 },
      cancelled: {},
    });
  });
});

describe('a parked call', () => {
  it("is taken back by its caller's retry only: another principal's retry with its requestState is refused", async () => {
    const verifier = apiKeyVerifier({ 'ada-key': { subject: 'ada' }, 'bob-key': { subject: 'bob' } });
    const url = await start(
      {},
      {},
      {
        auth: {
          verifier,
          resource: 'http://127.0.0.1/mcp',
          authorizationServers: ['https://auth.example.com'],
        },
      },
    );
    const meta = META({ 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } });
    const call = (key: string, extra: JsonObject = {}) =>
      stateless(url, {
        method: 'tools/call',
        params: { name: 'fx__ask', arguments: { count: 2, tag: 'p' }, ...extra, _meta: meta },
        headers: { authorization: `Bearer ${key}` },
      }).then(answer);
    const first = (await call('ada-key')).result as JsonObject;
    expect(first.resultType).toBe('input_required');
    const answers = (requests: JsonObject) =>
      Object.fromEntries(
        Object.entries(requests).map(([key, request]) => [
          key,
          answerOf((request as { params: ElicitParams }).params),
        ]),
      );
    const retry = {
      requestState: first.requestState as string,
      inputResponses: answers(first.inputRequests as JsonObject),
    };
    // Bob brings Ada's requestState and answers: refused, and Ada's call is left as it was.
    expect(await call('bob-key', retry)).toMatchObject({
      error: { code: -32602, message: 'Invalid params: invalid requestState' },
    });
    // Ada's retries take her call back until it answers.
    let next = (await call('ada-key', retry)).result as JsonObject;
    for (let round = 0; next.resultType === 'input_required' && round < 4; round++) {
      next = (
        await call('ada-key', {
          requestState: next.requestState as string,
          inputResponses: answers(next.inputRequests as JsonObject),
        })
      ).result as JsonObject;
    }
    expect(JSON.parse((next.content as { text: string }[])[0]!.text)).toEqual(contents(2));
    const counts = await stateless(url, {
      method: 'tools/call',
      params: { name: 'fx__tally', arguments: {} },
      headers: { authorization: 'Bearer ada-key' },
    }).then(answer);
    expect(JSON.parse((counts.result as { content: { text: string }[] }).content[0]!.text)).toEqual({
      runs: { p: 1 },
      cancelled: {},
    });
  });

  it('needs one approval: its retries are approved by it, and a call with other arguments is asked about again', async () => {
    const { gateway, served } = await servedGateway(
      { upstreams: { fx: upstream() }, policy: { rules: [{ tool: 'ask', action: 'ask' }] } },
      cleanup,
    );
    const approved: string[] = [];
    gateway.on((event) => {
      if (event.type !== 'approval.pending') return;
      approved.push(event.approval.id);
      void gateway.approvals.decide(event.approval.id, { approve: true, decidedBy: 'test' });
    });
    const client = await caller(served.url!);
    expect(JSON.parse(textOf(await client.callTool('fx__ask', { count: 5, tag: 'one' })))).toEqual(
      contents(5),
    );
    expect(approved).toHaveLength(1);
    expect(JSON.parse(textOf(await client.callTool('fx__ask', { count: 5, tag: 'two' })))).toEqual(
      contents(5),
    );
    expect(approved).toHaveLength(2);
    expect(await tally(client)).toEqual({ runs: { one: 1, two: 1 }, cancelled: {} });
    const calls = (await gateway.audit.list()).filter(
      (record) => record.kind === 'call' && record.tool === 'ask',
    );
    expect(new Set(calls.map((record) => record.decision))).toEqual(new Set(['approved']));
  });

  it('is cancelled upstream when no retry comes within its ttlMs; the late retry runs the call again', async () => {
    const url = await start({ parkedCalls: { ttlMs: 2_000 } });
    const watcher = await caller(url);
    let first: Promise<void> | undefined;
    const client = await caller(url, async (params) => {
      first ??= (async () => {
        // The call is parked: its upstream call still runs.
        expect(await tally(watcher)).toEqual({ runs: { t: 1 }, cancelled: {} });
        // No retry comes: the upstream call is cancelled once the ttl has passed.
        await expect
          .poll(() => tally(watcher), { timeout: 10_000 })
          .toEqual({
            runs: { t: 1 },
            cancelled: { t: 1 },
          });
      })();
      await first;
      return answerOf(params);
    });
    const result = await client.callTool('fx__ask', { count: 2, tag: 't' });
    expect(JSON.parse(textOf(result))).toEqual(contents(2));
    expect(await tally(watcher)).toEqual({ runs: { t: 2 }, cancelled: { t: 1 } });
  });

  it.each([{ max: 1 }, { maxPerCaller: 1 }])(
    'is not made past the cap (%o): that call is stopped upstream and its retry runs it again',
    async (limits) => {
      // Two upstreams, so that each call is the only one in flight on its stdio upstream.
      const url = await start({ parkedCalls: limits }, { upstreams: { a: upstream(), b: upstream() } });
      let parked!: () => void;
      const isParked = new Promise<void>((resolve) => (parked = resolve));
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      const holder = await caller(url, async (params) => {
        parked();
        await released;
        return answerOf(params);
      });
      const held = holder.callTool('a__ask', { count: 1, tag: 'A' });
      await isParked;
      // The one parked call is A's: B's is stopped upstream, and runs again with its answer.
      const other = await caller(url);
      expect(JSON.parse(textOf(await other.callTool('b__ask', { count: 1, tag: 'B' })))).toEqual(contents(1));
      expect(await tally(other, 'b__tally')).toEqual({ runs: { B: 2 }, cancelled: { B: 1 } });
      release();
      expect(JSON.parse(textOf(await held))).toEqual(contents(1));
      expect(await tally(other, 'a__tally')).toEqual({ runs: { A: 1 }, cancelled: {} });
    },
  );

  it("is not made under the configuration's parkedCalls: { max: 0 } (the retry runs the call again), and a change of it applies to the next call", async () => {
    const config: GatewayConfig = {
      upstreams: { fx: upstream() },
      policy: { default: 'allow' },
      parkedCalls: { max: 0 },
    };
    const gateway = createGateway(config, { onLog: () => undefined });
    cleanup.push(() => gateway.close());
    await gateway.start();
    const served = await serveGateway(gateway, { port: 0, console: false });
    cleanup.push(() => served.close());
    const client = await caller(served.url!);
    expect(JSON.parse(textOf(await client.callTool('fx__ask', { count: 1, tag: 'none' })))).toEqual(
      contents(1),
    );
    expect(await tally(client)).toEqual({ runs: { none: 2 }, cancelled: { none: 1 } });
    // The configuration followed changes (as the gateway command's --config): its defaults park again.
    await gateway.apply({ upstreams: config.upstreams, policy: config.policy });
    expect(JSON.parse(textOf(await client.callTool('fx__ask', { count: 1, tag: 'again' })))).toEqual(
      contents(1),
    );
    expect(await tally(client)).toEqual({ runs: { none: 2, again: 1 }, cancelled: { none: 1 } });
  });

  it.each(['back', 'down'] as const)(
    'is let go when its stdio upstream exits meanwhile: the retry, the upstream %s, runs the call again or says it is unavailable',
    async (then) => {
      const gateway = createGateway(
        {
          upstreams: { fx: upstream(), b: upstream() },
          policy: { default: 'allow' },
          // Back at once, or not within the test.
          reconnect: { initialDelayMs: then === 'back' ? 10 : 600_000, maxDelayMs: 600_000 },
        },
        // One call may be parked: the one let go leaves room for another.
        { onLog: () => undefined, parkedCalls: { max: 1 } },
      );
      cleanup.push(() => gateway.close());
      await gateway.start();
      const served = await serveGateway(gateway, { port: 0, console: false });
      cleanup.push(() => served.close());
      const statuses: string[] = [];
      let wentDown!: () => void;
      const down = new Promise<void>((resolve) => (wentDown = resolve));
      let cameBack!: () => void;
      const back = new Promise<void>((resolve) => (cameBack = resolve));
      gateway.on((event) => {
        if (event.type !== 'upstream.status' || event.upstream !== 'fx') return;
        statuses.push(event.status);
        if (event.status === 'down') wentDown();
        else if (event.status === 'ready' && statuses.includes('down')) cameBack();
      });
      let parked!: () => void;
      const isParked = new Promise<void>((resolve) => (parked = resolve));
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let asked = 0;
      const client = await caller(served.url!, async (params) => {
        asked++;
        parked();
        await released;
        return answerOf(params);
      });
      const call = client.callTool('fx__ask', { count: 1, tag: 'gone' });
      await isParked;
      // The upstream process exits while the call waits parked there (the call to exit gets no answer).
      const other = await caller(served.url!);
      expect((await other.callTool('fx__exit')).isError).toBe(true);
      await down;
      if (then === 'back') await back;
      release();
      const result = await call;
      expect(asked).toBe(1);
      if (then === 'down') {
        expect(result.isError).toBe(true);
        expect(textOf(result)).toMatch(/^Upstream fx is unavailable/);
      } else {
        // Nothing parked was taken back: the call ran again on the new process, answered by the requestState.
        expect(JSON.parse(textOf(result))).toEqual(contents(1));
        expect(await tally(other)).toEqual({ runs: { gone: 1 }, cancelled: {} });
      }
      // The call let go holds no place: another call is parked (it runs once on b).
      expect(JSON.parse(textOf(await other.callTool('b__ask', { count: 1, tag: 'B' })))).toEqual(contents(1));
      expect(await tally(other, 'b__tally')).toEqual({ runs: { B: 1 }, cancelled: {} });
    },
  );

  it('limits are whole numbers: others are refused when the gateway is made', () => {
    const config: GatewayConfig = { upstreams: { fx: upstream() } };
    expect(() => createGateway(config, { parkedCalls: { ttlMs: 0 } })).toThrow(
      new TypeError('parkedCalls.ttlMs must be a whole number from 1 to 2147483647 (got 0)'),
    );
    expect(() => createGateway(config, { parkedCalls: { maxPerCaller: 1.5 } })).toThrow(
      new TypeError('parkedCalls.maxPerCaller must be a whole number from 0 to 2147483647 (got 1.5)'),
    );
  });

  it('is cancelled upstream when its caller cancels the retry that took it back', async () => {
    const waiter = await waitingUpstream();
    const url = await start({}, { upstreams: { w: { url: waiter.url, protocolVersion: '2025-11-25' } } });
    const client = await caller(url);
    const controller = new AbortController();
    const call = client.callTool('w__wait', {}, { signal: controller.signal }).catch((e: unknown) => e);
    // The retry brought the answer to the call it took back, which now waits upstream.
    await waiter.answered;
    controller.abort(new Error('enough'));
    expect(await call).toMatchObject({ code: 'REQUEST_CANCELLED' });
    await waiter.stopped;
    expect(waiter.runs()).toBe(1);
  });

  it('is cancelled upstream when the gateway closes', async () => {
    const waiter = await waitingUpstream();
    const { gateway, served } = await servedGateway(
      { upstreams: { w: { url: waiter.url, protocolVersion: '2025-11-25' } }, policy: { default: 'allow' } },
      cleanup,
    );
    const meta = META({ 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } });
    const first = await stateless(served.url!, {
      method: 'tools/call',
      params: { name: 'w__wait', arguments: {}, _meta: meta },
    }).then(answer);
    expect(first.result).toMatchObject({ resultType: 'input_required' });
    // Parked: its upstream call still runs, until the gateway closes.
    expect(await Promise.race([waiter.stopped.then(() => 'stopped'), waitedFor(served.url!)])).toBe(
      'running',
    );
    await gateway.close();
    await waiter.stopped;
    expect(waiter.runs()).toBe(1);
  });
});

/** 'running' once a call through the gateway has been answered (the gateway's upstream is served meanwhile). */
async function waitedFor(url: string): Promise<string> {
  await stateless(url, { method: 'tools/call', params: { name: 'w__noop', arguments: {} } }).then(answer);
  return 'running';
}
