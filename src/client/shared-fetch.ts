/**
 * One fetch that several callers wait for, each on its own terms. The fetch is made with no caller's signal
 * and no timeout of its own; each caller waits with its own signal or cancellation and its own timeout
 * (restarted whenever the fetch makes progress: for a listing, each page that arrives, so that `timeout`
 * still bounds the wait for each response, as it does for a request). A caller who gives up fails alone,
 * with the engine's REQUEST_CANCELLED or REQUEST_TIMEOUT; once nobody waits any more, the fetch is
 * cancelled (its request gets `notifications/cancelled`), and the next caller starts a new one.
 * @module
 */
import { CancellationSource, followSignal, type Cancellation } from '../protocol/engine/cancellation.js';
import { LocalErrorCode, ToolwireError } from '../protocol/errors.js';

/** How one caller waits. */
export interface Wait {
  signal?: AbortSignal | undefined;
  cancellation?: Cancellation | undefined;
  /** Milliseconds without progress after which this caller stops waiting (Infinity: none). */
  timeout: number;
}

/** What the fetch is given: its cancellation (fired when nobody waits), and the call that says it advanced. */
export interface FetchControl {
  cancellation: Cancellation;
  progress(): void;
}

export class SharedFetch<T> {
  readonly #method: string;
  readonly #source = new CancellationSource();
  readonly #promise: Promise<T>;
  /** Each waiter's restart of its clock, called on progress. */
  readonly #waiters = new Set<() => void>();
  #settled = false;

  /** Starts `fetch` at once. `method` names it in the errors of the callers who stop waiting. */
  constructor(method: string, fetch: (control: FetchControl) => Promise<T>) {
    this.#method = method;
    const control: FetchControl = {
      cancellation: this.#source,
      progress: () => this.#waiters.forEach((restart) => restart()),
    };
    this.#promise = fetch(control);
    const settle = () => {
      this.#settled = true;
    };
    this.#promise.then(settle, settle);
  }

  /** Whether a new caller may still join (the fetch was not cancelled for want of waiters). */
  get joinable(): boolean {
    return !this.#source.aborted;
  }

  /** The fetch's outcome, or this caller's own cancellation or timeout, whichever comes first. */
  join(wait: Wait): Promise<T> {
    const { signal, cancellation, timeout } = wait;
    const already = signal?.aborted ? signal : cancellation?.aborted ? cancellation : undefined;
    if (already) return Promise.reject(this.#cancelled(already.reason));
    if (this.#settled) return this.#promise;
    return new Promise<T>((resolve, reject) => {
      const stops: Array<() => void> = [];
      let timer: ReturnType<typeof setTimeout> | undefined;
      let startedAt = Date.now();
      const done = () => {
        stops.forEach((stop) => stop());
        if (timer) clearTimeout(timer);
        this.#waiters.delete(restart);
      };
      const leave = (error: Error) => {
        done();
        reject(error);
        if (this.#waiters.size === 0 && !this.#settled) this.#source.abort(error.message);
      };
      const restart = () => {
        if (timeout === Infinity) return;
        if (timer) clearTimeout(timer);
        startedAt = Date.now();
        timer = setTimeout(() => leave(this.#timedOut(timeout, Date.now() - startedAt)), timeout);
      };
      if (signal) stops.push(followSignal(signal, (reason) => leave(this.#cancelled(reason))));
      if (cancellation) stops.push(cancellation.onAbort((reason) => leave(this.#cancelled(reason))));
      this.#waiters.add(restart);
      restart();
      this.#promise.then(
        (value) => {
          done();
          resolve(value);
        },
        (error: unknown) => {
          done();
          reject(error as Error);
        },
      );
    });
  }

  #cancelled(reason: unknown): ToolwireError {
    const message =
      reason instanceof Error ? reason.message : typeof reason === 'string' ? reason : 'aborted';
    return new ToolwireError(
      LocalErrorCode.RequestCancelled,
      `Request ${this.#method} was cancelled: ${message}`,
      { cause: reason },
    );
  }

  #timedOut(timeout: number, elapsed: number): ToolwireError {
    return new ToolwireError(
      LocalErrorCode.RequestTimeout,
      `Request ${this.#method} timed out after ${elapsed} ms`,
      { details: { method: this.#method, timeout, elapsed } },
    );
  }
}
