// A stateless-era caller's call parked on a stateless-era HTTP upstream that is marked down (or removed)
// while the upstream call waits for the caller's answer: the gateway lets the parked call go at once — its
// upstream call ends, its place among `parkedCalls.max` is free again — and the caller's retry is told
// that the upstream is unavailable. Nothing waits for the parked call's ttl. (A handshake-era upstream's
// call ends with its connection: its stream is closed when the gateway closes the client.)
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import { createGateway, serveGateway, type GatewayConfig } from '../src/gateway/index.js';
import type { ElicitParams, ElicitResult, JsonObject } from '../src/index.js';
import { Server } from '../src/server/index.js';
import { StreamableHttpClientTransport } from '../src/transports/http-client/index.js';
import { StreamableHttpHandler, toNodeHandler } from '../src/transports/http/index.js';
import { META, answer, stateless } from './_http-stateless.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/many-questions-server.mjs', import.meta.url));

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
});

/**
 * An upstream over HTTP (the stateless era) whose tool `wait` asks one question, then waits for ever.
 * `cut()` makes it unreachable for every new request (its connection is destroyed), as a server behind a
 * load balancer that took it out.
 */
async function cuttableUpstream(): Promise<{ url: string; cut: () => void; asked: Promise<void> }> {
  const server = new Server({ name: 'waiter', version: '1.0.0' });
  let asked!: () => void;
  const questionAsked = new Promise<void>((resolve) => (asked = resolve));
  server.tool('wait', {}, async (_args, ctx) => {
    const question = ctx.elicit({
      message: 'question 0',
      requestedSchema: { type: 'object', properties: {} },
    });
    asked();
    await question;
    return new Promise(() => undefined);
  });
  const handler = new StreamableHttpHandler(server);
  const serve = toNodeHandler(handler);
  let cut = false;
  const http = createServer((req, res) => {
    if (cut) req.socket.destroy();
    else serve(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  cleanup.push(async () => {
    await handler.close();
    http.closeAllConnections();
    await new Promise((resolve) => http.close(resolve));
  });
  const { port } = http.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/mcp`, cut: () => (cut = true), asked: questionAsked };
}

/** The answer to "question i": `{ n: i }`. */
function answerOf(params: ElicitParams): ElicitResult {
  const n = Number(/^question (\d+)/.exec(params.message)?.[1]);
  return { action: 'accept', content: { n } };
}

const textOf = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;

/**
 * A gateway in front of the cuttable stateless-era upstream `w` and the stdio fixture `b`, with room for
 * one parked call, and a stateless-era caller's call of `w__wait` parked there (its question asked).
 */
async function parkedOnW() {
  const waiter = await cuttableUpstream();
  const config: GatewayConfig = {
    upstreams: {
      w: { url: waiter.url, protocolVersion: '2026-07-28' },
      b: { command: process.execPath, args: [FIXTURE], stderr: 'ignore' },
    },
    policy: { default: 'allow' },
    // Checked often; once down, not back within the test.
    reconnect: { initialDelayMs: 600_000, maxDelayMs: 600_000, checkIntervalMs: 50 },
  };
  // One call may be parked (for a minute, unless let go).
  const gateway = createGateway(config, { onLog: () => undefined, parkedCalls: { max: 1 } });
  cleanup.push(() => gateway.close());
  await gateway.start();
  const served = await serveGateway(gateway, { port: 0, console: false });
  cleanup.push(() => served.close());
  const meta = META({ 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } });
  const call = (extra: JsonObject = {}) =>
    stateless(served.url!, {
      method: 'tools/call',
      params: { name: 'w__wait', arguments: {}, ...extra, _meta: meta },
    }).then(answer);
  const first = (await call()).result as JsonObject;
  expect(first).toMatchObject({ resultType: 'input_required' });
  await waiter.asked;
  const [key] = Object.keys(first.inputRequests as JsonObject);
  return {
    gateway,
    config,
    waiter,
    /** The retry of the parked call, with its answer. */
    retry: () =>
      call({
        requestState: first.requestState as string,
        inputResponses: { [key!]: { action: 'accept', content: {} } },
      }) as Promise<{ result?: { isError?: boolean; content: { text: string }[] }; error?: unknown }>,
    /** Whether another call is parked now: it runs once on b (nothing is cancelled there). */
    placeIsFree: async () => {
      const client = new Client(
        { name: 'model', version: '1.0.0' },
        { protocolVersion: '2026-07-28', elicitation: answerOf },
      );
      await client.connect(new StreamableHttpClientTransport({ url: served.url! }));
      cleanup.push(() => client.close());
      expect(JSON.parse(textOf(await client.callTool('b__ask', { count: 1, tag: 'B' })))).toEqual([{ n: 0 }]);
      expect(JSON.parse(textOf(await client.callTool('b__tally')))).toEqual({
        runs: { B: 1 },
        cancelled: {},
      });
    },
  };
}

describe('a call parked on an HTTP upstream', () => {
  it('is let go at once when the upstream is marked down: its place is free, and the retry is told the upstream is unavailable', async () => {
    const { gateway, waiter, retry, placeIsFree } = await parkedOnW();
    let wentDown!: () => void;
    const down = new Promise<void>((resolve) => (wentDown = resolve));
    gateway.on((event) => {
      if (event.type === 'upstream.status' && event.upstream === 'w' && event.status === 'down') wentDown();
    });
    // The upstream is unreachable from now on: the health check fails, and the gateway marks it down.
    waiter.cut();
    await down;
    // The parked call is let go (its upstream call ends): its place is another call's.
    await placeIsFree();
    const answered = await retry();
    expect(answered.result?.isError).toBe(true);
    expect(answered.result?.content[0]!.text).toMatch(/^Upstream w is unavailable/);
  });

  it('is let go at once when the upstream is removed from the configuration', async () => {
    const { gateway, config, placeIsFree } = await parkedOnW();
    const { w: _w, ...others } = config.upstreams;
    await gateway.apply({ ...config, upstreams: others });
    await placeIsFree();
  });
});
