/**
 * The in-memory approval store: the approvals of this process (see approval-store.ts for what an approval
 * store keeps and how).
 * @module
 */
import type { ApprovalOutcome, PendingApproval } from './gateway-records.js';
import { listedApproval, type ListedApproval } from './listed-approval.js';
import { pageOf, type PendingPageOptions } from './pending-position.js';
import {
  DEFAULT_KEEP_SETTLED_MS,
  MAX_FENCED,
  SETTLED_KEPT,
  type AbandonResult,
  type ApprovalStore,
  type FenceResult,
  type PendingListing,
  type SettleCheck,
  type SettleResult,
  type SettlementWatcher,
  type StoredApproval,
} from './approval-store.js';

export interface MemoryApprovalStoreOptions {
  /** How long a settled approval is remembered past its expiry, in ms (default 10 minutes). */
  keepSettledMs?: number;
  /** The clock, in ms since the epoch (tests). */
  now?: () => number;
}

interface Entry {
  /** Whole while pending (a `PendingApproval`); as listed once settled. */
  approval: ListedApproval;
  expiresAt: number;
  outcome?: ApprovalOutcome;
  /** The token of the settlement that settled it. */
  token?: string;
  /** Tokens fenced (`fence`) while it is pending, the latest `MAX_FENCED`: settlements with them settle nothing. */
  fenced?: Set<string>;
}

/** The in-memory default: the approvals of this process. */
export class MemoryApprovalStore implements ApprovalStore {
  /** In creation order. */
  readonly #entries = new Map<string, Entry>();
  readonly #watchers = new Set<SettlementWatcher>();
  readonly #keepMs: number;
  readonly #now: () => number;

  constructor(options: MemoryApprovalStoreOptions = {}) {
    this.#keepMs = options.keepSettledMs ?? DEFAULT_KEEP_SETTLED_MS;
    this.#now = options.now ?? Date.now;
  }

  create(approval: PendingApproval): Promise<void> {
    this.#sweep();
    if (this.#entries.has(approval.id)) {
      return Promise.reject(new Error(`An approval with the id ${approval.id} exists already`));
    }
    const expiresAt = Date.parse(approval.expiresAt);
    if (!Number.isFinite(expiresAt)) return Promise.reject(new TypeError('expiresAt is not a date'));
    this.#entries.set(approval.id, { approval: structuredClone(approval), expiresAt });
    return Promise.resolve();
  }

  get(id: string): Promise<StoredApproval | undefined> {
    const entry = this.#live(id);
    if (!entry) return Promise.resolve(undefined);
    const outcome = entry.outcome ?? this.#expiry(entry);
    const approval = structuredClone(entry.approval);
    return Promise.resolve(
      outcome ? { approval, outcome: structuredClone(outcome) } : { approval: approval as PendingApproval },
    );
  }

  pending(): Promise<ListedApproval[]> {
    const now = this.#now();
    const waiting: ListedApproval[] = [];
    for (const entry of this.#entries.values()) {
      if (!entry.outcome && now < entry.expiresAt)
        waiting.push(structuredClone(listedApproval(entry.approval)));
    }
    return Promise.resolve(waiting);
  }

  /** A page of the pending approvals (every one by default: one process holds at most its budget of them). */
  async listPending(page: PendingPageOptions = {}): Promise<PendingListing> {
    const waiting = await this.pending();
    const { items, next } = pageOf(waiting, page);
    return next
      ? { approvals: items, total: waiting.length, next }
      : { approvals: items, total: waiting.length };
  }

  settle(id: string, outcome: ApprovalOutcome, check: SettleCheck = {}): Promise<SettleResult> {
    const entry = this.#live(id);
    if (!entry) return Promise.resolve({ status: 'unknown' });
    if (check.token !== undefined && entry.fenced?.has(check.token))
      return Promise.resolve({ status: 'unknown' });
    const before = entry.outcome ?? this.#expiry(entry);
    if (before) {
      if (!entry.outcome) keepSettled(entry, before);
      const approval = structuredClone(entry.approval);
      return Promise.resolve({ status: 'settled-before', approval, outcome: structuredClone(before) });
    }
    // Pending: whole.
    const approval = structuredClone(entry.approval) as PendingApproval;
    if (check.argumentsDigest !== undefined && check.argumentsDigest !== entry.approval.argumentsDigest) {
      return Promise.resolve({ status: 'mismatch', approval });
    }
    keepSettled(entry, structuredClone(outcome));
    if (check.token !== undefined) entry.token = check.token;
    for (const watcher of this.#watchers) {
      try {
        watcher.settled(id, structuredClone(outcome));
      } catch {
        // a watcher's failure is its own
      }
    }
    return Promise.resolve({ status: 'settled', approval, outcome: structuredClone(outcome) });
  }

  fence(id: string, token: string): Promise<FenceResult> {
    const entry = this.#live(id);
    if (!entry) return Promise.resolve({ status: 'unknown' });
    if (entry.outcome && entry.token === token) {
      const approval = structuredClone(entry.approval);
      return Promise.resolve({ status: 'landed', approval, outcome: structuredClone(entry.outcome) });
    }
    // A settlement landing on a settled or expired approval changes nothing: only a pending one keeps tokens.
    if (entry.outcome || this.#expiry(entry)) return Promise.resolve({ status: 'fenced' });
    const fenced = (entry.fenced ??= new Set());
    fenced.add(token);
    if (fenced.size > MAX_FENCED) fenced.delete(fenced.values().next().value!);
    return Promise.resolve({ status: 'fenced' });
  }

  async abandon(approval: PendingApproval, outcome: ApprovalOutcome): Promise<AbandonResult> {
    if (this.#live(approval.id)) {
      const result = await this.settle(approval.id, outcome);
      if (result.status === 'settled' || result.status === 'settled-before') return result;
    }
    this.#sweep();
    const expiresAt = Date.parse(approval.expiresAt);
    if (!Number.isFinite(expiresAt)) throw new TypeError('expiresAt is not a date');
    const entry: Entry = {
      approval: structuredClone(listedApproval(approval)),
      expiresAt,
      outcome: structuredClone(outcome),
    };
    this.#entries.set(approval.id, entry);
    return { status: 'recorded' };
  }

  watch(watcher: SettlementWatcher): Promise<() => void> {
    this.#watchers.add(watcher);
    return Promise.resolve(() => void this.#watchers.delete(watcher));
  }

  /** The outcome of an unsettled approval past its expiry. */
  #expiry(entry: Entry): ApprovalOutcome | undefined {
    if (this.#now() < entry.expiresAt) return undefined;
    return { decision: 'expired', decidedAt: new Date(entry.expiresAt).toISOString() };
  }

  #live(id: string): Entry | undefined {
    const entry = this.#entries.get(id);
    if (entry && this.#now() >= entry.expiresAt + this.#keepMs) {
      this.#entries.delete(id);
      return undefined;
    }
    return entry;
  }

  /** Drops what is past keeping, and the oldest settled approvals past the bound (one pass; approvals come at a person's pace). */
  #sweep(): void {
    const now = this.#now();
    let settled = 0;
    for (const entry of this.#entries.values()) if (entry.outcome || now >= entry.expiresAt) settled++;
    for (const [id, entry] of this.#entries) {
      const done = entry.outcome !== undefined || now >= entry.expiresAt;
      if (!done) continue;
      if (now >= entry.expiresAt + this.#keepMs || settled > SETTLED_KEPT) {
        this.#entries.delete(id);
        settled--;
      }
    }
  }
}

/** Settles `entry` with `outcome`: it keeps no fenced tokens, and its approval as listed (not its large arguments). */
function keepSettled(entry: Entry, outcome: ApprovalOutcome): void {
  entry.outcome = outcome;
  entry.approval = listedApproval(entry.approval);
  delete entry.fenced;
}
