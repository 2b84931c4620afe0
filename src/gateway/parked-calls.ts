/**
 * The upstream calls of stateless-era callers parked between rounds (see held-run.ts), and their prompt
 * gets and resource reads (relayed-request.ts): each under a random id that the `requestState` of the
 * caller's `input_required` carries (signed by the gateway's server), for the caller that made it, that
 * method, tool, prompt or URI and those arguments only. A retry takes its call back; one that
 * finds nothing — another instance, expired, a restart, a different caller — runs the call again upstream,
 * as every retry did before. Bounded: a parked call with no retry within `ttlMs` is cancelled upstream;
 * past `max` parked calls (or `maxPerCaller` of one caller) a call is not parked (its upstream call is
 * stopped, and the retry runs it again); an upstream that goes down (or is removed) cancels those parked on
 * it, at once (closing its client ends those calls too, once it is closed); closing cancels them all.
 * @module
 */
import type { JsonObject } from '../index.js';
import type { HeldRun } from './held-run.js';

/** How long a call stays parked, and how many may be (`GatewayOptions.parkedCalls`). */
export interface ParkedCallLimits {
  /** How long a parked call waits for its retry before it is cancelled upstream, in ms (default 60,000). */
  ttlMs?: number;
  /** How many calls the gateway keeps parked at once (default 256; 0 parks none). */
  max?: number;
  /** How many calls of one caller (principal, else session, else every anonymous caller) (default 16). */
  maxPerCaller?: number;
}

export const PARKED_CALL_DEFAULTS = { ttlMs: 60_000, max: 256, maxPerCaller: 16 } as const;

/** The longest a timer waits (ms). */
const MAX_TIMER_MS = 2 ** 31 - 1;

interface Parked {
  readonly run: HeldRun<unknown>;
  readonly caller: string;
  /** The upstream it runs on. */
  readonly upstream: string;
  /** The caller, the exposed tool and the arguments' digest: who may take it back. */
  readonly owner: string;
  readonly timer: ReturnType<typeof setTimeout>;
}

function limit(name: string, given: number | undefined, fallback: number, min: number): number {
  if (given === undefined) return fallback;
  if (Number.isSafeInteger(given) && given >= min && given <= MAX_TIMER_MS) return given;
  throw new TypeError(
    `parkedCalls.${name} must be a whole number from ${min} to ${MAX_TIMER_MS} (got ${String(given)})`,
  );
}

/** The park id `carried` names, if it is one. */
function parkId(carried: JsonObject | undefined): string | undefined {
  const id = carried?.parked;
  return typeof id === 'string' ? id : undefined;
}

export class ParkedCalls {
  readonly #calls = new Map<string, Parked>();
  readonly #perCaller = new Map<string, number>();
  #ttlMs: number = PARKED_CALL_DEFAULTS.ttlMs;
  #max: number = PARKED_CALL_DEFAULTS.max;
  #maxPerCaller: number = PARKED_CALL_DEFAULTS.maxPerCaller;
  #closed = false;

  constructor(limits: ParkedCallLimits = {}) {
    this.configure(limits);
  }

  /**
   * Sets the limits (those not given take their defaults; one out of range throws and changes nothing):
   * they apply to the calls parked from now on (a call parked already keeps its ttl, and stays parked past
   * a lower cap).
   */
  configure(limits: ParkedCallLimits): void {
    const ttlMs = limit('ttlMs', limits.ttlMs, PARKED_CALL_DEFAULTS.ttlMs, 1);
    const max = limit('max', limits.max, PARKED_CALL_DEFAULTS.max, 0);
    this.#maxPerCaller = limit('maxPerCaller', limits.maxPerCaller, PARKED_CALL_DEFAULTS.maxPerCaller, 0);
    this.#ttlMs = ttlMs;
    this.#max = max;
  }

  /** How many calls are parked. */
  get size(): number {
    return this.#calls.size;
  }

  /**
   * Parks `run` (on `upstream`) for `caller`'s retry; what the caller's `requestState` carries to find it,
   * or undefined when no more may be parked (the caller's retry runs the call again).
   */
  park<T>(run: HeldRun<T>, caller: string, owner: string, upstream: string): JsonObject | undefined {
    const count = this.#perCaller.get(caller) ?? 0;
    if (this.#closed || this.#calls.size >= this.#max || count >= this.#maxPerCaller) return undefined;
    const id = crypto.randomUUID();
    const ttlMs = this.#ttlMs;
    const timer = setTimeout(() => {
      this.#remove(id)?.stop.abort(
        new Error(`No retry came for the parked call within ${ttlMs} ms; cancelled`),
      );
    }, ttlMs);
    timer.unref?.();
    this.#calls.set(id, { run, caller, owner, upstream, timer });
    this.#perCaller.set(caller, count + 1);
    // An upstream call that fails while parked (its upstream went down, it timed out) holds nothing worth
    // keeping: the retry runs the call again, and learns what there is to learn. A result is kept for it.
    run.onSettled((failed) => {
      if (failed) this.#remove(id);
    });
    return { parked: id };
  }

  /**
   * The call `carried` names, taken back by its `owner` (undefined for anyone else, and if there is none).
   * The owner names the method (a run parked for it settles with that method's result, `T`).
   */
  take<T>(carried: JsonObject | undefined, owner: string): HeldRun<T> | undefined {
    const id = parkId(carried);
    if (id === undefined || this.#calls.get(id)?.owner !== owner) return undefined;
    return this.#remove(id) as HeldRun<T> | undefined;
  }

  /** Cancels the call `carried` names for its `owner` (the retry was refused). */
  drop(carried: JsonObject | undefined, owner: string, reason: Error): void {
    this.take(carried, owner)?.stop.abort(reason);
  }

  /**
   * Cancels every call parked on `upstream` (it went down, or was removed): their retries run them again
   * or are told the upstream is unavailable, and their places are free at once.
   */
  release(upstream: string, reason: Error): void {
    for (const [id, parked] of [...this.#calls]) {
      if (parked.upstream === upstream) this.#remove(id)?.stop.abort(reason);
    }
  }

  /** Cancels every parked call; none is parked after. */
  close(): void {
    this.#closed = true;
    for (const id of [...this.#calls.keys()])
      this.#remove(id)?.stop.abort(new Error('The gateway closed; the parked call is cancelled'));
  }

  #remove(id: string): HeldRun<unknown> | undefined {
    const parked = this.#calls.get(id);
    if (!parked) return undefined;
    this.#calls.delete(id);
    clearTimeout(parked.timer);
    const count = (this.#perCaller.get(parked.caller) ?? 1) - 1;
    if (count > 0) this.#perCaller.set(parked.caller, count);
    else this.#perCaller.delete(parked.caller);
    return parked.run;
  }
}
