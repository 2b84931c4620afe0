/**
 * Handshake era: the calls in flight that brought handlers of their own (`ExchangeOptions.handlers`), and
 * which of them a server request belongs to.
 * @module
 */
import { LocalErrorCode } from '../protocol/errors.js';
import { ClientError } from './client-error.js';
import type { ClientHandlers } from './client-handlers.js';

/** Why a server request's handler was aborted: the call it belongs to ended. */
export function callEnded(): ClientError {
  return new ClientError(LocalErrorCode.RequestCancelled, 'The call this request was asked during ended');
}

/** A call in flight with handlers of its own. */
export interface OwnCall {
  readonly handlers: ClientHandlers;
  /** Aborted when the call settles (answered, failed, timed out or aborted). */
  readonly ended: AbortSignal;
}

/**
 * A server request is the call's when exactly one call with handlers of its own is in flight: its handlers
 * answer it, and its handler's signal aborts when that call ends. With several, nothing on the wire says
 * which one it belongs to, so the client's handlers answer it.
 */
export class OwnHandlers {
  readonly #active = new Set<{ handlers: ClientHandlers; ended: AbortController }>();

  /** Tracks `handlers` until `pending` settles; returns `pending`. */
  track<T>(handlers: ClientHandlers | undefined, pending: Promise<T>): Promise<T> {
    if (!handlers) return pending;
    // A fresh object per request: two requests may share one handlers object.
    const entry = { handlers: { ...handlers }, ended: new AbortController() };
    this.#active.add(entry);
    const done = () => {
      this.#active.delete(entry);
      entry.ended.abort(callEnded());
    };
    pending.then(done, done);
    return pending;
  }

  /** The only in-flight call with handlers of its own, if exactly one brought some. */
  sole(): OwnCall | undefined {
    if (this.#active.size !== 1) return undefined;
    for (const { handlers, ended } of this.#active) return { handlers, ended: ended.signal };
    return undefined;
  }
}
