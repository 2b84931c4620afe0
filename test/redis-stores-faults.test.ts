// The Redis stores when Redis is not there: unreachable from the start, killed and started again, or
// frozen (SIGSTOP). Every operation fails with a StoreError (code STORE_UNAVAILABLE) within a bound —
// never a hang — and once Redis is back the same stores work again, without a new connection or process
// (scripts are sent again: a restarted Redis knows none).
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreError, redisStores, type RedisStores } from '../src/stores/redis.js';
import { PATIENT_TIMEOUT_MS, startRedis, timingOutAfter, type RedisServerHandle } from './_redis.js';

/**
 * Where a timeout is the point (nothing listens, Redis frozen); what must succeed has {@link PATIENT_TIMEOUT_MS},
 * and with Redis killed a command fails at once (its connection refused).
 */
const COMMAND_TIMEOUT_MS = 500;
/** How long a failing operation may take: the command timeout, plus a loaded 2-core machine's slack. */
const FAIL_WITHIN_MS = COMMAND_TIMEOUT_MS + 2500;
/** How many operations `everyOperation` runs (every method of every store but subscriptions). */
const OPERATIONS = 27;

/** One call of every operation of every store; each resolves with what it took, or rejects. */
function everyOperation(stores: RedisStores, n: number): Record<string, () => Promise<unknown>> {
  const now = Date.now();
  const iso = new Date(now).toISOString();
  const task = {
    taskId: `t${n}`,
    status: 'working',
    createdAt: iso,
    lastUpdatedAt: iso,
    ttlMs: 60_000,
    method: 'x',
  } as const;
  const message = { jsonrpc: '2.0', method: 'notifications/progress' } as const;
  const approval = {
    id: `a${n}`,
    createdAt: iso,
    expiresAt: new Date(now + 60_000).toISOString(),
    caller: {},
    upstream: 'files',
    tool: 'write_file',
    exposedName: 'files__write_file',
    arguments: {},
    argumentsDigest: 'sha256:aa',
    reason: 'asks',
  };
  const record = {
    time: iso,
    kind: 'call',
    caller: {},
    upstream: 'files',
    tool: 'write_file',
    argumentsDigest: 'sha256:aa',
    decision: 'allowed',
    decidedBy: 'policy',
  } as const;
  return {
    'sessions.create': () => stores.sessions.create({ id: `s${n}`, createdAt: now, lastSeenAt: now }),
    'sessions.get': () => stores.sessions.get(`s${n}`),
    'sessions.update': () => stores.sessions.update(`s${n}`, { lastSeenAt: now + 1 }),
    'sessions.idleSince': () => stores.sessions.idleSince(now),
    'sessions.count': () => stores.sessions.count(),
    'sessions.delete': () => stores.sessions.delete(`s${n}`),
    'events.append': () => stores.events.append(`e${n}`, message),
    'events.replayAfter': () => stores.events.replayAfter(`e${n}.0-0`),
    'events.deleteStream': () => stores.events.deleteStream(`e${n}`),
    'rateLimits.take': () => stores.rateLimits.take([{ key: `k${n}`, bucket: { burst: 5, perSecond: 1 } }]),
    'tasks.create': () => stores.tasks.create(task),
    'tasks.get': () => stores.tasks.get(`t${n}`),
    'tasks.update': () => stores.tasks.update(`t${n}`, { status: 'completed', result: {} }),
    'tasks.delete': () => stores.tasks.delete(`t${n}`),
    'tasks.renewLeases': () => stores.tasks.renewLeases([`t${n}`]),
    'approvals.create': () => stores.approvals.create(approval),
    'approvals.get': () => stores.approvals.get(`a${n}`),
    'approvals.pending': () => stores.approvals.pending(),
    'approvals.settle': () => stores.approvals.settle(`a${n}`, { decision: 'expired', decidedAt: iso }),
    'grants.grant': () => stores.grants.grant('files', `g${n}`),
    'grants.has': () => stores.grants.has('files', `g${n}`),
    'grants.take': () => stores.grants.take('files', `g${n}`),
    'grants.forget': () => stores.grants.forget('files'),
    'audit.append': () => stores.audit.append(record),
    'audit.list': () => stores.audit.list(),
    'bus.publish': () => stores.bus.publish({ n }),
    'bus.instanceNumber': () => stores.bus.instanceNumber(),
  };
}

/**
 * Runs every operation at once; each must fail with a StoreError within the bound, its message saying
 * `why`. Returns the slowest, in ms.
 */
async function expectAllToFail(stores: RedisStores, n: number, why: RegExp): Promise<number> {
  const started = performance.now();
  const outcomes = await Promise.all(
    Object.entries(everyOperation(stores, n)).map(async ([name, run]) => {
      try {
        await run();
        return `${name}: resolved`;
      } catch (error) {
        const ms = performance.now() - started;
        if (!(error instanceof StoreError) || error.code !== 'STORE_UNAVAILABLE')
          return `${name}: ${String(error)}`;
        if (ms > FAIL_WITHIN_MS) return `${name}: failed only after ${Math.round(ms)} ms`;
        if (!/^Redis [a-z ]+ (store|bus): [a-zA-Z]+ failed: /.test(error.message) || !why.test(error.message))
          return `${name}: ${error.message}`;
        return 'ok';
      }
    }),
  );
  expect(outcomes).toHaveLength(OPERATIONS);
  expect(outcomes.filter((outcome) => outcome !== 'ok')).toEqual([]);
  return performance.now() - started;
}

/** Every operation works (in order: what is created is then read, changed and deleted). */
async function expectAllToWork(stores: RedisStores, n: number): Promise<void> {
  for (const run of Object.values(everyOperation(stores, n))) await run();
}

describe('Redis stores without Redis', () => {
  it('fail every operation with a StoreError within the command timeout when nothing listens', async () => {
    // A port that was free a moment ago, with nothing listening on it.
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const address = probe.address();
        probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
      });
    });
    await using stores = redisStores(`redis://127.0.0.1:${port}`, { commandTimeoutMs: COMMAND_TIMEOUT_MS });
    const ms = await expectAllToFail(
      stores,
      1,
      new RegExp(`Redis at 127\\.0\\.0\\.1:${port} is not connected`),
    );
    console.info(`unreachable Redis: ${OPERATIONS} operations failed within ${Math.round(ms)} ms`);
  });
});

describe('Redis stores when Redis goes away and comes back', () => {
  let redis: RedisServerHandle;
  let stores: RedisStores;

  beforeAll(async () => {
    redis = await startRedis();
    stores = redisStores(redis.url, { commandTimeoutMs: PATIENT_TIMEOUT_MS });
  });

  afterAll(async () => {
    await stores?.close();
    await redis?.close();
  });

  it('fail while Redis is down, then work again once it restarts, on the same connection', async () => {
    await expectAllToWork(stores, 1);
    await redis.kill();
    const ms = await expectAllToFail(stores, 2, /is not connected \((reconnecting|connecting)\)/);
    console.info(`Redis killed: ${OPERATIONS} operations failed within ${Math.round(ms)} ms`);
    await redis.start();
    const restarted = performance.now();
    // The connection comes back by itself (retries at most a second apart): poll until it has.
    await expect.poll(() => stores.client.status).toBe('ready');
    await expectAllToWork(stores, 3);
    console.info(
      `Redis restarted: the stores worked again after ${Math.round(performance.now() - restarted)} ms`,
    );
    expect(await stores.rateLimits.take([{ key: 'k3', bucket: { burst: 5, perSecond: 1 } }])).toEqual({
      ok: true,
    });
  });

  it('fail within the command timeout while Redis is frozen, and work once it thaws', async () => {
    await expectAllToWork(stores, 4);
    await timingOutAfter(stores.client, COMMAND_TIMEOUT_MS, async () => {
      process.kill(redis.pid!, 'SIGSTOP');
      try {
        const ms = await expectAllToFail(stores, 5, /Command timed out/);
        console.info(`Redis frozen: ${OPERATIONS} operations failed within ${Math.round(ms)} ms`);
      } finally {
        process.kill(redis.pid!, 'SIGCONT');
      }
    });
    await expect.poll(() => stores.client.status).toBe('ready');
    await expectAllToWork(stores, 6);
  });
});
