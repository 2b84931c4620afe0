/**
 * Store writes tried again until the store takes them (an approval's expiry, its abandon, a decision's
 * fence): every `STORE_RETRY_MS` until a deadline, one per key, a bounded number at once, and none once the
 * gateway closes.
 * @module
 */

/** How often a write the store did not take is tried again. */
export const STORE_RETRY_MS = 500;
/**
 * How long past an approval's expiry its abandon, or the fence of a decision on it, is tried again: until
 * then a create that timed out and landed late would list it as pending, and a decision could land (on
 * Redis's clock, which may be behind this one). An object, not a constant, so that a test can shorten it
 * and see a retry outlast it; not part of the package's API (no entry point exports it).
 * @internal
 */
export const storeRetryGrace = { ms: 60_000 };
/**
 * Writes tried again at once, at most (each holds its approval), with the places held for writes that may
 * need it (`hold`); past it one more is not tried again. An object, not a constant, so that a test can
 * lower it and fill it; not part of the package's API.
 * @internal
 */
export const storeRetryBound = { max: 1_000 };

export class StoreRetries {
  /** The keys of the writes being tried. */
  readonly #running = new Set<string>();
  /** The keys of writes that hold a place (`hold`), not run yet. */
  readonly #held = new Set<string>();
  /** Aborts when the gateway closes: what is being tried again stops. */
  #closing = new AbortController();

  /**
   * Runs `write` until it resolves; when it throws, again after `STORE_RETRY_MS` while it is before
   * `giveUpAt` (ms since the epoch) and the retries were not stopped since this run began, else
   * `onGiveUp(error)`. A write whose key is being tried already is not run; nor is one past the bound
   * (`onFull` is told), unless its key holds a place (`hold`).
   */
  async run(
    key: string,
    giveUpAt: number,
    write: () => Promise<void>,
    onGiveUp: (error: unknown) => void,
    onFull?: () => void,
  ): Promise<void> {
    if (this.#running.has(key)) return;
    if (!this.#held.delete(key) && this.#full()) return onFull?.();
    this.#running.add(key);
    const signal = this.#closing.signal;
    try {
      for (;;) {
        try {
          return await write();
        } catch (error) {
          if (Date.now() < giveUpAt && (await pause(STORE_RETRY_MS, signal))) continue;
          return onGiveUp(error);
        }
      }
    } finally {
      this.#running.delete(key);
    }
  }

  /**
   * Holds a place within the bound for a write that may need to be tried again (`run` with this key takes
   * it; `release` gives it back): false, holding nothing, when the bound is reached.
   */
  hold(key: string): boolean {
    if (this.#held.has(key) || this.#running.has(key) || this.#full()) return false;
    this.#held.add(key);
    return true;
  }

  /** Gives back a place held (`hold`) that `run` did not take. */
  release(key: string): void {
    this.#held.delete(key);
  }

  #full(): boolean {
    return this.#running.size + this.#held.size >= storeRetryBound.max;
  }

  /** Waits `STORE_RETRY_MS` before a write is tried again; false, at once, when the retries stop. */
  wait(): Promise<boolean> {
    return pause(STORE_RETRY_MS, this.#closing.signal);
  }

  /** Stops what is being tried again (the gateway closes); what runs later is tried again as before. */
  stop(): void {
    this.#closing.abort();
    this.#closing = new AbortController();
  }
}

/** Waits `ms` (an unref'd timer); false, at once, when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', aborted);
      resolve(ok);
    };
    const aborted = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    timer.unref?.();
    signal.addEventListener('abort', aborted, { once: true });
  });
}
