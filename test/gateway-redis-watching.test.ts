// Two `toolwire gateway --redis URL` processes on one real Redis, and what a call costs there while nobody
// watches calls (each process's terminal narrates approvals only): no event on the bus and no call log
// entry. An event stream opened on B makes A publish its calls' events and log them (B says it watches, on
// the bus); once the stream closes, A stops again — at once with a call log grace of 0 (A and B here); with
// the default grace (C and D), D goes on saying it watches calls, and C logs its calls meanwhile, for a
// console that comes back to list. The
// test reads the bus itself (a subscriber of its channel). Absence is shown without sleeping: a later call's
// events (waited for) come after anything A published for an earlier call, as A's messages arrive in order.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import { StreamableHttpClientTransport } from '../src/transports/http-client/index.js';
import {
  PROTOCOL_FIXTURE,
  startGateway,
  toolwireUpstream,
  writeConfig,
  type RunningGateway,
} from './_gateway.js';
import { startRedis, type RedisServerHandle } from './_redis.js';

let redis: RedisServerHandle;
let a: RunningGateway;
let b: RunningGateway;
/** C and D: the default grace, their keys and channel under another prefix (their bus and call log their own). */
let c: RunningGateway;
let d: RunningGateway;
let model: Client;
let listener: Redis;
/** What was published on the gateways' bus, in order. */
const heard: Array<Record<string, unknown>> = [];
const CHANNEL = 'toolwire:gateway:events';
/** What C and D published on theirs. */
const heardGrace: Array<Record<string, unknown>> = [];
const GRACE_CHANNEL = 'grace:gateway:events';

beforeAll(async () => {
  redis = await startRedis();
  const config = writeConfig({
    upstreams: { fx: toolwireUpstream(PROTOCOL_FIXTURE) },
    policy: { default: 'allow' },
  });
  const graceConfig = writeConfig({
    upstreams: { fx: toolwireUpstream(PROTOCOL_FIXTURE) },
    policy: { default: 'allow' },
    redis: { url: redis.url, prefix: 'grace:' },
  });
  listener = new Redis(redis.url);
  listener.on('message', (channel: string, text: string) =>
    (channel === CHANNEL ? heard : heardGrace).push(JSON.parse(text) as Record<string, unknown>),
  );
  await listener.subscribe(CHANNEL, GRACE_CHANNEL);
  // No grace: the call log stops once the last stream is gone.
  const noGrace = { TOOLWIRE_GATEWAY_CALL_LOG_GRACE_MS: '0' };
  [a, b, c, d] = await Promise.all([
    startGateway(['--config', config, '--redis', redis.url], noGrace),
    startGateway(['--config', config, '--redis', redis.url], noGrace),
    startGateway(['--config', graceConfig]),
    startGateway(['--config', graceConfig]),
  ]);
  model = new Client({ name: 'model', version: '1.0.0' });
  await model.connect(new StreamableHttpClientTransport({ url: a.url }));
});

afterAll(async () => {
  await model?.close().catch(() => undefined);
  await Promise.all([a?.close(), b?.close(), c?.close(), d?.close()]);
  listener?.disconnect();
  await redis?.close();
});

interface Shared {
  type: string;
  call?: { id: number; arguments?: unknown };
  callId?: number;
  record?: { callId?: number };
}

/** The call ids in the events A published on the bus so far. */
const publishedCallIds = () =>
  heard.flatMap((message) =>
    Array.isArray(message.events)
      ? (message.events as Shared[]).map((event) => event.call?.id ?? event.callId ?? event.record?.callId)
      : [],
  );

/** The ids of the calls B's API lists (the call log on Redis, every instance's). */
async function logged(gateway = b): Promise<number[]> {
  const response = await gateway.api('/calls');
  expect(response.status).toBe(200);
  const { calls } = (await response.json()) as { calls: Array<{ call: { id: number } }> };
  return calls.map((entry) => entry.call.id);
}

/** Calls fx__echo through A (or `via`); resolves with the call's id as B's open `events` stream shows it. */
async function watchedCall(
  events: Awaited<ReturnType<RunningGateway['events']>>,
  words: string,
  via: Client = model,
) {
  const result = await via.callTool('fx__echo', { text: words });
  expect(result.isError).toBeFalsy();
  const audit = await events.next('audit', (e) => (e.record as { tool?: string }).tool === 'echo');
  return (audit.record as { callId: number }).callId;
}

describe('a gateway on Redis while nobody watches', () => {
  it('publishes no events and logs no calls until an instance has a listener, and stops when it goes', async () => {
    // Nobody watches: three calls through A.
    for (const words of ['one', 'two', 'three']) {
      expect((await model.callTool('fx__echo', { text: words })).isError).toBeFalsy();
    }

    // A stream on B: B says it watches, and A's next call is published and logged.
    const events = await b.events();
    const watchesCalls = (m: Record<string, unknown>) =>
      Array.isArray(m.watching) && m.watching.includes('call.started');
    await expect.poll(() => heard.filter(watchesCalls).length).toBeGreaterThan(0);
    const seen = await watchedCall(events, 'four');
    await expect.poll(() => publishedCallIds().includes(seen)).toBe(true);
    // Everything A published came before its events for `seen`: none is an earlier call's.
    expect(new Set(publishedCallIds())).toEqual(new Set([seen]));
    await expect.poll(logged).toContain(seen);
    expect((await logged()).filter((id) => id !== seen)).toEqual([]);

    // The stream closes: B says it no longer watches, and A's calls are neither published nor logged.
    const open = heard.length;
    await events.close();
    const stopped = (m: Record<string, unknown>) =>
      Array.isArray(m.watching) && m.watching.length > 0 && !m.watching.includes('call.started');
    await expect.poll(() => heard.slice(open).some(stopped)).toBe(true);
    const before = publishedCallIds().length;
    expect((await model.callTool('fx__echo', { text: 'five' })).isError).toBeFalsy();
    // A later watched call shows, in order, that nothing came for 'five'.
    const again = await b.events();
    const later = await watchedCall(again, 'six');
    await expect.poll(() => publishedCallIds().includes(later)).toBe(true);
    expect(
      publishedCallIds()
        .slice(before)
        .every((id) => id === later),
    ).toBe(true);
    await expect.poll(async () => (await logged()).sort()).toEqual([seen, later].sort());
    await again.close();
  });
});

describe('a gateway on Redis once the last stream closes, with the default grace', () => {
  it("goes on logging the other instance's calls for a console that comes back", async () => {
    const onC = new Client({ name: 'model', version: '1.0.0' });
    await onC.connect(new StreamableHttpClientTransport({ url: c.url }));
    try {
      const start = heardGrace.length;
      const events = await d.events();
      const watchesCalls = (m: Record<string, unknown>) =>
        Array.isArray(m.watching) && m.watching.includes('call.started');
      await expect.poll(() => heardGrace.slice(start).some(watchesCalls)).toBe(true);
      const first = await watchedCall(events, 'watched', onC);
      await expect.poll(() => logged(d)).toContain(first);
      const open = heardGrace.length;
      await events.close();
      // D still says it watches calls (its heartbeat, every 2 s), though its stream is gone.
      await expect.poll(() => heardGrace.slice(open).some(watchesCalls), { timeout: 10_000 }).toBe(true);
      for (const words of ['away 1', 'away 2']) {
        expect((await onC.callTool('fx__echo', { text: words })).isError).toBeFalsy();
      }
      // A console back on D lists them (C writes its log off the call's path: polled).
      await expect.poll(async () => (await logged(d)).length).toBe(3);
      expect(Math.min(...(await logged(d)))).toBe(first);
    } finally {
      await onC.close();
    }
  });
});
