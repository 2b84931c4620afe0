/**
 * When to reconnect a broken or ended SSE stream: after the server's `retry` value, growing
 * exponentially while reconnections keep failing, up to a cap and a number of attempts.
 * @module
 */

export interface ReconnectOptions {
  /** The delay when the server sent no `retry` field, in ms. Default 1000. */
  initialDelayMs?: number;
  /** The longest delay between failed attempts, in ms (never shorter than the server's `retry`). Default 30000. */
  maxDelayMs?: number;
  /** Consecutive failed reconnections before giving up. Default 5. */
  maxRetries?: number;
}

export const DEFAULT_RECONNECT = { initialDelayMs: 1000, maxDelayMs: 30_000, maxRetries: 5 } as const;

/**
 * The bounds a server's `retry` is kept within, in ms: a server sending `retry: 0` (or more than a timer
 * holds) on a stream it ends at once had the client reconnect ≈560 times a second, for ever. The lower
 * bound holds only for a stream that brought no message (or whose reconnection failed): one that did is
 * making progress, and its `retry` is respected as it is.
 */
export const MIN_SERVER_RETRY_MS = 100;
export const MAX_SERVER_RETRY_MS = 10 * 60_000;

export class ReconnectPolicy {
  readonly #initialDelayMs: number;
  readonly #maxDelayMs: number;
  readonly maxRetries: number;

  constructor(options: ReconnectOptions = {}) {
    this.#initialDelayMs = options.initialDelayMs ?? DEFAULT_RECONNECT.initialDelayMs;
    this.#maxDelayMs = options.maxDelayMs ?? DEFAULT_RECONNECT.maxDelayMs;
    this.maxRetries = options.maxRetries ?? DEFAULT_RECONNECT.maxRetries;
  }

  /**
   * The delay before the next attempt. `failures` counts the reconnections that failed in a row;
   * the first attempt waits exactly the server's `retry` (the spec says the client MUST respect it), at
   * most {@link MAX_SERVER_RETRY_MS}, and at least {@link MIN_SERVER_RETRY_MS} unless the stream that
   * ended brought a message (`progressed`).
   */
  delay(failures: number, serverRetryMs: number | undefined, progressed = false): number {
    const floor = failures === 0 && progressed ? 0 : MIN_SERVER_RETRY_MS;
    const base =
      serverRetryMs === undefined
        ? this.#initialDelayMs
        : Math.min(Math.max(serverRetryMs, floor), MAX_SERVER_RETRY_MS);
    if (failures === 0) return base;
    return Math.max(base, Math.min(base * 2 ** failures, this.#maxDelayMs));
  }
}

/** Resolves after `ms`, or as soon as `signal` aborts (resolving `false` then). */
export function wait(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (completed: boolean): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve(completed);
    };
    const onAbort = (): void => done(false);
    const timer = setTimeout(() => done(true), ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
