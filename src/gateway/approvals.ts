/**
 * Pending approvals: a call the policy says to ask about waits here until a person approves it (once, or
 * always for this caller and tool), denies it (with a reason the model sees), or it expires. An approval
 * is bound to the exact arguments of its call — a decision may name their digest, and one for other
 * arguments is refused — and is used once: a decision for an approval already decided, expired or
 * withdrawn (the caller cancelled) is refused too.
 *
 * The approvals live in an `ApprovalStore` and the "approve always" grants in a `GrantStore` (memory by
 * default; Redis for gateways that run as several instances): a call held by one instance can be decided
 * through any other, whose store settles it exactly once, and the holding instance hears of it (the store's
 * `watch`). The instance that settles an approval is the one that reports it (`onSettled`: an event and an
 * audit record), whichever instance holds the call. Each instance holds so many approvals, of so many
 * bytes of arguments in all and per caller (pending-budget.ts); a call beyond is denied at once.
 * @module
 */
import { LocalErrorCode } from '../index.js';
import { MemoryApprovalStore } from '../stores/memory-approval-store.js';
import {
  type ApprovalStore,
  type PendingListing,
  type SettleCheck,
  type SettleResult,
  type StoredApproval,
} from '../stores/approval-store.js';
import { StoreError } from '../stores/store-error.js';
import type { ApprovalOutcome, GrantGiven, PendingApproval } from '../stores/gateway-records.js';
import type { ListedApproval } from '../stores/listed-approval.js';
import { pageOf, type PendingPageOptions } from '../stores/pending-position.js';
import { MAX_GRANT_MS, MemoryGrantStore, type GrantStore } from '../stores/grant-store.js';
import type { ApprovalDecision, ApprovalRequest } from './approval-decision.js';
import { callerKey, type GatewayCaller } from './caller.js';
import { EndedSessions } from './ended-sessions.js';
import { GatewayError } from './gateway-error.js';
import { PendingBudget } from './pending-budget.js';
import { RetryPermits } from './retry-permits.js';
import { StoreRetries, storeRetryGrace } from './store-retries.js';

export type { ApprovalDecision, ApprovalRequest } from './approval-decision.js';
export type { ApprovalOutcome, GrantGiven, PendingApproval } from '../stores/gateway-records.js';
export {
  MAX_PENDING_APPROVALS,
  MAX_PENDING_APPROVALS_PER_CALLER,
  MAX_PENDING_ARGUMENTS_BYTES,
  MAX_PENDING_ARGUMENTS_BYTES_PER_CALLER,
} from './pending-budget.js';

export interface ApprovalsOptions {
  timeoutMs: number;
  /** Where approvals live (default: in memory). */
  store?: ApprovalStore;
  /** Where "approve always" grants live (default: in memory). */
  grants?: GrantStore;
  /** An approval this instance holds is stored and waits (every instance sharing the store can decide it). */
  onPending?: (approval: PendingApproval) => void;
  /**
   * This instance settled an approval (decided it, or it expired or was withdrawn here); `approval` as listed
   * when the store gave it back settled (arguments longer than `LISTED_ARGUMENTS_BYTES` left out).
   */
  onSettled?: (approval: ListedApproval, outcome: ApprovalOutcome) => void;
  /** Something went wrong that no caller is told of (a grant that could not be stored). */
  onWarning?: (message: string) => void;
}

interface Waiting {
  approval: PendingApproval;
  resolve: (outcome: ApprovalOutcome) => void;
  /** The call fails with the store's error: the store could not say what became of its approval. */
  fail: (error: Error) => void;
}

/**
 * How long an expiry that the store did not record is tried again at most (never longer than the approval
 * waited), every `STORE_RETRY_MS`, before the call fails as the store's failure: its outcome is the
 * store's (a decision may have reached it first), never one guessed here.
 */
const EXPIRY_RETRY_MS = 30_000;

export class Approvals {
  timeoutMs: number;
  readonly #options: ApprovalsOptions;
  #store: ApprovalStore;
  #grants: GrantStore;
  /** The approvals this instance holds a call for. */
  readonly #waiting = new Map<string, Waiting>();
  readonly #budget = new PendingBudget();
  #unwatch: Promise<() => void> | undefined;
  /** The store writes being tried again (`#expire`, `#abandon`, `#confirm`). */
  readonly #retries = new StoreRetries();
  /** Console sessions ended (signed out), kept in the grant store. @internal */
  readonly endedSessions = new EndedSessions(() => this.#grants);
  /** Permits for one retry of an approved call, kept in the grant store. @internal */
  readonly retryPermits = new RetryPermits(() => this.#grants);

  constructor(options: ApprovalsOptions) {
    this.timeoutMs = options.timeoutMs;
    this.#options = options;
    this.#store = options.store ?? new MemoryApprovalStore();
    this.#grants = options.grants ?? new MemoryGrantStore();
  }

  /**
   * Listens for settlements made elsewhere (another instance sharing the store); resolves once it does.
   * `ask` calls it too; call it first where a decision may come from another instance at once.
   */
  listen(): Promise<void> {
    this.#unwatch ??= this.#store.watch({
      settled: (id, outcome) => this.#resolve(id, outcome),
      missed: () => this.#reread(),
    });
    const listening = this.#unwatch;
    // A failed subscription is tried again by the next call.
    listening.catch(() => {
      if (this.#unwatch === listening) this.#unwatch = undefined;
    });
    return listening.then(() => undefined);
  }

  /** Uses other stores (before any approval was asked). @internal */
  useStores(store: ApprovalStore, grants: GrantStore): void {
    this.#store = store;
    this.#grants = grants;
  }

  /** Whether this caller was granted "approve always" for this tool (and the grant still holds). */
  remembered(caller: GatewayCaller, upstream: string, tool: string): Promise<boolean> {
    return this.#grants.has(upstream, grantKey(caller, tool));
  }

  /**
   * The "approve always" grant of this tool to this caller, when one holds: the approval it was given on,
   * who gave it, when and until when (`{}` for a grant stored without saying so: by an older gateway, or
   * in a grant store without `held`); undefined when none holds.
   */
  async grantOf(caller: GatewayCaller, upstream: string, tool: string): Promise<GrantGiven | undefined> {
    const key = grantKey(caller, tool);
    if (this.#grants.held === undefined) return (await this.#grants.has(upstream, key)) ? {} : undefined;
    const held = await this.#grants.held(upstream, key);
    return held === undefined ? undefined : grantGiven(held.note);
  }

  /**
   * Creates a pending approval and resolves with its outcome: a decision (made through any instance
   * sharing the store), expiry, or `withdrawn` once `signal` aborts. Resolves at once with a denial when
   * too many approvals, or too many bytes of arguments (in all, or of this caller), are pending here
   * already; rejects (with the store's `StoreError`) when the approval cannot be stored. `argumentsBytes`:
   * the length in bytes of the arguments' JSON, when the caller has it (measured otherwise). `cancelledBy`:
   * who cancelled the call once `signal` aborts, when a person did (the withdrawal names them; undefined:
   * the caller cancelled).
   */
  ask(
    request: ApprovalRequest,
    signal: AbortSignal,
    argumentsBytes?: number,
    cancelledBy?: () => string | undefined,
  ): { approval: PendingApproval; outcome: Promise<ApprovalOutcome> } {
    const now = Date.now();
    const approval: PendingApproval = Object.freeze({
      id: crypto.randomUUID(),
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + this.timeoutMs).toISOString(),
      ...request,
    });
    const bytes = argumentsBytes ?? Buffer.byteLength(JSON.stringify(request.arguments));
    const release = this.#budget.take(callerKey(request.caller), bytes);
    if (typeof release === 'string') {
      const outcome: ApprovalOutcome = {
        decision: 'denied',
        reason: release,
        decidedBy: 'gateway',
        decidedAt: approval.createdAt,
      };
      return { approval, outcome: Promise.resolve(outcome) };
    }
    const outcome = new Promise<ApprovalOutcome>((resolve, reject) => {
      const timer = setTimeout(() => void this.#expire(approval), this.timeoutMs);
      timer.unref?.();
      const withdraw = () => void this.#withdraw(approval, cancelledBy?.());
      const end = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', withdraw);
        this.#waiting.delete(approval.id);
        release();
      };
      this.#waiting.set(approval.id, {
        approval,
        resolve: (result) => {
          end();
          resolve(result);
        },
        fail: (error) => {
          end();
          reject(error);
        },
      });
      signal.addEventListener('abort', withdraw, { once: true });
      // Listening first: a decision taken elsewhere the moment the approval is stored is heard.
      this.listen()
        .then(() => this.#store.create(approval))
        .then(
          () => {
            if (this.#waiting.get(approval.id)?.approval === approval) this.#options.onPending?.(approval);
            else void this.#settleLate(approval, cancelledBy?.());
          },
          (error: unknown) => {
            const failed = error instanceof Error ? error : new Error(String(error));
            // A create that timed out may still land (Redis read it, then froze): the approval is settled
            // there as withdrawn (or stored so, if it has not landed yet), so it is not listed as waiting.
            if (error instanceof StoreError) {
              const reason = 'the approval store did not store the approval in time';
              void this.#abandon(approval, { decision: 'withdrawn', reason, decidedAt: stamp() });
            }
            if (this.#waiting.get(approval.id)?.approval === approval) this.#fail(approval.id, failed);
          },
        );
    });
    if (signal.aborted) void this.#withdraw(approval, cancelledBy?.());
    return { approval, outcome };
  }

  /**
   * Decides a pending approval, held by this instance or another one sharing the store. Rejects with
   * GatewayError `APPROVAL_NOT_FOUND` (no such id), `APPROVAL_SETTLED` (decided, expired or withdrawn
   * already; `details.outcome` says which) or `APPROVAL_MISMATCH` (the decision names other arguments'
   * digest), or with the store's `StoreError` when it cannot be reached (or, with a shared store, when too
   * many of its writes are being tried again to follow one more that fails: the decision is not sent);
   * throws a RangeError, deciding nothing, for an `alwaysForMs` that is not a positive integer of at most
   * `MAX_GRANT_MS`.
   */
  async decide(
    id: string,
    decision: ApprovalDecision,
  ): Promise<{ approval: PendingApproval; outcome: ApprovalOutcome }> {
    const forMs = decision.alwaysForMs;
    if (forMs !== undefined && !(Number.isSafeInteger(forMs) && forMs > 0 && forMs <= MAX_GRANT_MS))
      throw new RangeError(`alwaysForMs must be a positive integer of at most ${MAX_GRANT_MS} ms (365 days)`);
    const decidedAt = stamp();
    let outcome: ApprovalOutcome;
    let until: number | undefined;
    if (!decision.approve) {
      outcome = { decision: 'denied', decidedBy: decision.decidedBy, decidedAt };
      if (decision.reason !== undefined && decision.reason !== '') outcome.reason = decision.reason;
    } else if (decision.always) {
      until = decision.alwaysForMs === undefined ? undefined : Date.now() + decision.alwaysForMs;
      outcome = { decision: 'approved', always: true, decidedBy: decision.decidedBy, decidedAt };
      if (until !== undefined) outcome.until = new Date(until).toISOString();
    } else {
      outcome = { decision: 'approved', always: false, decidedBy: decision.decidedBy, decidedAt };
    }
    const token = crypto.randomUUID();
    const check: SettleCheck = { token };
    if (decision.argumentsDigest !== undefined) check.argumentsDigest = decision.argumentsDigest;
    // A settlement that times out may land late, until the approval's expiry: its fence (`#confirm`) needs
    // a place among the retried writes, held before the decision is sent (none free: the decision is refused,
    // never sent unfenced), and that expiry, read first when the approval is not held here.
    const fenced = this.#store.fence !== undefined;
    const retry = `decision:${token}`;
    if (fenced && !this.#retries.hold(retry)) {
      const message = `the decision on approval ${id} was not sent: too many store writes are being tried again`;
      throw new StoreError(LocalErrorCode.StoreUnavailable, message, {
        details: { store: 'approval store', operation: 'settle' },
      });
    }
    let result: SettleResult;
    try {
      const expiry = fenced ? await this.#expiryOf(id) : undefined;
      try {
        result = await this.#store.settle(id, outcome, check);
      } catch (error) {
        // Timed out, it may still land (Redis read it, then froze): once the store answers, a decision that
        // landed is reported (and granted) as any other, one that did not is fenced off for good.
        if (error instanceof StoreError && fenced)
          void this.#confirm(id, token, outcome, until, expiry ?? Date.now() + this.timeoutMs);
        throw error;
      }
    } finally {
      this.#retries.release(retry);
    }
    switch (result.status) {
      case 'unknown':
        throw new GatewayError(LocalErrorCode.ApprovalNotFound, `No approval ${id}`, { details: { id } });
      case 'settled-before':
        throw new GatewayError(
          LocalErrorCode.ApprovalSettled,
          `Approval ${id} is settled already (${result.outcome.decision})`,
          { details: { id, outcome: result.outcome } },
        );
      case 'mismatch':
        throw new GatewayError(
          LocalErrorCode.ApprovalMismatch,
          `Approval ${id} is for other arguments (${result.approval.argumentsDigest}, not ${decision.argumentsDigest})`,
          { details: { id, argumentsDigest: result.approval.argumentsDigest } },
        );
      case 'settled':
        break;
    }
    const { approval } = result;
    await this.#made(approval, outcome, until);
    return { approval, outcome };
  }

  /**
   * Until when a decision on approval `id` may land (ms since the epoch): its expiry, as held here or as the
   * store recorded it (the holding instance's `timeoutMs` may be longer than this one's); undefined when the
   * store does not know it.
   */
  async #expiryOf(id: string): Promise<number | undefined> {
    const expiresAt = (this.#waiting.get(id)?.approval ?? (await this.#store.get(id))?.approval)?.expiresAt;
    return expiresAt === undefined ? undefined : Date.parse(expiresAt);
  }

  /** A decision made here: its grant stored ("approve always"), its call told, and it reported. */
  async #made(approval: ListedApproval, outcome: ApprovalOutcome, until: number | undefined): Promise<void> {
    if (outcome.decision === 'approved' && outcome.always) {
      // After the settlement, never before: a decision that lost the race grants nothing.
      const given: GrantGiven = {
        approvalId: approval.id,
        decidedBy: outcome.decidedBy,
        decidedAt: outcome.decidedAt,
        ...(outcome.until === undefined ? {} : { until: outcome.until }),
      };
      await this.#grants
        .grant(approval.upstream, grantKey(approval.caller, approval.tool), until, JSON.stringify(given))
        .catch((error: unknown) =>
          this.#options.onWarning?.(
            `approval ${approval.id} was approved always, but the grant could not be stored: ${String(error)}`,
          ),
        );
    }
    this.#resolve(approval.id, outcome);
    this.#options.onSettled?.(approval, outcome);
  }

  /**
   * A decision whose settlement failed (its decider was told so) may land late: asks the store whether it
   * did (`fence`), every `STORE_RETRY_MS` until the store answers (until `storeRetryGrace` past the
   * approval's `expiry` at most: from then on the store settles it as expired, so nothing lands); one that
   * landed is made as any other (grant, call, report), one that did not never will.
   */
  async #confirm(
    id: string,
    token: string,
    outcome: ApprovalOutcome,
    until: number | undefined,
    expiry: number,
  ): Promise<void> {
    await this.#retries.run(
      `decision:${token}`,
      expiry + storeRetryGrace.ms,
      async () => {
        const found = await this.#store.fence!(id, token);
        if (found.status === 'landed') await this.#made(found.approval, found.outcome, until);
      },
      (error) =>
        this.#options.onWarning?.(
          `the decision on approval ${id} failed, and whether it landed late is unknown: ${String(error)}`,
        ),
    );
  }

  /**
   * The approvals waiting for a decision (in every instance sharing the store), oldest first, as listed:
   * without arguments longer than `LISTED_ARGUMENTS_BYTES` (`get(id)` has them while they are pending).
   */
  pending(): Promise<ListedApproval[]> {
    return this.#store.pending();
  }

  /**
   * `pending()` a page at a time (`page`: after a position, at most so many), with how many wait in all
   * (more than listed when the store's listing stops at its budget) and where the next page starts.
   */
  async listPending(page: PendingPageOptions = {}): Promise<PendingListing> {
    if (this.#store.listPending) return this.#store.listPending(page);
    const approvals = await this.#store.pending();
    const { items, next } = pageOf(approvals, page);
    return next
      ? { approvals: items, total: approvals.length, next }
      : { approvals: items, total: approvals.length };
  }

  /** One approval, pending (no outcome yet) or settled (kept a while past its expiry). */
  get(id: string): Promise<StoredApproval | undefined> {
    return this.#store.get(id);
  }

  /** Forgets every "approve always" grant of an upstream (it was removed or replaced). */
  forgetUpstream(upstream: string): Promise<void> {
    return this.#grants.forget(upstream);
  }

  /** Withdraws every approval this instance holds, and stops listening (the gateway is closing). */
  async close(reason = 'the gateway is shutting down'): Promise<void> {
    const settling = [...this.#waiting.values()].map(({ approval }) =>
      this.#settle(approval, { decision: 'withdrawn', reason, decidedAt: stamp() }),
    );
    this.#retries.stop();
    const unwatch = this.#unwatch;
    this.#unwatch = undefined;
    await Promise.all([
      ...settling,
      unwatch?.then(
        (stop) => stop(),
        () => undefined,
      ),
    ]);
  }

  /** A held call learns its outcome (a settlement heard, made here or elsewhere); false when none waits. */
  #resolve(id: string, outcome: ApprovalOutcome): boolean {
    const waiting = this.#waiting.get(id);
    if (!waiting) return false;
    waiting.resolve(outcome);
    return true;
  }

  /** The call fails with `error`; false when none waits. */
  #fail(id: string, error: Error): boolean {
    const waiting = this.#waiting.get(id);
    if (!waiting) return false;
    waiting.fail(error);
    return true;
  }

  /**
   * At its expiry: settled as expired, unless a decision came first (and was not heard yet). The call's
   * outcome is the one the store holds: a settlement the store did not take (out of reach, too slow) is tried
   * again for `EXPIRY_RETRY_MS` (or as long as the approval waited, if shorter), the call waiting meanwhile;
   * then the call fails with the store's error (never "expired" when a person's decision may have reached
   * the store), and the approval is withdrawn as the store can (`#abandon`), as its caller was told.
   */
  async #expire(approval: PendingApproval): Promise<void> {
    const expired: ApprovalOutcome = { decision: 'expired', decidedAt: stamp() };
    const giveUpAt =
      Date.now() + Math.min(EXPIRY_RETRY_MS, Date.parse(approval.expiresAt) - Date.parse(approval.createdAt));
    const held = () => this.#waiting.get(approval.id)?.approval === approval;
    for (let attempt = 1; ; attempt++) {
      let result: SettleResult;
      try {
        result = await this.#store.settle(approval.id, expired);
      } catch (error) {
        if (!held()) return;
        if (attempt === 1) {
          this.#options.onWarning?.(
            `approval ${approval.id} expired, but the store did not record it: ${String(error)}; trying again`,
          );
        }
        if (Date.now() < giveUpAt && (await this.#retries.wait())) continue;
        this.#fail(approval.id, error instanceof Error ? error : new Error(String(error)));
        const reason = 'the approval store could not be reached at its expiry';
        void this.#abandon(approval, { decision: 'withdrawn', reason, decidedAt: stamp() });
        return;
      }
      if (result.status === 'settled-before' && result.outcome.decision !== 'expired') {
        this.#resolve(approval.id, result.outcome);
        return;
      }
      const outcome = result.status === 'settled-before' ? result.outcome : expired;
      if (this.#resolve(approval.id, outcome)) this.#options.onSettled?.(approval, outcome);
      return;
    }
  }

  /**
   * Settles an approval no call waits for any more (withdrawn, expired, or its create failed) as the store
   * can, tried again every `STORE_RETRY_MS` until the store takes it or `storeRetryGrace` past its expiry:
   * a create that timed out may land late, and the store then lists it as pending while nobody waits. With
   * a store that has `abandon`, the settlement is stored even before the create lands, which then stores
   * nothing. This instance reports a settlement it made or recorded (`onSettled`).
   */
  async #abandon(approval: PendingApproval, outcome: ApprovalOutcome): Promise<void> {
    await this.#retries.run(
      approval.id,
      Date.parse(approval.expiresAt) + storeRetryGrace.ms,
      async () => {
        const result = this.#store.abandon
          ? await this.#store.abandon(approval, outcome)
          : await this.#store.settle(approval.id, outcome);
        if (result.status !== 'settled-before') this.#options.onSettled?.(approval, outcome);
      },
      (error) =>
        this.#options.onWarning?.(
          `approval ${approval.id} could not be settled in the store (${outcome.decision}): ${String(error)}`,
        ),
      () =>
        this.#options.onWarning?.(
          `approval ${approval.id} could not be settled in the store (too many retried)`,
        ),
    );
  }

  /** The call was cancelled, by its caller or by `person`: it ends now; the store learns it as it can. */
  #withdraw(approval: PendingApproval, person: string | undefined): Promise<void> {
    return this.#settle(approval, withdrawal(person));
  }

  /** A call no decision is waited for any more (cancelled, or the gateway closes) ends with `withdrawn`. */
  async #settle(approval: PendingApproval, withdrawn: ApprovalOutcome): Promise<void> {
    if (!this.#resolve(approval.id, withdrawn)) return;
    await this.#abandon(approval, withdrawn);
  }

  /** The call ended before its approval was stored (the caller cancelled): it is withdrawn in the store too. */
  async #settleLate(approval: PendingApproval, person: string | undefined): Promise<void> {
    await this.#abandon(approval, withdrawal(person));
  }

  /** Settlements may have been missed: the approvals held here are read again. */
  #reread(): void {
    for (const { approval } of [...this.#waiting.values()]) {
      this.#store.get(approval.id).then(
        (stored) => {
          const outcome = stored?.outcome;
          // An expiry is this instance's to settle (its timer does).
          if (outcome && outcome.decision !== 'expired') this.#resolve(approval.id, outcome);
        },
        () => undefined,
      );
    }
  }
}

/** A grant's note as stored (JSON of a `GrantGiven`), read back: what of it is well formed. */
function grantGiven(note: string | undefined): GrantGiven {
  if (note === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(note);
  } catch {
    return {};
  }
  if (typeof parsed !== 'object' || parsed === null) return {};
  const given: GrantGiven = {};
  for (const field of ['approvalId', 'decidedBy', 'decidedAt', 'until'] as const) {
    const value = (parsed as Record<string, unknown>)[field];
    if (typeof value === 'string') given[field] = value;
  }
  return given;
}

/** The key a grant is stored under within its upstream's scope: the caller and the tool. */
function grantKey(caller: GatewayCaller, tool: string): string {
  return `${callerKey(caller)}\u0000${tool}`;
}

/** A cancelled call's withdrawal: by the person who cancelled it, else by its caller. */
function withdrawal(person: string | undefined): ApprovalOutcome {
  return person === undefined
    ? { decision: 'withdrawn', reason: 'the caller cancelled the call', decidedAt: stamp() }
    : { decision: 'withdrawn', reason: `cancelled by ${person}`, decidedBy: person, decidedAt: stamp() };
}

function stamp(): string {
  return new Date().toISOString();
}
