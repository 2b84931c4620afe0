/**
 * What a request handler sees besides its params (`RequestContext`), the handler signatures the engine
 * calls, and the in-flight record that is each answered request's context.
 * @module
 */
import type { ToolwireError } from '../errors.js';
import type { JsonObject, RequestId } from '../jsonrpc.js';
import { AbortListeners, type Cancellation } from './cancellation.js';

/** What a request handler sees besides the params. */
export interface RequestContext<C = unknown> {
  readonly id: RequestId;
  /** The connection the request came on (what its peer was made for: a server session, a client). */
  readonly connection: C;
  readonly method: string;
  /** Aborted by `notifications/cancelled` for this request, or when the connection closes. */
  readonly signal: AbortSignal;
  /** Whether `signal` is aborted, without creating it (it is created on first use). */
  readonly aborted: boolean;
  /** The same cancellation as `signal`, followed without creating it (see `Cancellation`). */
  readonly cancellation: Cancellation;
  readonly meta: JsonObject | undefined;
  /**
   * The request of ours whose response stream brought this one (a Streamable HTTP POST's SSE stream): the
   * peer's request belongs to it. Undefined where the transport cannot tell (stdio, the GET stream).
   */
  readonly relatedRequestId: RequestId | undefined;
}

/** A request handler: resolves with the request's result (any JSON object, typed per method by its caller). */
export type RequestHandler<C = unknown> = (
  params: JsonObject,
  ctx: RequestContext<C>,
) => Promise<object> | object;
/** A notification handler, given the connection it came on. */
export type NotificationHandler<C = unknown> = (params: JsonObject, connection: C) => void | Promise<void>;

/**
 * A request being answered. Its `AbortController` is created on first use (a handler reading
 * `ctx.signal`): most requests finish without it, and a controller per request is a noticeable part of a
 * call's cost. What a handler can observe is the same as with an eager one. It is its own
 * {@link Cancellation}: listeners added with `onAbort` need no controller.
 */
export class Inflight<C = unknown> implements RequestContext<C>, Cancellation {
  readonly id: RequestId;
  readonly connection: C;
  readonly method: string;
  readonly meta: JsonObject | undefined;
  readonly relatedRequestId: RequestId | undefined;
  cancelled = false;
  #reason: ToolwireError | undefined;
  #controller: AbortController | undefined;
  #listeners: AbortListeners | undefined;

  constructor(
    id: RequestId,
    method: string,
    meta: JsonObject | undefined,
    connection: C,
    relatedRequestId?: RequestId,
  ) {
    this.id = id;
    this.connection = connection;
    this.method = method;
    this.meta = meta;
    this.relatedRequestId = relatedRequestId;
  }

  get aborted(): boolean {
    return this.cancelled;
  }

  get reason(): unknown {
    return this.#reason;
  }

  get cancellation(): Cancellation {
    return this;
  }

  get signal(): AbortSignal {
    if (this.#controller) return this.#controller.signal;
    const controller = new AbortController();
    this.#controller = controller;
    if (this.cancelled) controller.abort(this.#reason);
    return controller.signal;
  }

  onAbort(listener: (reason: unknown) => void): () => void {
    return (this.#listeners ??= new AbortListeners()).add(listener);
  }

  cancel(reason: ToolwireError): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
    this.#listeners?.fire(reason);
  }
}
