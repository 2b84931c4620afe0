// The pending approvals as the console lists them: a first page (the event stream's snapshot, or fetched when
// the stream is refused), then the pages after it read one at a time up to what the page keeps (the rest
// counted, listed as those are decided); the approvals announced and decided on the stream, and the latest
// decisions. It reads and writes the lists through the state it is given (Live's).
import { api, ApiError, type ApprovalOutcome, type ApprovalsListing, type ListedApproval } from './api.js';

export interface Decided {
  approval: ListedApproval;
  outcome: ApprovalOutcome;
}

/** What of the console's state the approvals are. */
export interface ApprovalsState {
  approvals: ListedApproval[];
  /** Pending approvals the gateway's listing left out (it lists at most so many: its Redis budget). */
  unlistedApprovals: number;
  /** The latest settled approvals, newest first. */
  decided: Decided[];
  /** Why the next page of the pending approvals could not be read (it is read again); undefined once it is. */
  approvalsUnread?: string | undefined;
}

/** Where the lists live: read with `state`, changed with `set`. */
export interface ApprovalsHost {
  readonly state: ApprovalsState;
  set(patch: Partial<ApprovalsState>): void;
}

/** Pending approvals the page keeps at most (read page after page), and decisions listed. */
export const KEPT_APPROVALS = 2_000;
const KEPT_DECIDED = 50;
/** Pending approvals read a page at a time (the gateway's default page). */
const PAGE = 500;
/** A page that could not be read is read again after 0.5 s, 1 s, 2 s … 10 s at most between tries. */
const RETRY_MS = 500;
const RETRY_MAX_MS = 10_000;

export class ApprovalPages {
  readonly #host: ApprovalsHost;
  /** The pending approvals' next page (the last one read's `nextCursor`); undefined: all are read. */
  #cursor: string | undefined;
  #generation = 0;
  #reading = false;
  #readAgain = false;
  /** Approvals announced while older ones waited unlisted: listed by the pages, or after the last one. */
  readonly #arrived = new Map<string, ListedApproval>();
  /** The next try of a page that could not be read, and how many tries in a row failed. */
  #retry: ReturnType<typeof setTimeout> | undefined;
  #failures = 0;

  constructor(host: ApprovalsHost) {
    this.#host = host;
  }

  /**
   * A first page of the pending approvals (the snapshot, or fetched): they are listed, and the next pages
   * read (`#readOn`) up to what the page keeps.
   */
  firstPage(listing: ApprovalsListing): void {
    this.#generation++;
    this.#arrived.clear();
    clearTimeout(this.#retry);
    this.#failures = 0;
    this.#cursor = listing.nextCursor;
    const approvals = listing.approvals.slice(0, KEPT_APPROVALS);
    this.#host.set({
      approvals,
      unlistedApprovals: Math.max(0, listing.total - approvals.length),
      approvalsUnread: undefined,
    });
    if (this.#cursor !== undefined) void this.#readOn();
  }

  /** No more pages read (signed out): a page being read or to be read again is left unlisted. */
  stop(): void {
    this.#generation++;
    clearTimeout(this.#retry);
  }

  /** An approval that starts waiting; false when it was listed already. */
  pending(approval: ListedApproval): boolean {
    const { approvals, unlistedApprovals } = this.#host.state;
    if (approvals.some((a) => a.id === approval.id)) return false;
    // Older ones wait unlisted, or the page holds what it keeps: this one is listed after them, by the pages
    // still to read or as listed ones go.
    if (unlistedApprovals > 0 || this.#cursor !== undefined || approvals.length >= KEPT_APPROVALS) {
      if (this.#arrived.size < KEPT_APPROVALS) this.#arrived.set(approval.id, approval);
      this.#host.set({ unlistedApprovals: unlistedApprovals + 1 });
    } else this.#host.set({ approvals: [...approvals, approval] });
    return true;
  }

  /** An approval settled (the stream said so): its card goes, its outcome is listed. */
  decided(decided: Decided): void {
    const { approvals, unlistedApprovals } = this.#host.state;
    const listedOne = approvals.some((a) => a.id === decided.approval.id);
    this.#arrived.delete(decided.approval.id);
    this.#host.set({
      approvals: approvals.filter((a) => a.id !== decided.approval.id),
      // One the listing left out: one fewer unlisted.
      unlistedApprovals: listedOne ? unlistedApprovals : Math.max(0, unlistedApprovals - 1),
      decided: [decided, ...this.#host.state.decided].slice(0, KEPT_DECIDED),
    });
    // A listed one went while others were left out: the next of them are listed now — read on, or (all
    // pages read) the oldest of those announced meanwhile.
    if (!listedOne || unlistedApprovals === 0) return;
    const next = this.#cursor === undefined ? this.#arrived.values().next() : undefined;
    if (next === undefined || next.done) return void this.#readOn();
    this.#arrived.delete(next.value.id);
    this.#host.set({
      approvals: [...this.#host.state.approvals, next.value],
      unlistedApprovals: this.#host.state.unlistedApprovals - 1,
    });
  }

  /** An approval the gateway says is settled (409): its card goes; its outcome is listed when it can be read. */
  settled(id: string): void {
    this.#host.set({ approvals: this.#host.state.approvals.filter((a) => a.id !== id) });
    api.approval(id).then(
      ({ approval, outcome }) => {
        const { decided } = this.#host.state;
        if (!outcome || decided.some((d) => d.approval.id === id)) return;
        this.#host.set({ decided: [{ approval, outcome }, ...decided].slice(0, KEPT_DECIDED) });
      },
      () => undefined,
    );
  }

  /**
   * The pages after the last read (its `nextCursor`, a stable place: approvals decided meanwhile shift
   * nothing), until the page holds `KEPT_APPROVALS` or none are left; one reading at a time. A page that
   * could not be read is read again (backing off, up to RETRY_MAX_MS between tries), the list said to be
   * incomplete meanwhile; a 401 is the session's end (back to the sign-in form), not tried again.
   */
  async #readOn(): Promise<void> {
    if (this.#reading) return void (this.#readAgain = true);
    this.#reading = true;
    clearTimeout(this.#retry);
    const generation = this.#generation;
    try {
      do {
        this.#readAgain = false;
        const room = KEPT_APPROVALS - this.#host.state.approvals.length;
        const cursor = this.#cursor;
        if (room <= 0 || cursor === undefined) break;
        const listing = await api.approvals(cursor, Math.min(room, PAGE));
        if (generation !== this.#generation) return; // a new snapshot lists them
        // The same cursor again would go round forever: the page's own is the end.
        this.#cursor = listing.nextCursor === cursor ? undefined : listing.nextCursor;
        const { state } = this.#host;
        const held = new Set(state.approvals.map((a) => a.id));
        const gone = new Set(state.decided.map((d) => d.approval.id));
        // After the last page, those announced meanwhile that it did not list.
        const arrived = this.#cursor === undefined ? [...this.#arrived.values()] : [];
        for (const a of listing.approvals) this.#arrived.delete(a.id);
        if (this.#cursor === undefined) this.#arrived.clear();
        const fresh = [...listing.approvals, ...arrived].filter(
          (a) => !held.has(a.id) && !gone.has(a.id) && held.add(a.id),
        );
        const approvals = [...state.approvals, ...fresh].slice(0, KEPT_APPROVALS);
        const unlisted = this.#cursor === undefined ? 0 : Math.max(0, listing.total - approvals.length);
        this.#failures = 0;
        this.#host.set({ approvals, unlistedApprovals: unlisted, approvalsUnread: undefined });
      } while (this.#readAgain || this.#host.state.approvals.length < KEPT_APPROVALS);
    } catch (error) {
      if (generation !== this.#generation) return; // a new snapshot lists them
      if (error instanceof ApiError && error.status === 401) return; // signed out
      this.#host.set({ approvalsUnread: error instanceof Error ? error.message : String(error) });
      const delay = Math.min(RETRY_MS * 2 ** this.#failures++, RETRY_MAX_MS);
      this.#retry = setTimeout(() => {
        if (generation === this.#generation) void this.#readOn();
      }, delay);
    } finally {
      this.#reading = false;
    }
  }
}
