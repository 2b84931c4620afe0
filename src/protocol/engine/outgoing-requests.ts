/**
 * Requests this side sent and awaits: ids, timeouts (with reset on progress and a hard maximum),
 * abort signals, progress routing. Pure bookkeeping; the peer does the I/O.
 * @module
 */
import { LocalErrorCode, ToolwireError } from '../errors.js';
import type { JsonObject, JsonRpcResponse, RequestId } from '../jsonrpc.js';
import type { ProgressParams } from '../types/lifecycle.js';
import { receivedError } from '../types/url-elicitation.js';
import { followSignal, type Cancellation } from './cancellation.js';
import { SlotMap } from './slot-map.js';

export interface RequestOptions {
  /** Milliseconds to wait for the response. */
  timeout?: number;
  /** Restart the timeout clock on each progress notification (bounded by `maxTotalTimeout`). */
  resetTimeoutOnProgress?: boolean;
  /** Hard cap in milliseconds, whatever progress arrives. */
  maxTotalTimeout?: number;
  /** Aborting sends `notifications/cancelled` and rejects with REQUEST_CANCELLED. */
  signal?: AbortSignal;
  /**
   * As `signal`, for a cancellation followed without an `AbortSignal` (e.g. a tool call's
   * `ctx.cancellation`, relayed by a gateway); both may be given.
   */
  cancellation?: Cancellation;
  /** Called for each progress notification; asks the peer for progress by adding a progressToken. */
  onProgress?: (progress: ProgressParams) => void;
  /** The incoming request this one is made on behalf of (routes it on HTTP). */
  relatedRequestId?: RequestId;
  /**
   * Keep routing progress with this request's token to `onProgress` after its response, until this
   * promise settles: a task-augmented call's token stays valid while its task runs (2025-11-25 tasks).
   */
  progressUntil?: Promise<unknown>;
}

interface Pending {
  method: string;
  resolve: (result: JsonObject) => void;
  reject: (error: Error) => void;
  options: RequestOptions;
  timeout: number;
  startedAt: number;
  /** When it times out (Date.now() ms); Infinity for none. */
  deadline: number;
  cleanup: () => void;
  /** Called once it settles (`onSettled`); most requests have none. */
  settled?: Set<() => void>;
}

export type CancelSender = (id: RequestId, reason: string, method: string) => void;

export class OutgoingRequests {
  /**
   * Ids start at 1, not 0: the official SDK 1.x ignores `notifications/cancelled` whose `requestId` is
   * falsy, so a first request numbered 0 (a server's first question to a person) could never be withdrawn.
   */
  #nextId = 1;
  /** A slot map, not a `Map` (see {@link SlotMap}): a pending request refers to its whole call. */
  readonly #pending = new SlotMap<RequestId, Pending>();
  readonly #byToken = new Map<string | number, RequestId>();
  /** Tokens of answered requests whose progress still counts (`progressUntil`), and where it goes. */
  readonly #lingering = new Map<string | number, (progress: ProgressParams) => void>();
  readonly #sendCancel: CancelSender;
  /**
   * One timer for every request's timeout, set for the earliest deadline known when it was set (a timer
   * per request was a noticeable part of a relayed call's cost): when it fires, the requests past their
   * deadline fail and it is set again for the next one. Cleared once nothing is pending.
   */
  #timer: ReturnType<typeof setTimeout> | undefined;
  #timerAt = Infinity;
  /**
   * Whether the timer keeps the process alive. Once nothing is pending it is unref'd rather than cleared,
   * and ref'd again by the next request: one request at a time would otherwise clear and set a timer each.
   */
  #timerRefed = false;

  constructor(sendCancel: CancelSender) {
    this.#sendCancel = sendCancel;
  }

  get size(): number {
    return this.#pending.size;
  }

  nextId(): number {
    return this.#nextId++;
  }

  /** Registers a request; the returned promise settles with its response, timeout, abort or close. */
  track(id: RequestId, method: string, timeout: number, options: RequestOptions): Promise<JsonObject> {
    return new Promise<JsonObject>((resolve, reject) => {
      const entry: Pending = {
        method,
        resolve,
        reject,
        options,
        timeout,
        startedAt: Date.now(),
        deadline: Infinity,
        cleanup: noop,
      };
      const { signal, cancellation } = options;
      if (signal) entry.cleanup = followSignal(signal, (reason) => this.#abort(id, reason));
      if (cancellation) {
        const stop = cancellation.onAbort((reason) => this.#abort(id, reason));
        const before = entry.cleanup;
        entry.cleanup = signal
          ? () => {
              before();
              stop();
            }
          : stop;
      }
      if (options.onProgress) this.#byToken.set(id, id);
      this.#pending.set(id, entry);
      const max = options.resetTimeoutOnProgress ? (options.maxTotalTimeout ?? Infinity) : Infinity;
      this.#arm(entry, Math.min(timeout, max), entry.startedAt);
    });
  }

  /** Sets the request's deadline `ms` from `now`, and the timer earlier if it is the earliest. */
  #arm(entry: Pending, ms: number, now = Date.now()): void {
    entry.deadline = Number.isFinite(ms) ? now + Math.max(0, ms) : Infinity;
    if (entry.deadline < this.#timerAt) this.#schedule(entry.deadline, now);
    else if (this.#timer && !this.#timerRefed) {
      this.#timer.ref();
      this.#timerRefed = true;
    }
  }

  #schedule(at: number, now = Date.now()): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timerAt = at;
    this.#timer = setTimeout(this.#expire, Math.max(0, at - now));
    this.#timerRefed = true;
  }

  #clearTimer(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerAt = Infinity;
  }

  /** The timer fired: the requests past their deadline time out; the timer is set for the next one. */
  readonly #expire = (): void => {
    this.#timer = undefined;
    this.#timerAt = Infinity;
    this.#timerRefed = false;
    const now = Date.now();
    const expired: Array<[RequestId, Pending]> = [];
    let next = Infinity;
    for (const [id, entry] of this.#pending.entries()) {
      if (entry.deadline <= now) expired.push([id, entry]);
      else if (entry.deadline < next) next = entry.deadline;
    }
    if (next !== Infinity) this.#schedule(next, now);
    for (const [id, entry] of expired) {
      const elapsed = now - entry.startedAt;
      const { resetTimeoutOnProgress, maxTotalTimeout: max } = entry.options;
      // Cut by its maximum rather than by a silence of `timeout`: said so, as when progress finds it past.
      const capped = resetTimeoutOnProgress === true && max !== undefined && elapsed >= max;
      this.#fail(
        id,
        capped
          ? new ToolwireError(
              LocalErrorCode.RequestTimeout,
              `Request ${entry.method} exceeded its maximum total timeout of ${max} ms`,
              { details: { method: entry.method, maxTotalTimeout: max, elapsed } },
            )
          : new ToolwireError(
              LocalErrorCode.RequestTimeout,
              `Request ${entry.method} timed out after ${elapsed} ms`,
              {
                details: { method: entry.method, timeout: entry.timeout, elapsed },
              },
            ),
        capped ? 'Maximum total timeout exceeded' : 'Request timed out',
      );
    }
  };

  /** Routes a progress notification; returns false when no live request owns the token. */
  progress(params: ProgressParams): boolean {
    const id = this.#byToken.get(params.progressToken);
    const entry = id === undefined ? undefined : this.#pending.get(id);
    if (id === undefined || !entry) {
      const lingering = this.#lingering.get(params.progressToken);
      lingering?.(params);
      return lingering !== undefined;
    }
    entry.options.onProgress?.(params);
    if (entry.options.resetTimeoutOnProgress) {
      const max = entry.options.maxTotalTimeout ?? Infinity;
      const remaining = max - (Date.now() - entry.startedAt);
      if (remaining <= 0) {
        this.#fail(
          id,
          new ToolwireError(
            LocalErrorCode.RequestTimeout,
            `Request ${entry.method} exceeded its maximum total timeout of ${max} ms`,
            { details: { method: entry.method, maxTotalTimeout: max } },
          ),
          'Maximum total timeout exceeded',
        );
      } else {
        this.#arm(entry, Math.min(entry.timeout, remaining));
      }
    }
    return true;
  }

  /** The options request `id` was sent with, while it is pending. */
  optionsOf(id: RequestId): RequestOptions | undefined {
    return this.#pending.get(id)?.options;
  }

  /**
   * Calls `listener` once request `id` settles, however it does; undefined (and no call) when it is not
   * pending. Returns what stops listening.
   */
  onSettled(id: RequestId, listener: () => void): (() => void) | undefined {
    const entry = this.#pending.get(id);
    if (!entry) return undefined;
    const listeners = (entry.settled ??= new Set());
    const own = () => listener();
    listeners.add(own);
    return () => void listeners.delete(own);
  }

  /** Settles a request with the response that arrived; returns false for an unknown id. */
  settle(response: JsonRpcResponse): boolean {
    const id = response.id;
    if (id === undefined || id === null) return false;
    const entry = this.#take(id);
    if (!entry) return false;
    if ('result' in response) entry.resolve(response.result);
    else entry.reject(receivedError(response.error));
    return true;
  }

  /** Rejects one request that never reached the peer (its send failed): nothing to cancel there. */
  reject(id: RequestId, error: Error): void {
    this.#take(id)?.reject(error);
  }

  /** Rejects every pending request (the connection closed). */
  rejectAll(error: Error): void {
    for (const id of this.#pending.keys()) this.#take(id)?.reject(error);
    this.close();
  }

  /**
   * The connection closed with nothing pending: the timer goes (kept unref'd between requests, it would
   * otherwise hold this connection, and all it refers to, until the last request's deadline).
   */
  close(): void {
    this.#lingering.clear();
    this.#clearTimer();
  }

  #abort(id: RequestId, reason: unknown): void {
    const entry = this.#pending.get(id);
    if (!entry) return;
    const message =
      reason instanceof Error ? reason.message : typeof reason === 'string' ? reason : 'aborted';
    this.#fail(
      id,
      new ToolwireError(
        LocalErrorCode.RequestCancelled,
        `Request ${entry.method} was cancelled: ${message}`,
        {
          cause: reason,
        },
      ),
      message,
    );
  }

  #fail(id: RequestId, error: Error, cancelReason: string): void {
    const entry = this.#take(id);
    if (!entry) return;
    this.#sendCancel(id, cancelReason, entry.method);
    entry.reject(error);
  }

  #take(id: RequestId): Pending | undefined {
    const entry = this.#pending.get(id);
    if (!entry) return undefined;
    this.#pending.delete(id);
    this.#byToken.delete(id);
    if (this.#pending.size === 0 && this.#timerRefed) {
      this.#timer?.unref();
      this.#timerRefed = false;
    }
    entry.cleanup();
    if (entry.settled) for (const listener of entry.settled) listener();
    const { onProgress, progressUntil } = entry.options;
    if (onProgress && progressUntil) {
      this.#lingering.set(id, onProgress);
      const end = () => {
        if (this.#lingering.get(id) === onProgress) this.#lingering.delete(id);
      };
      progressUntil.then(end, end);
    }
    return entry;
  }
}

function noop(): void {}
