// The store contracts (test/store-contracts/) run against the in-memory stores, on a fake clock. The
// same contracts run against Redis in test/stores-redis.test.ts.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MemoryApprovalStore } from '../src/stores/memory-approval-store.js';
import { MemoryAuditStore } from '../src/stores/audit-store.js';
import { MemoryCallLogStore } from '../src/stores/memory-call-log-store.js';
import { MemoryEventStore } from '../src/stores/event-store.js';
import { MemoryGrantStore } from '../src/stores/grant-store.js';
import { MemoryMessageBus } from '../src/stores/message-bus.js';
import { MemoryRateLimitStore } from '../src/stores/rate-limit-store.js';
import { MemorySessionStore } from '../src/stores/session-store.js';
import { MemoryTaskStore } from '../src/stores/memory-task-store.js';
import { describeApprovalStoreContract } from './store-contracts/approval-store-contract.js';
import { describeAuditStoreContract } from './store-contracts/audit-store-contract.js';
import { describeCallLogStoreContract } from './store-contracts/call-log-store-contract.js';
import { describeGrantStoreContract } from './store-contracts/grant-store-contract.js';
import { describeMessageBusContract } from './store-contracts/message-bus-contract.js';
import { describeEventStoreContract } from './store-contracts/event-store-contract.js';
import { fakeClock } from './store-contracts/harness.js';
import { describeRateLimitStoreContract } from './store-contracts/rate-limit-store-contract.js';
import { describeSessionStoreContract } from './store-contracts/session-store-contract.js';
import { describeTaskStoreContract } from './store-contracts/task-store-contract.js';

// In one process both handles are the one store.
describeSessionStoreContract('memory', () => {
  const store = new MemorySessionStore();
  return { a: store, b: store, clock: fakeClock() };
});

describeEventStoreContract('memory', (options) => {
  const store = new MemoryEventStore(options);
  return { a: store, b: store, clock: fakeClock() };
});

describeRateLimitStoreContract('memory', () => {
  const clock = fakeClock();
  const store = new MemoryRateLimitStore({ now: clock.now });
  return { a: store, b: store, clock };
});

describeTaskStoreContract('memory', () => {
  const clock = fakeClock();
  const store = new MemoryTaskStore({ now: clock.now });
  return { a: store, b: store, clock };
});

describeApprovalStoreContract('memory', () => {
  const clock = fakeClock(Date.now());
  const store = new MemoryApprovalStore({ now: clock.now });
  return { a: store, b: store, clock };
});

describeGrantStoreContract('memory', (options = {}) => {
  const clock = fakeClock();
  const store = new MemoryGrantStore({ now: clock.now, ...options });
  return { a: store, b: store, clock };
});

describeAuditStoreContract('memory', (options) => {
  const clock = fakeClock();
  const store = new MemoryAuditStore({ ...options, now: clock.now });
  return { a: store, b: store, clock };
});

describeCallLogStoreContract('memory', (options) => {
  const store = new MemoryCallLogStore(options);
  return { a: store, b: store, clock: fakeClock() };
});

describeMessageBusContract('memory', () => {
  const bus = new MemoryMessageBus();
  return { a: bus, b: bus, clock: fakeClock() };
});

describe('MemoryEventStore', () => {
  it('keeps the text it is given, not the message: a replay is that text parsed', () => {
    const store = new MemoryEventStore();
    const prime = store.append('s', null);
    const message = { jsonrpc: '2.0' as const, method: 'notifications/message', params: { n: 1 } };
    const sent = JSON.stringify({ ...message, params: { n: 1, as: 'sent' } });
    const id = store.append('s', message, sent);
    message.params.n = 2; // the caller's object, changed after: not what was kept
    expect(store.replayAfter(prime)).toEqual({ streamId: 's', events: [{ id, message: JSON.parse(sent) }] });
  });
});

describe('MemoryAuditStore', () => {
  it('keeps the latest records in a ring: listed oldest first however often it went round', async () => {
    const store = new MemoryAuditStore({ maxRecords: 5 });
    const record = (n: number) => ({
      time: new Date().toISOString(),
      kind: 'call' as const,
      caller: {},
      upstream: 'files',
      tool: `t${n}`,
      argumentsDigest: 'sha256:aa',
      decision: 'allowed' as const,
      decidedBy: 'policy',
    });
    for (let n = 1; n <= 23; n++) {
      await store.append(record(n));
      const seqs = (await store.list()).map((r) => r.seq);
      const first = Math.max(1, n - 4);
      expect(seqs).toEqual(Array.from({ length: n - first + 1 }, (_, i) => first + i));
    }
    expect((await store.list({ after: 20 })).map((r) => r.tool)).toEqual(['t21', 't22', 't23']);
    expect((await store.list({ limit: 2 })).map((r) => r.seq)).toEqual([22, 23]);
    expect((await store.list({ after: 21, limit: 1 })).map((r) => r.seq)).toEqual([23]);
  });

  it('keeps arguments texts up to its character budget, hashing the rest at once; every digest is right', async () => {
    const store = new MemoryAuditStore({ maxRecords: 2_000 });
    const texts = Array.from({ length: 1_100 }, (_, n) => JSON.stringify({ n, pad: 'y'.repeat(4_000) }));
    const record = (n: number) => ({
      time: new Date().toISOString(),
      kind: 'call' as const,
      caller: {},
      upstream: 'files',
      tool: 'write',
      argumentsDigest: '',
      decision: 'allowed' as const,
      decidedBy: 'policy',
      callId: n,
    });
    // 1,100 texts of ≈4 KB: past the 4 MiB of texts kept, so the later ones are hashed as they come.
    texts.forEach((text, n) => store.appendUndigested(record(n), text));
    const listed = await store.list();
    expect(listed).toHaveLength(1_100);
    listed.forEach((stored, n) => {
      expect(stored.callId).toBe(n);
      expect(stored.argumentsDigest).toBe(`sha256:${createHash('sha256').update(texts[n]!).digest('hex')}`);
    });
  });
});

describe('MemoryRateLimitStore', () => {
  it('keeps the most recently used buckets when it has too many, one bucket per take or several', () => {
    const store = new MemoryRateLimitStore({ now: () => 0, maxBuckets: 2 });
    const bucket = { burst: 1, perSecond: 1 };
    const take = (...keys: string[]) => store.take(keys.map((key) => ({ key, bucket })));
    expect(take('a')).toEqual({ ok: true });
    expect(take('b')).toEqual({ ok: true });
    expect(take('a')).toMatchObject({ ok: false, key: 'a' }); // used again: now the most recent
    expect(take('c')).toEqual({ ok: true }); // evicts b, the least recently used
    expect(store.size).toBe(2);
    expect(take('b')).toEqual({ ok: true }); // back, full again; evicts a
    expect(take('c', 'a')).toMatchObject({ ok: false, key: 'c' }); // all or nothing: a keeps its token
    expect(take('a')).toEqual({ ok: true });
  });
});

describe('MemoryCallLogStore', () => {
  it('drops the oldest results past maxBytes, keeping their calls', async () => {
    const store = new MemoryCallLogStore({ maxBytes: 300, maxResultBytes: 200 });
    const big = { content: [{ type: 'text' as const, text: 'x'.repeat(120) }] };
    for (const id of [1, 2, 3]) {
      const call = {
        id,
        caller: {},
        upstream: 'up',
        tool: 't',
        exposedName: 'up__t',
        argumentsDigest: 'sha256:0',
      };
      store.start(call, {}, new Date().toISOString());
      store.finish(id, { decision: 'allowed', outcome: 'ok', durationMs: 1, result: big });
    }
    expect(await store.get(1)).toMatchObject({ hasResult: false, resultDropped: 'evicted' });
    expect(await store.get(3)).toMatchObject({ hasResult: true });
  });

  it("drops the oldest finished calls' arguments past maxBytes once no result is left to drop", async () => {
    const store = new MemoryCallLogStore({ maxBytes: 300 });
    const args = { text: 'x'.repeat(120) };
    const call = (id: number) => ({
      id,
      caller: {},
      upstream: 'up',
      tool: 't',
      exposedName: 'up__t',
      argumentsDigest: 'sha256:0',
    });
    for (const id of [1, 2, 3]) {
      store.start(call(id), args, new Date().toISOString());
      store.finish(id, { decision: 'allowed', outcome: 'ok', durationMs: 1 });
    }
    store.start(call(4), args, new Date().toISOString()); // running: kept whole
    expect(await store.get(1)).toMatchObject({ arguments: {}, argumentsDropped: 'evicted' });
    expect(await store.get(2)).toMatchObject({ arguments: {}, argumentsDropped: 'evicted' });
    expect(await store.get(3)).toMatchObject({ arguments: args });
    expect(await store.get(4)).toMatchObject({ arguments: args, state: 'running' });
    expect((await store.list()).map((summary) => summary.argumentsDropped)).toEqual([
      undefined,
      undefined,
      'evicted',
      'evicted',
    ]);
  });
});
