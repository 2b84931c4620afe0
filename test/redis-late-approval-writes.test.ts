// The gateway's approvals (Approvals, as the gateway holds them) on a real Redis whose writes fail or land
// late. A create that timed out while Redis was frozen (SIGSTOP: it had read the command, or will) runs
// when Redis thaws: the approval would then be listed as waiting, for its whole timeout, though its caller
// was told the store failed and nobody waits for it; it is settled withdrawn instead (or stored so first,
// and the late create stores nothing). An expiry the store refuses to record (the holder's ACL revoked)
// is tried again, so that the call ends with what the store holds (a person's approval that reached the
// store first), not "expired" beside an audit that says approved. A decision that timed out on a frozen
// Redis and ran when it thawed is reported and granted by the instance that made it.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Approvals, type ApprovalRequest } from '../src/gateway/approvals.js';
import { STORE_RETRY_MS, storeRetryBound, storeRetryGrace } from '../src/gateway/store-retries.js';
import type { ApprovalOutcome, PendingApproval } from '../src/stores/gateway-records.js';
import { StoreError, redisStores, type RedisStores } from '../src/stores/redis.js';
import { startRedis, type RedisServerHandle } from './_redis.js';

const COMMAND_TIMEOUT_MS = 300;

const request = (principal: string): ApprovalRequest => ({
  caller: { principal, sessionId: 's1' },
  upstream: 'files',
  tool: 'write_file',
  exposedName: 'files__write_file',
  arguments: { path: 'notes.txt' },
  argumentsDigest: 'sha256:aa',
  reason: 'the policy asks',
});

describe('approvals on a Redis whose writes fail or land late', () => {
  let redis: RedisServerHandle;
  let admin: Redis;
  /** Another instance's view: what the listing (console, `toolwire approvals`, the decision API) shows. */
  let reader: RedisStores;

  beforeAll(async () => {
    redis = await startRedis();
    admin = new Redis(redis.url);
    reader = redisStores(redis.url);
  });

  afterAll(async () => {
    if (redis?.pid !== undefined) process.kill(redis.pid, 'SIGCONT');
    admin?.disconnect();
    await reader?.close();
    await redis?.close();
  });

  it('settles an approval whose create timed out on a frozen Redis, so it is never listed once Redis thaws', async () => {
    const stores = redisStores(redis.url, { commandTimeoutMs: COMMAND_TIMEOUT_MS });
    const settled: ApprovalOutcome[] = [];
    const approvals = new Approvals({
      timeoutMs: 120_000,
      store: stores.approvals,
      grants: stores.grants,
      onSettled: (_approval, outcome) => settled.push(outcome),
    });
    try {
      // A first approval, withdrawn: Redis knows the scripts, so the frozen one's create runs when it thaws.
      const first = approvals.ask(request('bob'), AbortSignal.abort());
      await first.outcome;
      await expect
        .poll(async () => (await reader.approvals.get(first.approval.id))?.outcome?.decision)
        .toBe('withdrawn');
      settled.length = 0;
      process.kill(redis.pid!, 'SIGSTOP');
      let ghost: PendingApproval;
      try {
        const asked = approvals.ask(request('alice'), new AbortController().signal);
        ghost = asked.approval;
        const failed = await asked.outcome.catch((error: unknown) => error);
        expect(failed).toBeInstanceOf(StoreError);
        expect((failed as StoreError).message).toMatch(/Redis approval store: create failed: .*timed out/);
        // The connection holding the create goes; Redis still holds the command it was sent.
        await expect.poll(() => stores.client.status, { timeout: 10_000 }).not.toBe('ready');
      } finally {
        process.kill(redis.pid!, 'SIGCONT');
      }
      // Once Redis thaws, the approval is settled (whichever of the late create and the abandon ran first).
      await expect
        .poll(async () => (await reader.approvals.get(ghost.id))?.outcome, { timeout: 10_000 })
        .toMatchObject({
          decision: 'withdrawn',
          reason: 'the approval store did not store the approval in time',
        });
      const listing = await reader.approvals.listPending();
      expect(listing).toEqual({ approvals: [], total: 0 });
      // A decision on it is answered "settled already", as for any withdrawn approval.
      const other = new Approvals({ timeoutMs: 120_000, store: reader.approvals, grants: reader.grants });
      await expect(other.decide(ghost.id, { approve: true, decidedBy: 'carol' })).rejects.toThrow(
        /is settled already \(withdrawn\)/,
      );
      // Reported once, by this instance, only when it settled a create that had landed.
      expect(settled.length).toBeLessThanOrEqual(1);
    } finally {
      await approvals.close();
      await stores.close();
    }
  });

  it('reports and grants a decision that timed out on a frozen Redis and landed when it thawed', async () => {
    const { deciding, holder, decider, reported, askAndPrime, freezeAtSettle, close } = holderAndDecider();
    try {
      const asked = await askAndPrime('dora');
      freezeAtSettle();
      try {
        const failed = await decider
          .decide(asked.approval.id, { approve: true, always: true, decidedBy: 'carol' })
          .catch((error: unknown) => error);
        expect(failed).toBeInstanceOf(StoreError);
        await expect.poll(() => deciding.client.status, { timeout: 10_000 }).not.toBe('ready');
      } finally {
        process.kill(redis.pid!, 'SIGCONT');
      }
      // Redis runs the settle it read before it froze, before anything the new connection sends: the call is
      // approved, and the instance whose decider was told it failed learns that it landed.
      expect(await asked.outcome).toMatchObject({ decision: 'approved', always: true, decidedBy: 'carol' });
      await expect
        .poll(() => reported, { timeout: 10_000 })
        .toEqual([expect.objectContaining({ decision: 'approved', always: true })]);
      expect(await holder.remembered(request('dora').caller, 'files', 'write_file')).toBe(true);
    } finally {
      await close();
    }
  });

  it.each([
    ['the same timeout as the holder', 120_000],
    ["a timeout shorter than the holder's (the approval's expiry is the holder's)", 1_000],
  ])(
    'reports a decision that landed when Redis thawed, frozen longer than the retry grace, before the expiry; the decider has %s',
    async (_, deciderTimeoutMs) => {
      // The grace is a minute; shortened here so that a freeze outlasts it in a second or two, not a minute.
      const grace = storeRetryGrace.ms;
      storeRetryGrace.ms = 1_000;
      const { decider, reported, askAndPrime, freezeAtSettle, fences, close } = holderAndDecider({
        deciderTimeoutMs,
      });
      try {
        const asked = await askAndPrime('erin');
        freezeAtSettle();
        try {
          const failed = await decider
            .decide(asked.approval.id, { approve: true, decidedBy: 'carol' })
            .catch((error: unknown) => error);
          expect(failed).toBeInstanceOf(StoreError);
          const failedAt = Date.now();
          // Redis stays frozen until the decider asks again later than the grace past the decision, and past
          // the decider's own timeout (and a retry's pause past that): a fence that gave up then asks no more,
          // and never learns.
          const past =
            failedAt + Math.min(deciderTimeoutMs, 1_000) + storeRetryGrace.ms + STORE_RETRY_MS + 1_000;
          await expect
            .poll(() => fences.at(-1) ?? 0, { timeout: 15_000, interval: 100 })
            .toBeGreaterThanOrEqual(past);
        } finally {
          process.kill(redis.pid!, 'SIGCONT');
        }
        // The approval had not expired: the settle Redis read before it froze lands, and the decider reports it.
        expect(await asked.outcome).toMatchObject({
          decision: 'approved',
          always: false,
          decidedBy: 'carol',
        });
        await expect
          .poll(() => reported, { timeout: 10_000 })
          .toEqual([expect.objectContaining({ decision: 'approved', decidedBy: 'carol' })]);
      } finally {
        storeRetryGrace.ms = grace;
        await close();
      }
    },
  );

  it('refuses a decision, sending nothing, when too many store writes are being tried again to fence it', async () => {
    const bound = storeRetryBound.max;
    storeRetryBound.max = 1;
    const { decider, reported, askAndPrime, freezeAtSettle, close } = holderAndDecider();
    try {
      const first = await askAndPrime('fay');
      const second = await askAndPrime('gus');
      freezeAtSettle();
      try {
        // The first decision times out: its fence, tried again until Redis answers, takes the one place.
        await expect(
          decider.decide(first.approval.id, { approve: true, decidedBy: 'carol' }),
        ).rejects.toBeInstanceOf(StoreError);
        // The second would have no fence: it is refused, at once, and says why.
        const refused = await decider
          .decide(second.approval.id, { approve: true, decidedBy: 'carol' })
          .catch((error: unknown) => error);
        expect(refused).toBeInstanceOf(StoreError);
        expect((refused as StoreError).message).toBe(
          `the decision on approval ${second.approval.id} was not sent: too many store writes are being tried again`,
        );
        expect((refused as StoreError).details).toEqual({ store: 'approval store', operation: 'settle' });
      } finally {
        process.kill(redis.pid!, 'SIGCONT');
      }
      expect(await first.outcome).toMatchObject({ decision: 'approved', decidedBy: 'carol' });
      await expect
        .poll(() => reported, { timeout: 10_000 })
        .toEqual([expect.objectContaining({ decision: 'approved', decidedBy: 'carol' })]);
      // Nothing of the refused decision reached Redis; once the first is fenced, the second goes through.
      expect((await reader.approvals.get(second.approval.id))?.outcome).toBeUndefined();
      await expect
        .poll(() =>
          decider.decide(second.approval.id, { approve: false, decidedBy: 'carol' }).then(
            ({ outcome }) => outcome.decision,
            (error: unknown) => String(error),
          ),
        )
        .toBe('denied');
      expect(await second.outcome).toMatchObject({ decision: 'denied', decidedBy: 'carol' });
    } finally {
      storeRetryBound.max = bound;
      await close();
    }
  });

  /**
   * Two instances on the test's Redis: `holder`, whose call waits for the decision, and `decider`, whose
   * commands time out after COMMAND_TIMEOUT_MS, which reports the outcomes it learns in `reported`, and whose fences (asking Redis whether a decision landed) are timed in `fences`.
   */
  function holderAndDecider({ deciderTimeoutMs = 120_000 } = {}) {
    const holding = redisStores(redis.url);
    const deciding = redisStores(redis.url, { commandTimeoutMs: COMMAND_TIMEOUT_MS });
    const holder = new Approvals({ timeoutMs: 120_000, store: holding.approvals, grants: holding.grants });
    const reported: ApprovalOutcome[] = [];
    const decider = new Approvals({
      timeoutMs: deciderTimeoutMs,
      store: deciding.approvals,
      grants: deciding.grants,
      onSettled: (_approval, outcome) => reported.push(outcome),
    });
    const fences: number[] = [];
    const fence = deciding.approvals.fence.bind(deciding.approvals);
    const settle = deciding.approvals.settle.bind(deciding.approvals);
    let freezing = false;
    Object.assign(deciding.approvals, {
      fence: (id: string, token: string) => {
        fences.push(Date.now());
        return fence(id, token);
      },
      // Redis freezes (SIGSTOP) as the settle armed by `freezeAtSettle` is sent, after the decider read the
      // approval: it reads the settle when it thaws.
      settle: (...args: Parameters<typeof settle>) => {
        if (freezing) process.kill(redis.pid!, 'SIGSTOP');
        freezing = false;
        return settle(...args);
      },
    });
    const freezeAtSettle = () => {
      freezing = true;
    };
    /**
     * The holder asks for `principal`'s call and the store lists it; the decider's connection has run the
     * settle script once (a decision for no approval), so Redis knows the script when it thaws.
     */
    const askAndPrime = async (principal: string) => {
      await holder.listen();
      const asked = holder.ask(request(principal), new AbortController().signal);
      await expect
        .poll(async () => (await reader.approvals.listPending()).approvals.map(({ id }) => id))
        .toContain(asked.approval.id);
      await expect(decider.decide('none', { approve: true, decidedBy: 'carol' })).rejects.toThrow(
        /No approval/,
      );
      return asked;
    };
    const close = async () => {
      await holder.close();
      await decider.close();
      await holding.close();
      await deciding.close();
    };
    return { deciding, holder, decider, reported, fences, askAndPrime, freezeAtSettle, close };
  }

  /** The scripts Redis refused to run for the user `holder` (its ACL LOG). */
  async function refusedScripts(): Promise<number> {
    const log = (await admin.call('ACL', 'LOG')) as unknown[][];
    return log.filter((entry) => {
      const fields = new Map<unknown, unknown>();
      for (let i = 0; i + 1 < entry.length; i += 2) fields.set(entry[i], entry[i + 1]);
      return fields.get('username') === 'holder' && fields.get('object') === 'evalsha';
    }).length;
  }

  it("ends a call whose expiry the store refused with the store's outcome: a decision that reached it first", async () => {
    await admin.call('ACL', 'SETUSER', 'holder', 'on', '>secret', '~*', '&*', '+@all');
    const stores = redisStores(`redis://holder:secret@127.0.0.1:${redis.port}`, {
      commandTimeoutMs: COMMAND_TIMEOUT_MS,
    });
    const settled: ApprovalOutcome[] = [];
    const warnings: string[] = [];
    const approvals = new Approvals({
      timeoutMs: 3_000,
      store: stores.approvals,
      grants: stores.grants,
      onSettled: (_approval, outcome) => settled.push(outcome),
      onWarning: (message) => warnings.push(message),
    });
    try {
      await approvals.listen();
      const asked = approvals.ask(request('alice'), new AbortController().signal);
      const { id } = asked.approval;
      await expect.poll(async () => (await reader.approvals.listPending()).total).toBe(1);
      // The holding instance loses the store: its commands are refused, its subscription is dropped.
      await admin.call('ACL', 'SETUSER', 'holder', 'resetchannels', '-@all', '+info');
      const elsewhere = new Approvals({ timeoutMs: 3_000, store: reader.approvals, grants: reader.grants });
      const decided = await elsewhere.decide(id, { approve: true, decidedBy: 'carol' });
      expect(decided.outcome.decision).toBe('approved');
      // At its expiry the holder's settlement is refused (Redis's ACL LOG shows it).
      await expect.poll(refusedScripts, { timeout: 10_000 }).toBeGreaterThan(0);
      await admin.call('ACL', 'SETUSER', 'holder', 'allchannels', '+@all');
      const outcome = await asked.outcome;
      expect(outcome).toMatchObject({ decision: 'approved', decidedBy: 'carol' });
      expect(warnings.join('\n')).toContain(`approval ${id} expired, but the store did not record it`);
      expect(settled).toEqual([]);
      expect((await reader.approvals.get(id))?.outcome).toMatchObject({ decision: 'approved' });
    } finally {
      await admin.call('ACL', 'SETUSER', 'holder', 'allchannels', '+@all');
      await approvals.close();
      await stores.close();
    }
  });
});
