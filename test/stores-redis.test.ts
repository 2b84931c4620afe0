// The store contracts (test/store-contracts/) run against the Redis stores, on a real redis-server this file
// starts: the two handles of each contract are two connections, as two processes would hold, and expiry
// follows Redis's clock. The same contracts run against the memory stores in test/stores-memory.test.ts.
// Then what only a store shared by processes does: a killed instance's running calls shown lost.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Redis } from 'ioredis';
import { lostCallError } from '../src/stores/call-log-store.js';
import { redisStores, type RedisStores } from '../src/stores/redis.js';
import { RedisApprovalStore } from '../src/stores/redis-approval-store.js';
import { RedisAuditStore } from '../src/stores/redis-audit-store.js';
import { RedisCallLogStore } from '../src/stores/redis-call-log-store.js';
import { RedisEventStore } from '../src/stores/redis-event-store.js';
import { RedisGrantStore } from '../src/stores/redis-grant-store.js';
import { RedisMessageBus } from '../src/stores/redis-message-bus.js';
import { RedisSubscriber } from '../src/stores/redis-subscriber.js';
import { RedisRateLimitStore } from '../src/stores/redis-rate-limit-store.js';
import { RedisSessionStore } from '../src/stores/redis-session-store.js';
import { RedisTaskStore } from '../src/stores/redis-task-store.js';
import { startRedis, type RedisServerHandle } from './_redis.js';
import { describeApprovalStoreContract } from './store-contracts/approval-store-contract.js';
import { describeAuditStoreContract } from './store-contracts/audit-store-contract.js';
import { describeCallLogStoreContract } from './store-contracts/call-log-store-contract.js';
import { describeGrantStoreContract } from './store-contracts/grant-store-contract.js';
import { describeMessageBusContract } from './store-contracts/message-bus-contract.js';
import { describeEventStoreContract } from './store-contracts/event-store-contract.js';
import { realClock, type StorePair } from './store-contracts/harness.js';
import { describeRateLimitStoreContract } from './store-contracts/rate-limit-store-contract.js';
import { describeSessionStoreContract } from './store-contracts/session-store-contract.js';
import { describeTaskStoreContract } from './store-contracts/task-store-contract.js';

let redis: RedisServerHandle;
let one: RedisStores;
let two: RedisStores;
/** The pub/sub connection of each side, as each process would hold one. */
const subscribers = new Map<Redis, RedisSubscriber>();

beforeAll(async () => {
  redis = await startRedis();
  one = redisStores(redis.url);
  two = redisStores(redis.url);
});

afterAll(async () => {
  for (const subscriber of subscribers.values()) subscriber.close();
  await one?.close();
  await two?.close();
  await redis?.close();
});

function subscriberOf(client: Redis): RedisSubscriber {
  let subscriber = subscribers.get(client);
  if (!subscriber) subscribers.set(client, (subscriber = new RedisSubscriber(client)));
  return subscriber;
}

let tests = 0;
/** The same store on both connections, under a prefix of its own: every test starts from nothing. */
function pair<S>(make: (client: Redis, prefix: string) => S): StorePair<S> {
  const prefix = `contract${++tests}:`;
  return { a: make(one.client, prefix), b: make(two.client, prefix), clock: realClock };
}

describeSessionStoreContract('redis', () =>
  pair((client, prefix) => new RedisSessionStore(client, { prefix })),
);

describeEventStoreContract('redis', (options) =>
  pair((client, prefix) => new RedisEventStore(client, { ...options, prefix })),
);

describeRateLimitStoreContract('redis', () =>
  pair((client, prefix) => new RedisRateLimitStore(client, { prefix })),
);

describeTaskStoreContract(
  'redis',
  (options) => pair((client, prefix) => new RedisTaskStore(client, { ...options, prefix })),
  { leases: true },
);

describeApprovalStoreContract('redis', () =>
  pair((client, prefix) => new RedisApprovalStore(client, { prefix, subscriber: subscriberOf(client) })),
);

describeGrantStoreContract('redis', (options = {}) =>
  pair((client, prefix) => new RedisGrantStore(client, { ...options, prefix })),
);

describeAuditStoreContract('redis', (options) =>
  pair((client, prefix) => new RedisAuditStore(client, { ...options, prefix })),
);

describeCallLogStoreContract('redis', (options) =>
  pair((client, prefix) => new RedisCallLogStore(client, { ...options, prefix })),
);

describeMessageBusContract('redis', () =>
  pair((client, prefix) => new RedisMessageBus(client, { prefix, subscriber: subscriberOf(client) })),
);

describe('RedisApprovalStore', () => {
  it('lists at most maxListed pending approvals, the oldest, and says how many wait in all', async () => {
    const prefix = `listed${++tests}:`;
    const store = new RedisApprovalStore(one.client, {
      prefix,
      subscriber: subscriberOf(one.client),
      maxListed: 3,
    });
    const now = Date.now();
    for (let i = 0; i < 5; i++) {
      await store.create({
        id: `a${i}`,
        createdAt: new Date(now + i).toISOString(),
        expiresAt: new Date(now + 60_000).toISOString(),
        caller: {},
        upstream: 'files',
        tool: 'write',
        exposedName: 'files__write',
        arguments: { i },
        argumentsDigest: `sha256:${i}`,
        reason: 'asks',
      });
    }
    const first = await store.listPending();
    expect(first.approvals.map((approval) => approval.id)).toEqual(['a0', 'a1', 'a2']);
    expect(first.total).toBe(5);
    expect((await store.pending()).map((approval) => approval.id)).toEqual(['a0', 'a1', 'a2']);
    await store.settle('a0', { decision: 'denied', decidedBy: 'test', decidedAt: new Date().toISOString() });
    const second = await store.listPending();
    expect(second.approvals.map((approval) => approval.id)).toEqual(['a1', 'a2', 'a3']);
    expect(second.total).toBe(4);
  });
  it("keeps a pending approval's fenced tokens in one field, the latest 32, and none once it is settled", async () => {
    const prefix = `fenced${++tests}:`;
    const store = new RedisApprovalStore(one.client, { prefix, subscriber: subscriberOf(one.client) });
    const key = `${prefix}gateway:approval:f1`;
    const now = Date.now();
    await store.create({
      id: 'f1',
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + 60_000).toISOString(),
      caller: {},
      upstream: 'files',
      tool: 'write',
      exposedName: 'files__write',
      arguments: {},
      argumentsDigest: 'sha256:0',
      reason: 'asks',
    });
    const fields = await one.client.hlen(key);
    // 200 decisions on it that timed out, one after another, each fenced by its decider.
    for (let i = 0; i < 200; i++) expect(await store.fence('f1', `t${i}`)).toEqual({ status: 'fenced' });
    expect(await one.client.hlen(key)).toBe(fields + 1);
    expect(JSON.parse((await one.client.hget(key, 'fenced'))!)).toHaveLength(32);
    const approve = (by: string) => ({
      decision: 'approved' as const,
      always: false,
      decidedBy: by,
      decidedAt: new Date().toISOString(),
    });
    // The latest ones still settle nothing when they land.
    expect(await store.settle('f1', approve('late'), { token: 't199' })).toEqual({ status: 'unknown' });
    expect(await store.settle('f1', approve('late'), { token: 't168' })).toEqual({ status: 'unknown' });
    expect(await store.settle('f1', approve('carol'), { token: 'now' })).toMatchObject({ status: 'settled' });
    // Settled: nothing lands on it any more, so nothing is kept for the fences of later timeouts.
    expect(await one.client.hexists(key, 'fenced')).toBe(0);
    expect(await store.fence('f1', 'after')).toEqual({ status: 'fenced' });
    expect(await one.client.hexists(key, 'fenced')).toBe(0);
    expect(await store.settle('f1', approve('after'), { token: 'after' })).toMatchObject({
      status: 'settled-before',
      outcome: { decidedBy: 'carol' },
    });
  });
});

describe('RedisGrantStore', () => {
  it('keeps a grant with an end until that end, past how long a grant without one lasts', async () => {
    const prefix = `grants${++tests}:`;
    const store = new RedisGrantStore(one.client, { prefix, maxGrantMs: 60_000 });
    const week = 7 * 24 * 60 * 60_000;
    const until = Date.now() + week;
    await store.grant('files', 'k', until);
    const key = `${prefix}gateway:grant-ends:files`;
    expect(Number(await one.client.zscore(key, 'k'))).toBe(until);
    expect(await one.client.pttl(key)).toBeGreaterThan(week - 60_000);
    await store.grant('other', 'endless');
    expect(await one.client.pttl(`${prefix}gateway:grant-ends:other`)).toBeLessThanOrEqual(60_000);
  });

  it('does the same bounded work per grant however many grants its scope holds (no whole-scope read)', async () => {
    const prefix = `grants${++tests}:`;
    const store = new RedisGrantStore(one.client, { prefix });
    const commandsDuring = (run: () => Promise<void>) => commandsOn(prefix, run);
    const grantMany = async (scope: string, count: number, until: number) => {
      for (let i = 0; i < count; i += 100)
        await Promise.all(
          Array.from({ length: Math.min(100, count - i) }, (_, j) => store.grant(scope, `k${i + j}`, until)),
        );
    };
    const wholeScopeReads = ['hgetall', 'hkeys', 'hvals', 'hscan', 'zrange', 'zrangebyscore', 'zscan'];
    const tenGrants = (scope: string) => {
      const until = Date.now() + 60_000;
      return commandsDuring(async () => {
        for (let i = 0; i < 10; i++) await store.grant(scope, `new${i}`, until);
      });
    };
    const small = await tenGrants('small');
    // 4,000 grants that still hold in one scope.
    await grantMany('big', 4_000, Date.now() + 60_000);
    const big = await tenGrants('big');
    // The same commands, one for one (less whether the key's expiry moved, which the clock decides: O(1)).
    const moved = (command: string) => command !== 'pexpireat';
    expect(big.filter(moved)).toEqual(small.filter(moved));
    expect(big.filter((command) => wholeScopeReads.includes(command))).toEqual([]);
    // 2,000 that ran out (written as they would have been before they did) and one that holds, in another.
    await store.grant('big-ran-out', 'holds', Date.now() + 60_000);
    const ranOut = `${prefix}gateway:grant-ends:big-ran-out`;
    const past = Date.now() - 1_000;
    await one.client.zadd(ranOut, ...Array.from({ length: 2_000 }, (_, i) => [past, `old${i}`]).flat());
    // A grant in a scope of grants that ran out sweeps a bounded number of them (64), not all at once.
    const sweep = await commandsDuring(() => store.grant('big-ran-out', 'new', Date.now() + 60_000));
    expect(await one.client.zcard(ranOut)).toBe(1 + 2_000 - 64 + 1);
    expect(sweep.filter((command) => wholeScopeReads.includes(command))).toEqual([]);
    // The grant's note first (none here: the key's earlier note goes), then the grant.
    expect(sweep.filter(moved)).toEqual(['del', 'zcount', 'zremrangebyrank', 'zadd', 'zcard', 'pttl']);
  });
});

/** The commands Redis ran on keys under `prefix` (MONITOR: the scripts' commands too) while `run` ran. */
async function commandsOn(prefix: string, run: () => Promise<void>): Promise<string[]> {
  const monitor = await new Redis(redis.url).monitor();
  const seen: string[] = [];
  const hear = (_time: string, args: string[]) => {
    if (args[1]?.startsWith(prefix)) seen.push(args[0]!.toLowerCase());
  };
  monitor.on('monitor', hear);
  try {
    await run();
    // The monitor hears a marker after every command before it: nothing the run did is missed.
    const marker = `${prefix}marker`;
    await one.client.exists(marker);
    await vi.waitFor(() => expect(seen.at(-1)).toBe('exists'));
    return seen.slice(0, -1);
  } finally {
    monitor.off('monitor', hear);
    monitor.disconnect();
  }
}

/** A call of the log's tests, numbered `id`. */
const callInfo = (id: number) => ({
  id,
  caller: {},
  upstream: 'up',
  tool: 't',
  exposedName: 'up__t',
  argumentsDigest: 'sha256:0',
});

/**
 * The call log's write batches (under `prefix`) as Redis runs them, heard with MONITOR: what a frozen Redis
 * would run again, late. Disconnect `monitor` when done.
 */
async function callLogBatches(prefix: string): Promise<{ monitor: Redis; batches: string[][] }> {
  const monitor = await new Redis(redis.url).monitor();
  const batches: string[][] = [];
  monitor.on('monitor', (_time: string, args: string[]) => {
    if (args[0]?.toLowerCase() === 'evalsha' && args[3] === `${prefix}gateway:calls`) batches.push(args);
  });
  return { monitor, batches };
}

describe('RedisCallLogStore', () => {
  it('keeps a finished call finished when its start or progress write lands late', async () => {
    const prefix = `contract${++tests}:`;
    const store = new RedisCallLogStore(one.client, { prefix });
    const call = callInfo(2 ** 32 * 9 + 1);
    // The batches' scripts as Redis ran them (MONITOR): what a frozen Redis would run again, late.
    const { monitor, batches } = await callLogBatches(prefix);
    try {
      store.start(call, { path: 'a' }, new Date().toISOString());
      await store.flushed();
      store.progress(call.id, { progress: 1, message: 'half' });
      await store.flushed();
      await vi.waitFor(() => expect(batches).toHaveLength(2));
      store.finish(call.id, { decision: 'allowed', outcome: 'ok', durationMs: 5, result: { content: [] } });
      await store.flushed();
      expect(await store.get(call.id)).toMatchObject({ state: 'finished', outcome: 'ok' });
      // The start's and the progress's batches land after the finish, as they would once Redis thaws.
      for (const [command, ...args] of batches.slice(0, 2)) await one.client.call(command!, ...args);
      expect(await store.get(call.id)).toMatchObject({ state: 'finished', outcome: 'ok', hasResult: true });
      expect(await store.list()).toEqual([expect.objectContaining({ state: 'finished' })]);
    } finally {
      monitor.disconnect();
    }
  });

  it('writes a call whose end lands before its start finished, and keeps it so, bounded and trimmed', async () => {
    const prefix = `contract${++tests}:`;
    const store = new RedisCallLogStore(one.client, {
      prefix,
      maxCalls: 2,
      maxArgumentsBytes: 100,
      maxResultBytes: 100,
    });
    const call = (n: number) => callInfo(2 ** 32 * 9 + n);
    const [small, large, later] = [call(1), call(2), call(3)];
    const result = (text: string) => ({ content: [{ type: 'text' as const, text }] });
    const { monitor, batches } = await callLogBatches(prefix);
    try {
      store.start(small, { path: 'a' }, new Date().toISOString());
      store.start(large, { text: 'x'.repeat(300) }, new Date().toISOString());
      await store.flushed();
      store.finish(small.id, { decision: 'allowed', outcome: 'ok', durationMs: 5, result: result('ok') });
      store.finish(large.id, {
        decision: 'allowed',
        outcome: 'ok',
        durationMs: 5,
        result: result('y'.repeat(300)),
      });
      await store.flushed();
      await vi.waitFor(() => expect(batches).toHaveLength(2));
      // As if the start's batch timed out on a frozen Redis and the end's reached it first: the end's batch
      // runs on a log without the calls, then the start's, late.
      await one.client.del(
        `${prefix}gateway:calls`,
        `${prefix}gateway:call:${small.id}`,
        `${prefix}gateway:call:${large.id}`,
      );
      for (const [command, ...args] of [batches[1]!, batches[0]!]) await one.client.call(command!, ...args);
      expect(await store.get(small.id)).toMatchObject({
        state: 'finished',
        outcome: 'ok',
        arguments: { path: 'a' },
        hasResult: true,
        result: result('ok'),
      });
      const dropped = await store.get(large.id);
      expect(dropped).toMatchObject({
        state: 'finished',
        arguments: {},
        argumentsDropped: 'too-large',
        hasResult: false,
        resultDropped: 'too-large',
      });
      expect(dropped).not.toHaveProperty('result');
      expect((await store.list()).map((summary) => [summary.call.id, summary.state])).toEqual([
        [large.id, 'finished'],
        [small.id, 'finished'],
      ]);
      expect(await one.client.pttl(`${prefix}gateway:call:${small.id}`)).toBeGreaterThan(0);
      // The start's batch holds the index score (5 keys; ARGV: prefix, max, TTL, trimmed kept, epoch, then id,
      // score, …).
      const started = Number(batches[0]![14]);
      expect(started).toBeGreaterThan(0);
      expect(Number(await one.client.zscore(`${prefix}gateway:calls`, small.id))).toBe(started);
      // Indexed as it started: the oldest finished call goes first past maxCalls.
      store.start(later, {}, new Date().toISOString());
      store.finish(later.id, { decision: 'allowed', outcome: 'ok', durationMs: 1 });
      await store.flushed();
      expect((await store.list()).map((summary) => summary.call.id)).toEqual([later.id, large.id]);
      expect(await one.client.exists(`${prefix}gateway:call:${small.id}`)).toBe(0);
    } finally {
      monitor.disconnect();
    }
  });

  it('keeps a call trimmed from the log out when its start lands late, after 2 newer calls pushed it out', async () => {
    const prefix = `contract${++tests}:`;
    const store = new RedisCallLogStore(one.client, { prefix, maxCalls: 2 });
    const call = (n: number) => callInfo(n); // instance 0: its running calls are never shown lost
    const { monitor, batches } = await callLogBatches(prefix);
    try {
      const first = call(1);
      store.start(first, { path: 'a' }, new Date().toISOString());
      await store.flushed();
      await vi.waitFor(() => expect(batches).toHaveLength(1));
      store.finish(first.id, { decision: 'allowed', outcome: 'ok', durationMs: 5 });
      await store.flushed();
      for (const n of [2, 3]) {
        store.start(call(n), {}, new Date().toISOString());
        store.finish(call(n).id, { decision: 'allowed', outcome: 'ok', durationMs: 1 });
        await store.flushed();
      }
      expect((await store.list()).map((summary) => summary.call.id)).toEqual([call(3).id, call(2).id]);
      expect(await store.get(first.id)).toBeUndefined();
      // The first call's start batch lands again, late, as a frozen Redis runs it once it thaws.
      const [command, ...args] = batches[0]!;
      await one.client.call(command!, ...args);
      expect(await store.get(first.id)).toBeUndefined();
      expect(await one.client.exists(`${prefix}gateway:call:${first.id}`)).toBe(0);
      expect((await store.list()).map((summary) => summary.call.id)).toEqual([call(3).id, call(2).id]);
      // A call of that id starting later than it (a process numbering its calls again) is written.
      store.start(first, {}, new Date().toISOString());
      await store.flushed();
      expect(await store.get(first.id)).toMatchObject({ state: 'running' });
    } finally {
      monitor.disconnect();
    }
  });

  it("shows a killed instance's running calls as lost once its live key expires, without a stop", async () => {
    const prefix = `contract${++tests}:`;
    // The instance's own connection, dropped as a killed process's is: its renewals stop, its key expires.
    const killed = new Redis(redis.url);
    const a = new RedisCallLogStore(killed, { prefix, liveTtlMs: 300 });
    const b = new RedisCallLogStore(two.client, { prefix });
    const call = {
      id: 2 ** 32 * 7 + 1,
      caller: {},
      upstream: 'up',
      tool: 't',
      exposedName: 'up__t',
      argumentsDigest: 'sha256:0',
    };
    await a.live(7);
    a.start(call, {}, new Date().toISOString());
    await a.flushed();
    expect(await one.client.pttl(`${prefix}gateway:instance:7`)).toBeGreaterThan(0);
    expect(await b.get(call.id)).toMatchObject({ state: 'running' });
    killed.disconnect();
    await vi.waitFor(
      async () => expect(await b.get(call.id)).toMatchObject({ state: 'finished', outcome: 'lost' }),
      { timeout: 10_000, interval: 50 },
    );
    expect(await b.list()).toEqual([expect.objectContaining({ state: 'finished', outcome: 'lost' })]);
    expect(await b.get(call.id)).toMatchObject({ error: lostCallError(7) });
  });

  it('reads the running calls for the calls changed after a marker, not every call kept', async () => {
    /** The commands of a read after a marker (nothing changed) with 5 calls running and `finished` after them. */
    const sinceRead = async (finished: number) => {
      const prefix = `contract${++tests}:`;
      const store = new RedisCallLogStore(one.client, { prefix, maxCalls: 500 });
      const stop = await store.live(9);
      const at = new Date().toISOString();
      for (let n = 1; n <= 5 + finished; n++) {
        store.start(callInfo(2 ** 32 * 9 + n), {}, at);
        if (n > 5) store.finish(2 ** 32 * 9 + n, { decision: 'allowed', outcome: 'ok', durationMs: 1 });
      }
      const { marker, calls } = await store.changes(undefined);
      expect(calls).toHaveLength(5 + finished);
      const commands = await commandsOn(prefix, async () => {
        expect(await store.changes(marker)).toMatchObject({ calls: [], whole: false });
      });
      await stop();
      return commands.sort();
    };
    const few = await sinceRead(5);
    // 495 finished: the same commands, one for one (they went one HGET per call kept: 514 with 500).
    expect(await sinceRead(495)).toEqual(few);
    expect(few.length).toBeLessThan(30);
  });

  it('finds the running calls of a log written without a set of them (an older version), once', async () => {
    const prefix = `contract${++tests}:`;
    const store = new RedisCallLogStore(one.client, { prefix, maxCalls: 1 });
    const call = (n: number) => ({
      id: 2 ** 32 * 8 + n,
      caller: {},
      upstream: 'up',
      tool: 't',
      exposedName: 'up__t',
      argumentsDigest: `sha256:${n}`,
    });
    const stop = await store.live(8);
    for (const n of [1, 2, 3]) store.start(call(n), {}, new Date().toISOString());
    store.finish(call(3).id, { decision: 'allowed', outcome: 'ok', durationMs: 1 });
    await store.flushed();
    // As an older version leaves it: no running calls kept apart, nor the changes saying they are.
    await one.client.del(`${prefix}gateway:calls-running`);
    await one.client.hdel(`${prefix}gateway:calls-changes`, 'r');
    const { calls, marker, runningOmitted } = await store.changes(undefined);
    // The latest and the newest running older (maxCalls: 1), the other counted.
    expect(calls.map((c) => `${c.call.id % 2 ** 32} ${c.state}`)).toEqual(['3 finished', '2 running']);
    expect(runningOmitted).toBe(1);
    expect(await one.client.zcard(`${prefix}gateway:calls-running`)).toBe(2);
    expect(await one.client.hget(`${prefix}gateway:calls-changes`, 'r')).toBe('1');
    // Made once: a read after reads the running calls only; they end lost with their instance.
    await stop();
    const changed = await store.changes(marker);
    expect(changed.calls.map((c) => `${c.call.id % 2 ** 32} ${c.outcome}`)).toEqual(['2 lost', '1 lost']);
    expect(changed.runningOmitted).toBe(0);
    expect(await one.client.zcard(`${prefix}gateway:calls-running`)).toBe(0);
  });
});
