import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryApprovalStore } from '../stores/memory-approval-store.js';
import { MemoryGrantStore } from '../stores/grant-store.js';
import {
  Approvals,
  MAX_PENDING_APPROVALS,
  MAX_PENDING_APPROVALS_PER_CALLER,
  MAX_PENDING_ARGUMENTS_BYTES,
  MAX_PENDING_ARGUMENTS_BYTES_PER_CALLER,
  type ApprovalRequest,
  type ApprovalOutcome,
} from './approvals.js';

const REQUEST: ApprovalRequest = {
  caller: { sessionId: 's1' },
  upstream: 'files',
  tool: 'write_file',
  exposedName: 'files__write_file',
  arguments: { path: 'a.txt' },
  argumentsDigest: 'sha256:aa',
  reason: 'rule 1',
};

describe('Approvals', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('expires a pending approval at its timeout, not a millisecond before', async () => {
    const settled: ApprovalOutcome[] = [];
    const approvals = new Approvals({ timeoutMs: 1000, onSettled: (_a, outcome) => settled.push(outcome) });
    const { approval, outcome } = approvals.ask(REQUEST, new AbortController().signal);
    expect(Date.parse(approval.expiresAt) - Date.parse(approval.createdAt)).toBe(1000);
    await vi.advanceTimersByTimeAsync(999);
    expect(settled).toEqual([]);
    expect(await approvals.pending()).toEqual([approval]);
    await vi.advanceTimersByTimeAsync(1);
    await expect(outcome).resolves.toMatchObject({ decision: 'expired' });
    expect(settled).toEqual([expect.objectContaining({ decision: 'expired' })]);
    expect(await approvals.pending()).toEqual([]);
    // A decision that comes too late is refused, saying why.
    await expect(approvals.decide(approval.id, { approve: true, decidedBy: 'me' })).rejects.toMatchObject({
      code: 'APPROVAL_SETTLED',
    });
  });

  it('reports an approval withdrawn before it was stored, which is then never listed', async () => {
    const settled: ApprovalOutcome[] = [];
    const approvals = new Approvals({ timeoutMs: 1000, onSettled: (_a, outcome) => settled.push(outcome) });
    const { approval, outcome } = approvals.ask(REQUEST, AbortSignal.abort());
    await expect(outcome).resolves.toMatchObject({ decision: 'withdrawn' });
    await vi.waitFor(() => expect(settled).toEqual([expect.objectContaining({ decision: 'withdrawn' })]));
    expect(await approvals.pending()).toEqual([]);
    expect((await approvals.get(approval.id))?.outcome).toMatchObject({ decision: 'withdrawn' });
  });

  it('is used once: a second decision is refused', async () => {
    const approvals = new Approvals({ timeoutMs: 1000 });
    const { approval, outcome } = approvals.ask(REQUEST, new AbortController().signal);
    await vi.waitFor(async () => expect(await approvals.pending()).toHaveLength(1));
    expect((await approvals.decide(approval.id, { approve: true, decidedBy: 'me' })).outcome).toMatchObject({
      decision: 'approved',
      always: false,
    });
    await expect(outcome).resolves.toMatchObject({ decision: 'approved', decidedBy: 'me' });
    await expect(approvals.decide(approval.id, { approve: false, decidedBy: 'me' })).rejects.toMatchObject({
      code: 'APPROVAL_SETTLED',
    });
    await expect(approvals.decide('nope', { approve: true, decidedBy: 'me' })).rejects.toMatchObject({
      code: 'APPROVAL_NOT_FOUND',
    });
  });

  it('refuses a decision made for other arguments, and keeps the approval pending', async () => {
    const approvals = new Approvals({ timeoutMs: 1000 });
    const { approval } = approvals.ask(REQUEST, new AbortController().signal);
    await vi.waitFor(async () => expect(await approvals.pending()).toHaveLength(1));
    await expect(
      approvals.decide(approval.id, { approve: true, argumentsDigest: 'sha256:bb', decidedBy: 'me' }),
    ).rejects.toMatchObject({ code: 'APPROVAL_MISMATCH' });
    expect(await approvals.pending()).toHaveLength(1);
    const decided = await approvals.decide(approval.id, {
      approve: true,
      argumentsDigest: 'sha256:aa',
      decidedBy: 'me',
    });
    expect(decided.outcome.decision).toBe('approved');
  });

  it('denies with the reason the decider gave', async () => {
    const approvals = new Approvals({ timeoutMs: 1000 });
    const { approval, outcome } = approvals.ask(REQUEST, new AbortController().signal);
    await vi.waitFor(async () => expect(await approvals.pending()).toHaveLength(1));
    await approvals.decide(approval.id, { approve: false, reason: 'not that file', decidedBy: 'me' });
    await expect(outcome).resolves.toMatchObject({ decision: 'denied', reason: 'not that file' });
  });

  it('remembers "approve always" per caller, upstream and tool, for the time given', async () => {
    const approvals = new Approvals({ timeoutMs: 1000 });
    const { approval } = approvals.ask(REQUEST, new AbortController().signal);
    await vi.waitFor(async () => expect(await approvals.pending()).toHaveLength(1));
    await approvals.decide(approval.id, { approve: true, always: true, alwaysForMs: 5000, decidedBy: 'me' });
    expect(await approvals.remembered({ sessionId: 's1' }, 'files', 'write_file')).toBe(true);
    expect(await approvals.remembered({ sessionId: 's2' }, 'files', 'write_file')).toBe(false);
    expect(await approvals.remembered({ sessionId: 's1' }, 'files', 'delete_file')).toBe(false);
    expect(await approvals.remembered({ sessionId: 's1' }, 'other', 'write_file')).toBe(false);
    await vi.advanceTimersByTimeAsync(4999);
    expect(await approvals.remembered({ sessionId: 's1' }, 'files', 'write_file')).toBe(true);
    await vi.advanceTimersByTimeAsync(1);
    expect(await approvals.remembered({ sessionId: 's1' }, 'files', 'write_file')).toBe(false);
  });

  it('withdraws an approval whose caller cancelled, and forgets grants of a removed upstream', async () => {
    const approvals = new Approvals({ timeoutMs: 1000 });
    const controller = new AbortController();
    const { approval, outcome } = approvals.ask(REQUEST, controller.signal);
    controller.abort();
    await expect(outcome).resolves.toMatchObject({ decision: 'withdrawn' });
    await vi.waitFor(async () =>
      expect((await approvals.get(approval.id))?.outcome?.decision).toBe('withdrawn'),
    );
    const second = approvals.ask(REQUEST, new AbortController().signal);
    await vi.waitFor(async () => expect(await approvals.pending()).toHaveLength(1));
    await approvals.decide(second.approval.id, { approve: true, always: true, decidedBy: 'me' });
    expect(await approvals.remembered({ sessionId: 's1' }, 'files', 'write_file')).toBe(true);
    await approvals.forgetUpstream('files');
    expect(await approvals.remembered({ sessionId: 's1' }, 'files', 'write_file')).toBe(false);
  });

  it(`denies at once beyond ${MAX_PENDING_APPROVALS} pending approvals`, async () => {
    const approvals = new Approvals({ timeoutMs: 1000 });
    const signal = new AbortController().signal;
    // Callers that each stay within their count, until the instance's is taken.
    for (let i = 0; i < MAX_PENDING_APPROVALS; i++)
      approvals.ask({ ...REQUEST, caller: { sessionId: `s${i % 10}` } }, signal);
    const { outcome } = approvals.ask({ ...REQUEST, caller: { sessionId: 'other' } }, signal);
    await expect(outcome).resolves.toMatchObject({
      decision: 'denied',
      decidedBy: 'gateway',
      reason: `${MAX_PENDING_APPROVALS} approvals are pending already; try again later`,
    });
    await vi.waitFor(async () => expect(await approvals.pending()).toHaveLength(MAX_PENDING_APPROVALS));
    await approvals.close();
    expect(await approvals.pending()).toHaveLength(0);
  });

  it(`denies one caller's call beyond ${MAX_PENDING_APPROVALS_PER_CALLER} of its own pending, not another's`, async () => {
    const approvals = new Approvals({ timeoutMs: 1000 });
    const first = new AbortController();
    approvals.ask(REQUEST, first.signal);
    for (let i = 1; i < MAX_PENDING_APPROVALS_PER_CALLER; i++)
      approvals.ask(REQUEST, new AbortController().signal);
    const over = approvals.ask(REQUEST, new AbortController().signal);
    await expect(over.outcome).resolves.toMatchObject({
      decision: 'denied',
      decidedBy: 'gateway',
      reason: `this caller has ${MAX_PENDING_APPROVALS_PER_CALLER} calls waiting for approval already; try again later`,
    });
    const other = approvals.ask({ ...REQUEST, caller: { principal: 'alice' } }, new AbortController().signal);
    // A call withdrawn gives its place back: its caller may ask again.
    first.abort();
    const again = approvals.ask(REQUEST, new AbortController().signal);
    await vi.waitFor(async () => {
      const pending = await approvals.pending();
      expect(pending).toContainEqual(other.approval);
      expect(pending).toContainEqual(again.approval);
      expect(pending).toHaveLength(MAX_PENDING_APPROVALS_PER_CALLER + 1);
    });
    await approvals.close();
  });

  it('denies at once beyond its budgets of pending arguments, in all and per caller, and frees them', async () => {
    const approvals = new Approvals({ timeoutMs: 1000 });
    const of = (sessionId: string): ApprovalRequest => ({ ...REQUEST, caller: { sessionId } });
    const MiB = 1024 * 1024;
    const big = MAX_PENDING_ARGUMENTS_BYTES_PER_CALLER - MiB;
    // One caller: a second call that would take it past its budget is denied, saying why.
    const first = new AbortController();
    approvals.ask(of('a'), first.signal, big);
    const second = approvals.ask(of('a'), new AbortController().signal, 2 * MiB);
    await expect(second.outcome).resolves.toMatchObject({
      decision: 'denied',
      decidedBy: 'gateway',
      reason: expect.stringMatching(/this caller's calls waiting for approval would hold more than 16 MiB/),
    });
    // The instance: callers that each stay within theirs, until the whole budget is taken.
    const callers = Math.floor(MAX_PENDING_ARGUMENTS_BYTES / big) - 1;
    for (let i = 0; i < callers; i++) approvals.ask(of(`b${i}`), new AbortController().signal, big);
    const over = approvals.ask(of('c'), new AbortController().signal, big);
    await expect(over.outcome).resolves.toMatchObject({
      decision: 'denied',
      reason: expect.stringMatching(/the calls waiting for approval would hold more than 64 MiB/),
    });
    await vi.waitFor(async () => expect(await approvals.pending()).toHaveLength(callers + 1));
    // A call withdrawn gives its bytes back: its caller may ask again.
    first.abort();
    const again = approvals.ask(of('a'), new AbortController().signal, big);
    await vi.waitFor(async () => expect(await approvals.pending()).toContainEqual(again.approval));
    await approvals.close();
  });
});

describe('Approvals of two instances sharing stores', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** Two instances on one pair of stores (as two processes on one Redis), recording what each reports. */
  function instances() {
    const store = new MemoryApprovalStore();
    const grants = new MemoryGrantStore();
    const reported: string[] = [];
    const make = (name: string) =>
      new Approvals({
        timeoutMs: 1000,
        store,
        grants,
        onPending: (approval) => reported.push(`${name} pending ${approval.exposedName}`),
        onSettled: (_approval, outcome) => reported.push(`${name} settled ${outcome.decision}`),
      });
    return { a: make('a'), b: make('b'), reported };
  }

  it('resolves the call held by one with a decision taken through the other, which alone reports it', async () => {
    const { a, b, reported } = instances();
    await Promise.all([a.listen(), b.listen()]);
    const { approval, outcome } = a.ask(REQUEST, new AbortController().signal);
    await vi.waitFor(async () => expect(await b.pending()).toEqual([approval]));
    await b.decide(approval.id, { approve: true, always: true, decidedBy: 'bob' });
    await expect(outcome).resolves.toMatchObject({ decision: 'approved', always: true, decidedBy: 'bob' });
    expect(reported).toEqual(['a pending files__write_file', 'b settled approved']);
    // The grant given through b holds for a.
    expect(await a.remembered({ sessionId: 's1' }, 'files', 'write_file')).toBe(true);
    // Its expiry timer, later, changes nothing.
    await vi.advanceTimersByTimeAsync(2000);
    expect(reported).toHaveLength(2);
    await expect(a.decide(approval.id, { approve: false, decidedBy: 'a' })).rejects.toMatchObject({
      code: 'APPROVAL_SETTLED',
    });
  });

  it('expires through the instance holding the call, which reports it; a later decision elsewhere is refused', async () => {
    const { a, b, reported } = instances();
    const { approval, outcome } = a.ask(REQUEST, new AbortController().signal);
    await vi.advanceTimersByTimeAsync(1000);
    await expect(outcome).resolves.toMatchObject({ decision: 'expired' });
    expect(reported).toEqual(['a pending files__write_file', 'a settled expired']);
    await expect(b.decide(approval.id, { approve: true, decidedBy: 'b' })).rejects.toMatchObject({
      code: 'APPROVAL_SETTLED',
      details: { outcome: { decision: 'expired' } },
    });
  });

  it('lets a retry allowance be used once, by either instance', async () => {
    const { a, b } = instances();
    await a.retryPermits.allow('k', 10_000);
    expect(await b.retryPermits.take('k')).toBe(true);
    expect(await a.retryPermits.take('k')).toBe(false);
  });
});
