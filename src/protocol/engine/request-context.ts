/**
 * What a request handler sees besides its params (`RequestContext`), the handler signatures the engine
 * calls, and the in-flight record that is each answered request's context.
 * @module
 */
import type { ToolwireError } from '../errors.js';
import type { JsonObject, RequestId } from '../jsonrpc.js';

/** What a request handler sees besides the params. */
export interface RequestContext {
  readonly id: RequestId;
  readonly method: string;
  /** Aborted by `notifications/cancelled` for this request, or when the connection closes. */
  readonly signal: AbortSignal;
  /** Whether `signal` is aborted, without creating it (it is created on first use). */
  readonly aborted: boolean;
  readonly meta: JsonObject | undefined;
}

export type RequestHandler = (params: JsonObject, ctx: RequestContext) => Promise<JsonObject> | JsonObject;
export type NotificationHandler = (params: JsonObject) => void | Promise<void>;

/**
 * A request being answered. Its `AbortController` is created on first use (a handler reading
 * `ctx.signal`, or an abort): most requests finish without either, and a controller per request is a
 * noticeable part of a call's cost. What a handler can observe is the same as with an eager one.
 */
export class Inflight implements RequestContext {
  readonly id: RequestId;
  readonly method: string;
  readonly meta: JsonObject | undefined;
  cancelled = false;
  #controller: AbortController | undefined;

  constructor(id: RequestId, method: string, meta: JsonObject | undefined) {
    this.id = id;
    this.method = method;
    this.meta = meta;
  }

  get aborted(): boolean {
    return this.cancelled;
  }

  get signal(): AbortSignal {
    return (this.#controller ??= new AbortController()).signal;
  }

  cancel(reason: ToolwireError): void {
    this.cancelled = true;
    (this.#controller ??= new AbortController()).abort(reason);
  }
}
