// Two `toolwire gateway --redis URL` processes on one real Redis (started on a free loopback port by this
// file): an approval raised on A is decided through B's decision API (and through `toolwire approvals`
// pointed at B), B's event stream shows A's call, two decisions racing on A and B settle it once, an
// "approve always" given on B lets the next call through A, and both see every audit record. A third
// gateway on a Redis that then stops fails fast: 503 with Retry-After from its API, an isError result for
// a call that needs approval. A third gateway killed (SIGKILL) with a call running: the other instances show
// the call lost once its live key expires, and cancelling it answers 409. Every wait is for an event or an
// answer, never a sleep.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import type { CallToolResult } from '../src/index.js';
import { StreamableHttpClientTransport } from '../src/transports/http-client/index.js';
import { runCli } from './_cli.js';
import {
  PROTOCOL_FIXTURE,
  TOKEN,
  startGateway,
  toolwireUpstream,
  waitForLine,
  writeConfig,
  type GatewayEventData,
  type RunningGateway,
} from './_gateway.js';
import { startRedis, type RedisServerHandle } from './_redis.js';
import { roundRobin } from './_round-robin.js';
import { SseReader } from './_sse.js';

let redis: RedisServerHandle;
let a: RunningGateway;
let b: RunningGateway;
const clients: Client[] = [];
const CONFIG = {
  upstreams: { fx: toolwireUpstream(PROTOCOL_FIXTURE) },
  policy: {
    rules: [
      { upstream: 'fx', tool: 'echo', action: 'ask' },
      { upstream: 'fx', tool: 'add', action: 'ask' },
      { upstream: 'fx', tool: 'ask', action: 'ask' },
    ],
    default: 'allow',
  },
};

/** A model's client of `gateway` (the stateless era: every caller is the same anonymous caller). */
async function modelClient(gateway: RunningGateway): Promise<Client> {
  const client = new Client({ name: 'model', version: '1.0.0' });
  await client.connect(new StreamableHttpClientTransport({ url: gateway.url }));
  clients.push(client);
  return client;
}

const text = (result: CallToolResult) => (result.content[0] as { text?: string } | undefined)?.text;

interface Approval {
  id: string;
  exposedName: string;
  arguments: Record<string, unknown>;
}

/** Calls fx__echo through `on`, and resolves with the approval `watcher`'s event stream sees for it. */
async function held(on: Client, watcher: RunningGateway, words: string) {
  const events = await watcher.events();
  const call = on.callTool('fx__echo', { text: words });
  const event = await events.next(
    'approval.pending',
    (e: GatewayEventData) => (e.approval as Approval).arguments.text === words,
  );
  return { call, approval: event.approval as Approval, events };
}

beforeAll(async () => {
  redis = await startRedis();
  const config = writeConfig(CONFIG);
  // The key of the stateless era's requestState, the same for both (as behind one load balancer).
  const env = { TOOLWIRE_REQUEST_STATE_SECRET: 'shared-by-both-instances-0123456789' };
  [a, b] = await Promise.all([
    startGateway(['--config', config, '--redis', redis.url], env),
    startGateway(['--config', config, '--redis', redis.url], env),
  ]);
});

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  await Promise.all([a?.close(), b?.close()]);
  await redis?.close();
});

describe('gateways sharing a Redis', () => {
  it('says at start that it shares its state on Redis', async () => {
    const [, host] = await waitForLine(() => a.stderr(), /shared on Redis at (\S+)\n/, a.child);
    expect(host).toBe(new URL(redis.url).host);
  });

  it('ends a console session signed out through A on B too: the cookie works on neither', async () => {
    const signIn = await a.api('/session', {
      body: { token: TOKEN },
      headers: { authorization: '', 'x-toolwire-console': '1' },
    });
    expect(signIn.status).toBe(200);
    const value = signIn.headers.get('set-cookie')!.split(';')[0]!.split('=')[1]!;
    // The cookie is named per port; its value (signed with a key of the shared API token) is good on both.
    const session = (on: RunningGateway, method = 'GET') =>
      fetch(`${on.base}/api/session`, {
        method,
        headers: {
          cookie: `toolwire_console_${new URL(on.base).port}=${value}`,
          'x-toolwire-console': '1',
        },
      });
    expect((await session(b)).status).toBe(200);
    expect((await session(a, 'DELETE')).status).toBe(200);
    expect((await session(b)).status).toBe(401);
    expect((await session(a)).status).toBe(401);
  });

  it("ends B's event stream of a console session signed out through A at once (told on the bus)", async () => {
    const signIn = await a.api('/session', {
      body: { token: TOKEN },
      headers: { authorization: '', 'x-toolwire-console': '1' },
    });
    const value = signIn.headers.get('set-cookie')!.split(';')[0]!.split('=')[1]!;
    const cookie = (on: RunningGateway) => `toolwire_console_${new URL(on.base).port}=${value}`;
    const opened = await fetch(`${b.base}/api/events`, { headers: { cookie: cookie(b) } });
    expect(opened.status).toBe(200);
    const reader = new SseReader(opened);
    try {
      while ((await reader.next())?.event !== 'snapshot');
      const out = await fetch(`${a.base}/api/session`, {
        method: 'DELETE',
        headers: { cookie: cookie(a), 'x-toolwire-console': '1' },
      });
      expect(out.status).toBe(200);
      // It ends well before B's next keep-alive (15 s) would have asked the store: waited for up to 10 s
      // (3 s was a deadline a busy machine, relaying through Redis between two processes, could reach).
      while (await reader.next(10_000));
    } finally {
      await reader.cancel().catch(() => undefined);
    }
  });

  it("decides an approval raised on A through B's API; B's event stream shows A's call", async () => {
    const model = await modelClient(a);
    const { call, approval, events } = await held(model, b, 'from A');
    const listed = (await (await b.api('/approvals')).json()) as { approvals: Approval[] };
    expect(listed.approvals.map((pending) => pending.id)).toContain(approval.id);
    const decided = await b.api(`/approvals/${approval.id}/approve`, { body: {} });
    expect(decided.status).toBe(200);
    expect(text(await call)).toBe('from A');
    const finished = await events.next('call.finished', (e) => e.decision === 'approved');
    expect(finished).toMatchObject({ outcome: 'ok', decision: 'approved' });
    // One decision record, and the call's record, in the audit both instances read.
    for (const gateway of [a, b]) {
      await expect
        .poll(async () => {
          const { records } = (await (await gateway.api('/audit')).json()) as {
            records: { approvalId?: string; kind: string; decision: string; decidedBy: string }[];
          };
          return records
            .filter((record) => record.approvalId === approval.id)
            .map((record) => [record.kind, record.decision, record.decidedBy]);
        })
        .toEqual([
          ['decision', 'approved', 'api-token'],
          ['call', 'approved', 'api-token'],
        ]);
    }
  });

  it('decides through the toolwire approvals CLI pointed at B', async () => {
    const model = await modelClient(a);
    const { call, approval } = await held(model, a, 'by the CLI');
    const listed = await runCli(['approvals', 'list', '--gateway', b.base, '--json'], {
      env: { TOOLWIRE_TOKEN: TOKEN },
    });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(approval.id);
    const denied = await runCli(
      ['approvals', 'deny', approval.id, '--reason', 'not from the CLI', '--gateway', b.base],
      { env: { TOOLWIRE_TOKEN: TOKEN } },
    );
    expect(denied.code).toBe(0);
    const result = await call;
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('not from the CLI');
    // Decided once: the CLI is refused a second time, through A this time.
    const again = await runCli(['approvals', 'approve', approval.id, '--gateway', a.base], {
      env: { TOOLWIRE_TOKEN: TOKEN },
    });
    expect(again.code).not.toBe(0);
    expect(again.stderr).toMatch(/settled already \(denied\)/);
  });

  it('settles two racing decisions on A and B once: one answer 200, the other 409', async () => {
    const model = await modelClient(a);
    const { call, approval } = await held(model, b, 'raced');
    const [approve, deny] = await Promise.all([
      a.api(`/approvals/${approval.id}/approve`, { body: {} }),
      b.api(`/approvals/${approval.id}/deny`, { body: { reason: 'B was first' } }),
    ]);
    expect([approve.status, deny.status].sort()).toEqual([200, 409]);
    const result = await call;
    if (approve.status === 200) expect(text(result)).toBe('raced');
    else expect(text(result)).toContain('B was first');
    const loser = (await (approve.status === 409 ? approve : deny).json()) as { error: { code: string } };
    expect(loser.error.code).toBe('APPROVAL_SETTLED');
  });

  it('shares "approve always": given on B for a call through A, the next call through B asks no one', async () => {
    // fx__add, which no other test calls: the grant (for every anonymous caller) would let them through.
    const model = await modelClient(a);
    const events = await a.events();
    const call = model.callTool('fx__add', { a: 1, b: 2 });
    const { approval } = (await events.next('approval.pending')) as unknown as { approval: Approval };
    expect(approval.exposedName).toBe('fx__add');
    expect((await b.api(`/approvals/${approval.id}/approve`, { body: { always: true } })).status).toBe(200);
    expect((await call).structuredContent).toEqual({ sum: 3 });
    const other = await modelClient(b);
    expect((await other.callTool('fx__add', { a: 2, b: 2 })).structuredContent).toEqual({ sum: 4 });
    // A saw B's call finish, let through by the grant.
    expect(await events.next('call.finished', (e) => e.decision === 'remembered')).toMatchObject({
      outcome: 'ok',
    });
  });
});

interface CallView {
  call: { id: number; exposedName: string };
  state: 'running' | 'finished';
  arguments?: Record<string, unknown>;
  outcome?: string;
  cancelledBy?: string;
  result?: CallToolResult;
}

/** `GET /api/calls/ID` on `gateway`, once it answers what `check` accepts (the running instance writes soon after the event). */
async function callOn(
  gateway: RunningGateway,
  id: number,
  check: (call: CallView) => boolean,
): Promise<CallView> {
  let found: CallView | undefined;
  await expect
    .poll(async () => {
      const response = await gateway.api(`/calls/${id}`);
      found = response.status === 200 ? ((await response.json()) as CallView) : undefined;
      return found !== undefined && check(found);
    })
    .toBe(true);
  return found!;
}

describe('the call log across instances', () => {
  it('lists and reads a call running on A through B, cancels it through B, and B reads how it ended', async () => {
    const model = await modelClient(a);
    const events = await b.events();
    const call = model.callTool('fx__slow', { steps: 1000, ms: 1000 });
    const started = await events.next(
      'call.started',
      (e) => (e.call as CallView['call']).exposedName === 'fx__slow',
    );
    const id = (started.call as CallView['call']).id;
    // A runs it (its id is in A's range), and B's API lists it and reads it with its arguments.
    const running = await callOn(b, id, (view) => view.state === 'running');
    expect(running.arguments).toEqual({ steps: 1000, ms: 1000 });
    const { calls } = (await (await b.api('/calls')).json()) as { calls: CallView[] };
    expect(calls.find((listed) => listed.call.id === id)).toMatchObject({ state: 'running' });
    expect(calls.find((listed) => listed.call.id === id)).not.toHaveProperty('arguments');

    const cancelled = await b.api(`/calls/${id}/cancel`, { body: {} });
    expect(cancelled.status).toBe(200);
    expect(await cancelled.json()).toEqual({ id, state: 'requested' });
    const result = await call;
    expect(result.isError).toBe(true);
    expect(text(result)).toBe('The call of fx__slow was cancelled by api-token.');
    const ended = await callOn(b, id, (view) => view.state === 'finished');
    expect(ended).toMatchObject({ outcome: 'cancelled', cancelledBy: 'api-token' });
    // Too late now, on either instance; and an id no instance ran is unknown.
    for (const gateway of [a, b]) {
      const again = await gateway.api(`/calls/${id}/cancel`, { body: {} });
      expect(again.status).toBe(409);
      expect(((await again.json()) as { error: { code: string } }).error.code).toBe('CALL_FINISHED');
    }
    expect((await b.api(`/calls/${id + 2 ** 40}/cancel`, { body: {} })).status).toBe(404);
  });

  it('reads a call held for approval on A through B, and once approved through B, its result', async () => {
    const model = await modelClient(a);
    const watch = await b.events();
    const { call, approval } = await held(model, b, 'logged');
    const started = await watch.next(
      'call.started',
      (e) => (e.call as CallView['call']).exposedName === 'fx__echo',
    );
    const id = (started.call as CallView['call']).id;
    expect((await callOn(b, id, (view) => view.state === 'running')).arguments).toEqual({ text: 'logged' });
    expect((await b.api(`/approvals/${approval.id}/approve`, { body: {} })).status).toBe(200);
    expect(text(await call)).toBe('logged');
    const finished = await callOn(b, id, (view) => view.state === 'finished');
    expect(finished).toMatchObject({ outcome: 'ok', arguments: { text: 'logged' }, hasResult: true });
    expect(text(finished.result!)).toBe('logged');
    expect(await (await a.api(`/calls/${id}`)).json()).toEqual(finished);
  });
});

describe('a gateway instance killed with calls running', () => {
  it('shows its running call as lost through another instance, whose cancel answers 409', async () => {
    // C says it lives for 3 s at a time (renewed every second); B reads with the default.
    const c = await startGateway(['--config', writeConfig(CONFIG), '--redis', redis.url], {
      TOOLWIRE_REQUEST_STATE_SECRET: 'shared-by-both-instances-0123456789',
      TOOLWIRE_GATEWAY_LIVE_TTL_MS: '3000',
    });
    try {
      const model = await modelClient(c);
      const events = await b.events();
      const call = model.callTool('fx__slow', { steps: 1000, ms: 1000 }).catch((error: unknown) => error);
      const started = await events.next(
        'call.started',
        (e) => (e.call as CallView['call']).exposedName === 'fx__slow',
      );
      const id = (started.call as CallView['call']).id;
      await callOn(b, id, (view) => view.state === 'running');

      const exited = new Promise((resolve) => c.child.once('exit', resolve));
      c.child.kill('SIGKILL');
      await exited;
      await call;
      // Once C's live key has expired, B (and any reader) shows the call ended, the same through both routes.
      let lost: (CallView & { error?: string }) | undefined;
      await expect
        .poll(
          async () => {
            lost = (await (await b.api(`/calls/${id}`)).json()) as CallView & { error?: string };
            return lost.state;
          },
          { timeout: 15_000, interval: 100 },
        )
        .toBe('finished');
      expect(lost).toMatchObject({ outcome: 'lost', arguments: { steps: 1000, ms: 1000 } });
      expect(lost!.error).toMatch(/^The gateway instance running the call \(instance \d+\) stopped/);
      const { calls } = (await (await b.api('/calls')).json()) as { calls: CallView[] };
      expect(calls.find((listed) => listed.call.id === id)).toMatchObject({
        state: 'finished',
        outcome: 'lost',
      });
      const cancel = await b.api(`/calls/${id}/cancel`, { body: {} });
      expect(cancel.status).toBe(409);
      expect(((await cancel.json()) as { error: { code: string } }).error.code).toBe('CALL_FINISHED');
    } finally {
      await c.close();
    }
  });
});

describe('gateways behind a round-robin load balancer', () => {
  it('holds a call on whichever instance got it, and lets the other decide it', async () => {
    const balancer = await roundRobin([a.base, b.base]);
    try {
      const model = new Client({ name: 'model', version: '1.0.0' });
      await model.connect(new StreamableHttpClientTransport({ url: `${balancer.base}/mcp` }));
      clients.push(model);
      const api = (pathname: string, body?: unknown) =>
        fetch(`${balancer.base}/api${pathname}`, {
          method: body === undefined ? 'GET' : 'POST',
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
      const call = model.callTool('fx__echo', { text: 'balanced' });
      let id: string | undefined;
      await expect
        .poll(async () => {
          const { approvals } = (await (await api('/approvals')).json()) as { approvals: Approval[] };
          id = approvals.find((approval) => approval.arguments.text === 'balanced')?.id;
          return id;
        })
        .toBeDefined();
      expect((await api(`/approvals/${id}/approve`, {})).status).toBe(200);
      expect(text(await call)).toBe('balanced');
      // Both instances served requests of this conversation.
      expect(balancer.served.every((count) => count > 0)).toBe(true);
    } finally {
      await balancer.close();
    }
  });
});

describe('gateways behind a round-robin load balancer, stateless era', () => {
  it("relays an approved call's question, and lets its retry with the answer run on the other instance", async () => {
    const balancer = await roundRobin([a.base, b.base]);
    try {
      const model = new Client(
        { name: 'model', version: '1.0.0' },
        { elicitation: () => ({ action: 'accept', content: { name: 'Ada' } }) },
      );
      await model.connect(new StreamableHttpClientTransport({ url: `${balancer.base}/mcp` }));
      clients.push(model);
      const events = await a.events();
      const call = model.callTool('fx__ask', {});
      const { approval } = (await events.next(
        'approval.pending',
        (e) => (e.approval as Approval).exposedName === 'fx__ask',
      )) as unknown as { approval: Approval };
      expect((await a.api(`/approvals/${approval.id}/approve`, { body: {} })).status).toBe(200);
      expect(text(await call)).toBe('accept:Ada');
      // The attempt that asked, then the retry with the answer (approved already: no second approval),
      // each on its own instance (call ids come from a range per instance).
      const first = await events.next('call.finished', (e) => e.outcome === 'input_required');
      const retry = await events.next('call.finished', (e) => e.outcome === 'ok');
      expect(retry.decision).toBe('approved');
      const instance = (event: GatewayEventData) => Math.floor((event.callId as number) / 2 ** 32);
      expect(instance(first)).not.toBe(instance(retry));
      const { approvals } = (await (await a.api('/approvals')).json()) as { approvals: Approval[] };
      expect(approvals.filter((pending) => pending.exposedName === 'fx__ask')).toEqual([]);
    } finally {
      await balancer.close();
    }
  });
});

describe('toolwire gateway --redis, wrong', () => {
  it('exits with the error when Redis cannot be reached at start, and 2 for a URL that is none', async () => {
    const upstream = ['--upstream', 'x=http://127.0.0.1:9/mcp'];
    const down = await runCli([
      'gateway',
      '--http',
      '--port',
      '0',
      '--redis',
      'redis://127.0.0.1:1',
      ...upstream,
    ]);
    expect(down.code).not.toBe(0);
    expect(down.stderr).toContain('Redis at 127.0.0.1:1 is not connected');
    const wrong = await runCli(['gateway', '--http', '--redis', 'localhost:6379', ...upstream]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('--redis must be a redis:// or rediss:// URL');
  });
});

describe('gateways whose Redis stops, then comes back', () => {
  let lost: RedisServerHandle;
  /** Holds calls 4 s (then 4 s more when the expiry cannot be stored), so that a call held when Redis went away ends soon. */
  let gateway: RunningGateway;
  let other: RunningGateway;

  beforeAll(async () => {
    lost = await startRedis();
    const config = writeConfig(CONFIG);
    [gateway, other] = await Promise.all([
      startGateway(['--config', config, '--redis', lost.url, '--approval-timeout', '4000']),
      startGateway(['--config', config, '--redis', lost.url]),
    ]);
  });

  afterAll(async () => {
    await Promise.all([gateway?.close(), other?.close()]);
    await lost?.close();
  });

  it('fails fast: 503 with Retry-After from its API, isError results for calls that need approval', async () => {
    const model = await modelClient(gateway);
    const events = await gateway.events();
    const waiting = model.callTool('fx__echo', { text: 'held' });
    const pending = await events.next('approval.pending');
    await lost.stop();
    const response = await gateway.api('/approvals');
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('1');
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('STORE_UNAVAILABLE');
    const decision = await gateway.api(`/approvals/${(pending.approval as Approval).id}/approve`, {
      body: {},
    });
    expect(decision.status).toBe(503);
    const cli = await runCli(['approvals', 'list', '--gateway', gateway.base], {
      env: { TOOLWIRE_TOKEN: TOKEN },
    });
    expect(cli.code).toBe(4);
    expect(cli.stderr).toContain('try again in 1 s');
    const refused = await model.callTool('fx__echo', { text: 'new' });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(
      /could not hold the call of fx__echo for approval: the approval store is unavailable/,
    );
    // The call held when Redis went away does not hang: its expiry cannot be recorded (a decision may have
    // reached Redis first), so once that was tried as long again as it waited, it is refused as the store's
    // failure, not said to have expired.
    const ended = await waiting;
    expect(ended.isError).toBe(true);
    expect(text(ended)).toMatch(
      /could not hold the call of fx__echo for approval: the approval store is unavailable \(Redis approval store: settle failed\)/,
    );
  });

  it('carries on once Redis is back, without a restart: a call held on one is decided through the other', async () => {
    await lost.start();
    // Both subscriber connections are back on the settlements channel (each gateway resubscribes by itself).
    const probe = new Redis(lost.url);
    try {
      await expect
        .poll(async () => (await probe.pubsub('NUMSUB', 'toolwire:gateway:approvals:settled'))[1], {
          timeout: 15_000,
        })
        .toBe(2);
    } finally {
      probe.disconnect();
    }
    // Held on `other` (which holds calls 2 minutes): only the settlement's message can end it this soon.
    const model = await modelClient(other);
    const { call, approval } = await held(model, gateway, 'after the restart');
    expect((await gateway.api(`/approvals/${approval.id}/approve`, { body: {} })).status).toBe(200);
    expect(text(await call)).toBe('after the restart');
  });
});
