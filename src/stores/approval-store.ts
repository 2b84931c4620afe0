/**
 * Pending approvals of a gateway, where every instance that shares the store sees them: a call held for a
 * person is stored as it waits; a decision settles it exactly once (`settle` is atomic: of two decisions
 * for one approval, from one instance or two, one settles it and the other learns what it was settled
 * with); whoever waits for it hears of the settlement (`watch`). An approval not settled by its
 * `expiresAt` reads as expired. Settled approvals are kept `keepSettledMs` past their expiry, so that a
 * late decision is answered "already settled" rather than "unknown": the latest `SETTLED_KEPT` (1,000) at most,
 * each as listed (`listedApproval`: arguments longer than `LISTED_ARGUMENTS_BYTES` left out, their length and
 * digest kept), so that they hold 16 MiB at most, not 1,000 calls' arguments of up to 4 MiB each.
 * @module
 */
import type { ApprovalOutcome, PendingApproval } from './gateway-records.js';
import type { ListedApproval } from './listed-approval.js';
import type { PendingPageOptions, PendingPosition } from './pending-position.js';

/**
 * An approval as the store holds it: pending (no outcome), with its arguments whole; or settled, as listed
 * (arguments longer than `LISTED_ARGUMENTS_BYTES` left out: `argumentsOmitted`, `argumentsBytes`).
 */
export type StoredApproval =
  { approval: PendingApproval; outcome?: undefined } | { approval: ListedApproval; outcome: ApprovalOutcome };

/** What `settle` did. */
export type SettleResult =
  /** This call settled it with the given outcome (`approval` whole, as it was pending). */
  | { status: 'settled'; approval: PendingApproval; outcome: ApprovalOutcome }
  /**
   * It was settled before (or had expired): `outcome` is what it was settled with; nothing changed.
   * `approval` is as the store keeps a settled one: as listed.
   */
  | { status: 'settled-before'; approval: ListedApproval; outcome: ApprovalOutcome }
  /** The check named other arguments than the approval's: nothing changed. */
  | { status: 'mismatch'; approval: PendingApproval }
  /** No such approval (never, or no longer). */
  | { status: 'unknown' };

/** What a decision that timed out (`settle` with a `token`) became, as `fence` finds it. */
export type FenceResult =
  /** It landed: the approval is settled with it (this outcome); `approval` as listed. */
  | { status: 'landed'; approval: ListedApproval; outcome: ApprovalOutcome }
  /** It had not landed: it never will (a `settle` with this token landing later changes nothing). */
  | { status: 'fenced' }
  /** No such approval (never, or no longer). */
  | { status: 'unknown' };

/** What `abandon` did: what `settle` does, or it recorded an approval never stored as settled. */
export type AbandonResult =
  | Exclude<SettleResult, { status: 'unknown' | 'mismatch' }>
  /** The approval was not stored (yet): it is now, settled with the outcome, so a late `create` does nothing. */
  | { status: 'recorded' };

export interface SettlementWatcher {
  /** An approval was settled, by this process or another one sharing the store. */
  settled(id: string, outcome: ApprovalOutcome): void;
  /**
   * Settlements may have been missed (the connection to a shared store was lost, and is back): read the
   * approvals you wait for again.
   */
  missed?(): void;
}

/** What `settle` checks, and the token that `fence` may ask about. */
export interface SettleCheck {
  /** The digest of the arguments the decider saw: a settlement for other arguments is refused. */
  argumentsDigest?: string;
  /** Names this settlement, for `fence`. */
  token?: string;
}

/** The pending approvals as one listing gives them, and how many wait in all. */
export interface PendingListing {
  /** Oldest first, as listed (`pending()`'s). */
  approvals: ListedApproval[];
  /**
   * How many approvals wait in all: more than `approvals.length` when the listing stops at its budget (the
   * Redis store's `maxListed`, 4,000 by default); then an upper bound (beyond the budget, an approval that
   * expired unseen counts until a listing reaches it).
   */
  total: number;
  /** Present when more pending approvals follow this page: the position to list the next page after. */
  next?: PendingPosition;
}

export interface ApprovalStore {
  /** Stores a pending approval. Resolves once every process sharing the store finds it. */
  create(approval: PendingApproval): Promise<void>;
  /**
   * The approval, pending (its arguments whole) or settled (as listed); an unsettled one past its expiry
   * reads as expired. Undefined when unknown.
   */
  get(id: string): Promise<StoredApproval | undefined>;
  /**
   * The approvals waiting for a decision (not settled, not expired), oldest first, as listed: arguments
   * whose JSON is longer than `LISTED_ARGUMENTS_BYTES` are left out (`argumentsOmitted`, `argumentsBytes`;
   * `get(id)` has them while they are pending), so that a listing costs little whatever the calls held.
   */
  pending(): Promise<ListedApproval[]>;
  /**
   * `pending()`, a page at a time (`page`: after a position, at most so many; see `PendingPosition`), with
   * how many approvals wait in all, so that a listing cut at its budget says so, and where the next page
   * starts (`next`); a store without it lists everything (`total` is then the listing's length).
   */
  listPending?(page?: PendingPageOptions): Promise<PendingListing>;
  /**
   * Settles a pending approval with `outcome`, atomically, unless it is settled already, expired (then it
   * is settled as expired at its `expiresAt`, and that is the answer), or `check.argumentsDigest` is given
   * and is not the approval's. Watchers everywhere hear of a settlement this call made.
   */
  settle(id: string, outcome: ApprovalOutcome, check?: SettleCheck): Promise<SettleResult>;
  /**
   * A `settle` given `token` failed (timed out: a shared store may still run it, late): whether it landed,
   * and if it did not, that it never will (a settle with a fenced token settles nothing). So the instance
   * that decided learns, once the store answers, whether its decision was made, and reports it. A pending
   * approval keeps the latest 32 tokens fenced; a settled or expired one keeps none (nothing lands
   * on it).
   */
  fence?(id: string, token: string): Promise<FenceResult>;
  /**
   * Settles an approval whose `create` failed (a shared store that timed out may still run it, late) or
   * whose caller stopped waiting, with `outcome`, whether it was stored or not: one stored is settled as
   * `settle` settles it; one not stored (yet) is recorded settled, kept as a settled approval is, so that a
   * `create` landing late finds it and stores nothing. An approval nobody waits for is thus never listed as
   * pending for longer than it takes the abandon to land, whatever the order the two writes reach the store
   * in. A store without it settles (a `create` landing after that lists the approval until it expires).
   */
  abandon?(approval: PendingApproval, outcome: ApprovalOutcome): Promise<AbandonResult>;
  /** Calls `watcher` for every settlement from now on; resolves (with the unsubscribe) once it is listening. */
  watch(watcher: SettlementWatcher): Promise<() => void>;
}

export const DEFAULT_KEEP_SETTLED_MS = 10 * 60_000;
/**
 * Tokens a pending approval keeps fenced at most (`fence`), the latest: past them the oldest goes, so that
 * decisions timing out one after another on one approval do not grow it without end.
 */
export const MAX_FENCED = 32;
/**
 * Settled approvals a store keeps at most (the oldest go first, within `keepSettledMs` past their expiry), so
 * that approvals asked and withdrawn in a loop, each kept with its arguments, do not grow it without end.
 */
export const SETTLED_KEPT = 1_000;
