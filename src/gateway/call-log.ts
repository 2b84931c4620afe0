/**
 * The latest calls through the gateway, with what the audit log leaves out on purpose: their arguments
 * and results, for the console (a person watching needs to see what ran and what came back). Calls are
 * recorded while someone listens to the gateway's call events (a console's event stream; stores shared,
 * on any instance) and for a grace after the last one left (`GatewayOptions.callLogGraceMs`, 60 s by
 * default: see `GatewayEvents`), so a console that reconnects lists the calls made meanwhile. Nobody
 * watching for longer (or ever), the relay skips this, and costs nothing more per call: those calls are in
 * the audit log only. The calls are kept in a `CallLogStore`: in memory by default (bounded: the latest 500
 * calls and the running ones older than them, and 32 MiB of arguments and results, the oldest results going
 * first; one call's arguments and result up to 256 KiB each), or in Redis, where every instance lists and
 * reads every instance's calls (with the same caps).
 *
 * A running call can be cancelled from here: on the instance running it, its cancellation fires, which the relay
 * turns into a cancellation upstream; on another instance sharing the stores, the cancellation is
 * published on the gateway's bus (`reach`), and the instance running the call aborts it. A call whose
 * instance stopped while it ran (killed) is read as finished, `outcome: 'lost'` (the store's `live`): too
 * late to cancel.
 * @module
 */
import { CancellationSource, type Cancellation, type JsonObject } from '../index.js';
import type { CallChanges, CallLogStore, CallProgress } from '../stores/call-log-store.js';
import { MemoryCallLogStore, type MemoryCallLogStoreOptions } from '../stores/memory-call-log-store.js';
import type { CallEnd, CallInfo, CallRecord, CallSummary } from '../stores/gateway-records.js';

export type { CallEnd, CallRecord, CallSummary } from '../stores/gateway-records.js';

/** The memory store's bounds (`new CallLog(options)`). */
export type CallLogOptions = MemoryCallLogStoreOptions;

/** What `cancel` did: cancelled here, asked of the instance running it, or too late. */
export type CancelState = 'cancelled' | 'requested' | 'finished';

/** How a cancellation reaches the other instances (the gateway's bus). */
export type CancelRequest = (id: number, by: string) => Promise<void>;

interface Running {
  cancellation: CancellationSource;
  cancelledBy?: string;
}

export class CallLog {
  #store: CallLogStore;
  /** This instance's running calls that can be cancelled. */
  readonly #running = new Map<number, Running>();
  #reach: CancelRequest | undefined;

  /** `store`: where the calls are kept (default: memory), or the memory store's bounds. */
  constructor(store: CallLogStore | CallLogOptions = {}) {
    this.#store = isStore(store) ? store : new MemoryCallLogStore(store);
  }

  /** Where the calls are kept. */
  get store(): CallLogStore {
    return this.#store;
  }

  /** Keeps the calls in `store` from now on (the gateway's shared stores, opened at start). */
  useStore(store: CallLogStore): void {
    this.#store = store;
  }

  /** Cancellations of calls that run elsewhere go through `request` (undefined: nowhere else). */
  reach(request: CancelRequest | undefined): void {
    this.#reach = request;
  }

  /**
   * Records a call that starts (at `startedAt`, ISO 8601; now by default); its cancellation fires when
   * someone cancels it (`cancel`).
   */
  start(call: CallInfo, args: JsonObject, startedAt = new Date().toISOString()): Cancellation {
    const cancellation = new CancellationSource();
    this.#running.set(call.id, { cancellation });
    this.#store.start(call, args, startedAt);
    return cancellation;
  }

  progress(id: number, progress: CallProgress): void {
    this.#store.progress(id, progress);
  }

  /** A running call waits for a person (its pending approval's id), or no longer does (undefined). */
  awaiting(id: number, approvalId: string | undefined): void {
    this.#store.awaiting?.(id, approvalId);
  }

  finish(id: number, end: CallEnd): void {
    const running = this.#running.get(id);
    this.#running.delete(id);
    const by = running?.cancelledBy;
    this.#store.finish(id, by === undefined ? end : { ...end, cancelledBy: by });
  }

  /**
   * Cancels a running call on behalf of `by`: here when this instance runs it, else by asking the instance
   * that does. Answers `cancelled` (here), `requested` (asked elsewhere), `finished` (too late), or
   * undefined for a call that is not known (never, or no longer).
   */
  async cancel(id: number, by: string): Promise<CancelState | undefined> {
    const here = this.cancelHere(id, by);
    if (here) return here;
    const record = await this.#store.get(id);
    if (!record) return undefined;
    if (record.state === 'finished' || !this.#reach) return 'finished';
    await this.#reach(id, by);
    return 'requested';
  }

  /** Cancels a call this instance runs; undefined when it runs no such call. */
  cancelHere(id: number, by: string): 'cancelled' | undefined {
    const running = this.#running.get(id);
    if (!running) return undefined;
    running.cancelledBy ??= by;
    running.cancellation.abort(new Error(`cancelled by ${by}`));
    return 'cancelled';
  }

  /** Who cancelled a call this instance runs, if someone did through `cancel`. */
  cancelledBy(id: number): string | undefined {
    return this.#running.get(id)?.cancelledBy;
  }

  /** The latest `limit` calls (default all kept) and the running ones older than them, newest first. */
  list(limit?: number): Promise<CallSummary[]> {
    return this.#store.list(limit);
  }

  /**
   * The calls changed after `marker` (`whole: false`), or the listing (`whole: true`: without a marker, with
   * one the store cannot follow, or a store without `changes`, which gives no marker) — see
   * `CallLogStore.changes`.
   */
  async changes(
    marker: string | undefined,
    limit?: number,
  ): Promise<Omit<CallChanges, 'marker'> & { marker?: string }> {
    const store = this.#store;
    if (store.changes) return store.changes(marker, limit);
    return { calls: await store.list(limit), whole: true };
  }

  /** The calls the store keeps at most, when it says (`CallLogStore.maxCalls`). */
  get maxCalls(): number | undefined {
    return this.#store.maxCalls;
  }

  get(id: number): Promise<CallRecord | undefined> {
    return this.#store.get(id);
  }
}

function isStore(value: CallLogStore | CallLogOptions): value is CallLogStore {
  return typeof (value as Partial<CallLogStore>).start === 'function';
}
