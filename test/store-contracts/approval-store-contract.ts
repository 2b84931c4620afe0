// The ApprovalStore contract: what every implementation (memory, Redis) does, tested the same way. The
// two handles are two processes for Redis; a decision from each at once is settled exactly once.
import { describe, expect, it } from 'vitest';
import type { ApprovalStore, SettleResult } from '../../src/stores/approval-store.js';
import type { ApprovalOutcome, PendingApproval } from '../../src/stores/gateway-records.js';
import { LISTED_ARGUMENTS_BYTES } from '../../src/stores/listed-approval.js';
import type { PendingPosition } from '../../src/stores/pending-position.js';
import type { MakeStores } from './harness.js';

/** The fenced tokens a pending approval keeps (`MAX_FENCED` in src/stores/approval-store.ts). */
const MAX_FENCED = 32;
/** The settled approvals a store keeps (`SETTLED_KEPT` in src/stores/approval-store.ts). */
const SETTLED_KEPT = 1_000;

export function describeApprovalStoreContract(name: string, make: MakeStores<ApprovalStore, void>): void {
  describe(`ApprovalStore contract: ${name}`, () => {
    const approval = (now: number, id = 'a1', timeoutMs = 60_000): PendingApproval => ({
      id,
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + timeoutMs).toISOString(),
      caller: { principal: 'alice', sessionId: 's1' },
      upstream: 'files',
      tool: 'write_file',
      exposedName: 'files__write_file',
      annotations: { destructiveHint: true },
      arguments: { path: 'ünï "code".txt', n: 1.5, nested: { list: [1, null] } },
      argumentsDigest: 'sha256:aa',
      reason: 'the policy asks',
    });
    const approve = (by: string): ApprovalOutcome => ({
      decision: 'approved',
      always: false,
      decidedBy: by,
      decidedAt: new Date().toISOString(),
    });

    it('gives back a pending approval to every handle, and lists it as pending', async () => {
      const { a, b, clock } = await make();
      const pending = approval(clock.now());
      await a.create(pending);
      expect(await b.get('a1')).toEqual({ approval: pending });
      expect(await b.pending()).toEqual([pending]);
      expect(await a.get('nope')).toBeUndefined();
      await expect(b.create(pending)).rejects.toThrow(/exists already/);
    });

    it('lists the pending approvals with how many wait in all (listPending), as pending() lists them', async () => {
      const { a, b, clock } = await make();
      expect(await b.listPending?.()).toEqual({ approvals: [], total: 0 });
      for (const id of ['a1', 'a2', 'a3']) await a.create(approval(clock.now(), id));
      await b.settle('a2', approve('alice'));
      const listing = await b.listPending?.();
      expect(listing).toEqual({ approvals: await a.pending(), total: 2 });
      expect(listing?.approvals.map((listed) => listed.id)).toEqual(['a1', 'a3']);
    });

    it('pages by creation time then id (listPending({ after, limit })), each pending one once while others are settled', async () => {
      const { a, b, clock } = await make();
      const at = clock.now();
      // Ties of one millisecond go by id, byte by byte ('-' before the digits, upper case before lower).
      const created: [string, number][] = [
        ['t-b', at],
        ['t-a', at],
        ['t-10', at],
        ['t-1', at],
        ['T-z', at],
        ['early', at - 5],
        ['late-1', at + 5],
        ['late-0', at + 5],
        ['last', at + 9],
      ];
      for (const [id, when] of created)
        await a.create({ ...approval(when, id), createdAt: new Date(when).toISOString() });
      const order = ['early', 'T-z', 't-1', 't-10', 't-a', 't-b', 'late-0', 'late-1', 'last'];
      const first = await b.listPending?.({ limit: 100 });
      expect(first?.approvals.map((listed) => listed.id)).toEqual(order);
      expect(first?.next).toBeUndefined();

      const seen: string[] = [];
      let after: PendingPosition | undefined;
      let pages = 0;
      do {
        const page = await b.listPending?.({ limit: 2, ...(after ? { after } : {}) });
        expect(page?.approvals.length).toBeLessThanOrEqual(2);
        seen.push(...(page?.approvals.map((listed) => listed.id) ?? []));
        after = page?.next;
        // Between pages: one listed already and one not listed yet are settled.
        if (++pages === 2) {
          await a.settle('early', approve('alice'));
          await a.settle('late-1', approve('alice'));
        }
      } while (after !== undefined && pages < 20);
      expect(seen).toEqual(order.filter((id) => id !== 'late-1'));
    });

    it('settles once: a second decision learns the first, and the approval leaves the pending list', async () => {
      const { a, b, clock } = await make();
      await a.create(approval(clock.now()));
      const first = approve('alice');
      expect(await b.settle('a1', first)).toMatchObject({ status: 'settled', outcome: first });
      const denied: ApprovalOutcome = { decision: 'denied', decidedBy: 'bob', decidedAt: first.decidedAt };
      expect(await a.settle('a1', denied)).toMatchObject({ status: 'settled-before', outcome: first });
      expect(await a.get('a1')).toMatchObject({ outcome: first });
      expect(await a.pending()).toEqual([]);
      expect(await a.settle('nope', first)).toEqual({ status: 'unknown' });
    });

    it('lets exactly one of many racing decisions from both handles win', async () => {
      const { a, b, clock } = await make();
      await a.create(approval(clock.now()));
      const results: SettleResult[] = await Promise.all(
        Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? a : b).settle('a1', approve(`d${i}`))),
      );
      const won = results.filter((result) => result.status === 'settled');
      expect(won).toHaveLength(1);
      const winner = won[0]!.status === 'settled' ? won[0]!.outcome : undefined;
      for (const result of results.filter((r) => r.status !== 'settled')) {
        expect(result).toMatchObject({ status: 'settled-before', outcome: winner });
      }
    });

    it('lists an approval whose arguments are large without them, and gives them whole by id', async () => {
      const { a, b, clock } = await make();
      const small = approval(clock.now(), 'small');
      const large = { ...approval(clock.now() + 1, 'large'), arguments: { text: 'é'.repeat(10_000) } };
      await a.create(small);
      await a.create(large);
      const { arguments: _omitted, ...rest } = large;
      expect(await b.pending()).toEqual([
        small,
        { ...rest, argumentsOmitted: true, argumentsBytes: LISTED_ARGUMENTS_BYTES + 3_627 },
      ]);
      expect(await b.get('large')).toEqual({ approval: large });
    });

    it('keeps a settled approval as listed: arguments past LISTED_ARGUMENTS_BYTES go, their length and digest stay', async () => {
      const { a, b, clock } = await make();
      const large = (id: string, timeoutMs?: number): PendingApproval => ({
        ...approval(clock.now(), id, timeoutMs),
        arguments: { text: 'é'.repeat(10_000) },
      });
      const listed = ({ arguments: _whole, ...fields }: PendingApproval) => ({
        ...fields,
        argumentsOmitted: true,
        argumentsBytes: LISTED_ARGUMENTS_BYTES + 3_627,
      });
      // Settled by a decision: the decider is given them whole, once; the store keeps them listed.
      const decided = large('decided');
      await a.create(decided);
      const first = approve('alice');
      expect(await b.settle('decided', first, { token: 't1' })).toEqual({
        status: 'settled',
        approval: decided,
        outcome: first,
      });
      expect(await a.get('decided')).toEqual({ approval: listed(decided), outcome: first });
      expect(await a.settle('decided', approve('bob'))).toEqual({
        status: 'settled-before',
        approval: listed(decided),
        outcome: first,
      });
      expect(await b.fence?.('decided', 't1')).toEqual({
        status: 'landed',
        approval: listed(decided),
        outcome: first,
      });
      // Withdrawn before it was stored (abandon): recorded as listed.
      const withdrawn: ApprovalOutcome = {
        decision: 'withdrawn',
        reason: 'gone',
        decidedAt: first.decidedAt,
      };
      const abandoned = large('abandoned');
      expect(await b.abandon?.(abandoned, withdrawn)).toEqual({ status: 'recorded' });
      expect(await a.get('abandoned')).toEqual({ approval: listed(abandoned), outcome: withdrawn });
      // Small arguments are kept whole.
      const small = approval(clock.now(), 'small');
      await a.create(small);
      await b.settle('small', first);
      expect(await a.get('small')).toEqual({ approval: small, outcome: first });
      // Settled as expired (by a late decision): listed too.
      const late = large('late', 500);
      await a.create(late);
      await clock.after(700, async () => {
        expect(await b.get('late')).toMatchObject({ outcome: { decision: 'expired' } });
      });
      expect(await b.settle('late', approve('late'))).toMatchObject({
        status: 'settled-before',
        approval: listed(late),
      });
      expect(await a.get('late')).toMatchObject({ approval: listed(late) });
    });

    it('refuses a decision for other arguments, and leaves the approval pending', async () => {
      const { a, b, clock } = await make();
      await a.create(approval(clock.now()));
      expect(await b.settle('a1', approve('x'), { argumentsDigest: 'sha256:bb' })).toMatchObject({
        status: 'mismatch',
        approval: { id: 'a1' },
      });
      expect(await a.pending()).toHaveLength(1);
      expect(await b.settle('a1', approve('x'), { argumentsDigest: 'sha256:aa' })).toMatchObject({
        status: 'settled',
      });
    });

    it('tells watchers on every handle of a settlement, once', async () => {
      const { a, b, clock } = await make();
      const heard: string[] = [];
      const stop = await b.watch({ settled: (id, outcome) => heard.push(`${id}:${outcome.decision}`) });
      await a.create(approval(clock.now()));
      await a.create(approval(clock.now(), 'a2'));
      await a.settle('a1', approve('alice'));
      await a.settle('a1', approve('again'));
      await b.settle('a2', {
        decision: 'withdrawn',
        reason: 'cancelled',
        decidedAt: new Date().toISOString(),
      });
      await expect.poll(() => heard).toEqual(['a1:approved', 'a2:withdrawn']);
      stop();
    });

    it('abandons an approval never stored as settled, so that its create landing late stores nothing', async () => {
      const { a, b, clock } = await make();
      const withdrawn: ApprovalOutcome = {
        decision: 'withdrawn',
        reason: 'not stored in time',
        decidedAt: new Date().toISOString(),
      };
      const lost = approval(clock.now(), 'lost');
      expect(await b.abandon?.(lost, withdrawn)).toEqual({ status: 'recorded' });
      await expect(a.create(lost)).rejects.toThrow(/exists already/);
      expect(await a.pending()).toEqual([]);
      expect(await a.get('lost')).toEqual({ approval: lost, outcome: withdrawn });
      expect(await a.settle('lost', approve('alice'))).toMatchObject({
        status: 'settled-before',
        outcome: withdrawn,
      });
      // One stored (the create landed first) is settled as settle settles it, once.
      const landed = approval(clock.now(), 'landed');
      await a.create(landed);
      expect(await b.abandon?.(landed, withdrawn)).toEqual({
        status: 'settled',
        approval: landed,
        outcome: withdrawn,
      });
      expect(await a.abandon?.(landed, withdrawn)).toMatchObject({ status: 'settled-before' });
      expect(await b.listPending?.()).toEqual({ approvals: [], total: 0 });
    });

    it('says whether a settlement named by a token landed, and fences it off for good when it had not', async () => {
      const { a, b, clock } = await make();
      const pending = approval(clock.now(), 'f1');
      await a.create(pending);
      const first = approve('alice');
      expect(await b.fence?.('f1', 't1')).toEqual({ status: 'fenced' });
      // The settlement that timed out lands after the fence: it settles nothing.
      expect(await a.settle('f1', first, { token: 't1' })).toEqual({ status: 'unknown' });
      expect(await b.pending()).toEqual([pending]);
      expect(await a.settle('f1', first, { token: 't2' })).toMatchObject({ status: 'settled' });
      expect(await b.fence?.('f1', 't2')).toEqual({ status: 'landed', approval: pending, outcome: first });
      expect(await b.fence?.('gone', 't3')).toEqual({ status: 'unknown' });
    });

    it('keeps the latest MAX_FENCED tokens fenced on a pending approval: the oldest goes past them', async () => {
      const { a, b, clock } = await make();
      await a.create(approval(clock.now(), 'f2'));
      for (let i = 0; i <= MAX_FENCED; i++)
        expect(await b.fence?.('f2', `t${i}`)).toEqual({ status: 'fenced' });
      expect(await a.settle('f2', approve('late'), { token: `t${MAX_FENCED}` })).toEqual({
        status: 'unknown',
      });
      expect(await a.settle('f2', approve('late'), { token: 't1' })).toEqual({ status: 'unknown' });
      // The bound's price: a settlement fenced MAX_FENCED fences ago that lands now settles the approval.
      expect(await a.settle('f2', approve('oldest'), { token: 't0' })).toMatchObject({ status: 'settled' });
    });

    it('keeps the latest SETTLED_KEPT settled approvals: approvals asked and withdrawn in a loop do not pile up', async () => {
      const { a, b, clock } = await make();
      const withdrawn: ApprovalOutcome = {
        decision: 'withdrawn',
        reason: 'the caller cancelled the call',
        decidedAt: new Date().toISOString(),
      };
      const count = SETTLED_KEPT + 5;
      for (let i = 0; i < count; i += 100) {
        const ids = Array.from({ length: Math.min(100, count - i) }, (_, j) => `w${i + j}`);
        await Promise.all(ids.map((id) => a.create(approval(clock.now(), id))));
        for (const id of ids) expect(await a.settle(id, withdrawn)).toMatchObject({ status: 'settled' });
      }
      await a.create(approval(clock.now(), 'last'));
      for (let i = 0; i < 5; i++) expect(await b.get(`w${i}`)).toBeUndefined();
      expect(await b.get('w5')).toMatchObject({ outcome: withdrawn });
      expect(await b.settle(`w${count - 1}`, approve('late'))).toMatchObject({ status: 'settled-before' });
      expect((await b.pending()).map(({ id }) => id)).toEqual(['last']);
    });

    it('reads an approval past its expiry as expired, and settles it so', async () => {
      const { a, b, clock } = await make();
      const pending = approval(clock.now(), 'a1', 500);
      await a.create(pending);
      await clock.after(700, async () => {
        expect(await b.pending()).toEqual([]);
        expect(await b.get('a1')).toMatchObject({
          outcome: { decision: 'expired', decidedAt: pending.expiresAt },
        });
      });
      expect(await b.settle('a1', approve('late'))).toMatchObject({
        status: 'settled-before',
        outcome: { decision: 'expired', decidedAt: pending.expiresAt },
      });
    });
  });
}
