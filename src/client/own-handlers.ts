/**
 * Handshake era: the calls in flight that brought handlers of their own (`ExchangeOptions.handlers`), and
 * which of them a server request belongs to.
 * @module
 */
import { LocalErrorCode } from '../protocol/errors.js';
import { ClientError } from './client-error.js';
import type { ClientHandlers, TiedBy } from './client-handlers.js';

/** Why a server request's handler was aborted: the call it belongs to ended. */
export function callEnded(): ClientError {
  return new ClientError(LocalErrorCode.RequestCancelled, 'The call this request was asked during ended');
}

/** A call in flight with handlers of its own. */
export interface OwnCall {
  readonly handlers: ClientHandlers;
  /** Aborted when the call settles (answered, failed, timed out or aborted). */
  readonly ended: AbortSignal;
  /** What made the server request this call's (see `HandlerContext.tiedBy`). */
  readonly tiedBy: TiedBy;
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
 * with several, the client's handlers answer it — unless it names a task (2025-11-25) that a call with
 * handlers of its own waits for.
 */
export class OwnHandlers {
  readonly #active = new Map<object, Entry>();
  /** The `tasks/result` requests in flight with handlers of their own, by the task they wait for. */
  readonly #byTask = new Map<string, Entry>();

  /**
   * Tracks the handlers of the call sent with `options` (an object of its own: two calls in flight share
   * none) until `pending` settles; returns `pending`. `taskId`: the task a `tasks/result` request waits
   * for (2025-11-25), whose questions name it (the related-task key in their `_meta`).
   */
  track<T>(options: TrackedOptions | undefined, pending: Promise<T>, taskId?: string): Promise<T> {
    const handlers = options?.handlers;
    if (!options || !handlers) return pending;
    // A fresh object per request: two requests may share one handlers object.
    const entry = { handlers: { ...handlers }, ended: new AbortController() };
    this.#active.set(options, entry);
    if (taskId !== undefined) this.#byTask.set(taskId, entry);
    const done = () => {
      this.#active.delete(options);
      if (taskId !== undefined && this.#byTask.get(taskId) === entry) this.#byTask.delete(taskId);
      entry.ended.abort(callEnded());
    };
    pending.then(done, done);
    return pending;
  }

  /**
   * The call a server request belongs to: the one sent with `related` (the options of the request whose
   * POST stream brought it; `null` when it came on none), else the one waiting for the task the request
   * names (`taskId`, 2025-11-25), else the only in-flight call with handlers of its own, if exactly one
   * brought some. A request related to a call without handlers of its own is no other call's.
   */
  callOf(related: object | null | undefined, taskId?: string): OwnCall | undefined {
    if (related !== null) return ownCall(related && this.#active.get(related), 'stream');
    if (taskId !== undefined && this.#byTask.has(taskId)) return ownCall(this.#byTask.get(taskId), 'task');
    if (this.#active.size !== 1) return undefined;
    for (const entry of this.#active.values()) return ownCall(entry, 'only');
    return undefined;
  }
}

interface Entry {
  readonly handlers: ClientHandlers;
  readonly ended: AbortController;
}

function ownCall(entry: Entry | undefined, tiedBy: TiedBy): OwnCall | undefined {
  return entry && { handlers: entry.handlers, ended: entry.ended.signal, tiedBy };
}
