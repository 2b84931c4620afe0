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

/** What a call in flight is known by: the options it was sent with (the engine keeps the same object). */
export interface TrackedOptions {
  readonly handlers?: ClientHandlers | undefined;
}

/**
 * Which call with handlers of its own a server request belongs to. Over Streamable HTTP one that arrives on
 * a call's POST stream is that call's (`related`): its handlers answer it, if it brought some. Elsewhere
 * (stdio, in-memory, the GET stream) nothing on the wire says which call a request belongs to — the spec's
 * server requests carry no id of the client's request, and `progressToken` in their `_meta` is the
 * server's own — so it is the call's only when exactly one call with handlers of its own is in flight;
 * with several, the client's handlers answer it.
 */
export class OwnHandlers {
  readonly #active = new Map<object, { handlers: ClientHandlers; ended: AbortController }>();

  /**
   * Tracks the handlers of the call sent with `options` (an object of its own: two calls in flight share
   * none) until `pending` settles; returns `pending`.
   */
  track<T>(options: TrackedOptions | undefined, pending: Promise<T>): Promise<T> {
    const handlers = options?.handlers;
    if (!options || !handlers) return pending;
    // A fresh object per request: two requests may share one handlers object.
    const entry = { handlers: { ...handlers }, ended: new AbortController() };
    this.#active.set(options, entry);
    const done = () => {
      this.#active.delete(options);
      entry.ended.abort(callEnded());
    };
    pending.then(done, done);
    return pending;
  }

  /**
   * The call a server request belongs to: the one sent with `related` (the options of the request whose
   * POST stream brought it; `null` when it came on none), else the only in-flight call with handlers of
   * its own, if exactly one brought some. A request related to a call without handlers of its own is
   * no other call's.
   */
  callOf(related: object | null | undefined): OwnCall | undefined {
    if (related !== null) {
      const entry = related && this.#active.get(related);
      return entry && { handlers: entry.handlers, ended: entry.ended.signal };
    }
    if (this.#active.size !== 1) return undefined;
    for (const { handlers, ended } of this.#active.values()) return { handlers, ended: ended.signal };
    return undefined;
  }
}
