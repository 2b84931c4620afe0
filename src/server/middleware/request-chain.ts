/**
 * Middleware around every request a session serves (`tools/list`, `tools/call`, `resources/read`,
 * `prompts/get`, `tasks/*`…, in both eras; not the handshake's own `initialize` and `ping`): it sees the
 * method, the params, who is asking and in which era, and the result on its way out; it may refuse with a
 * `ProtocolError`, answer itself, or change the result. Tool calls also run through the tool-call chain
 * (`ToolMiddleware`), inside this one. A server without request middleware pays nothing for it.
 *
 * @example
 * ```ts
 * server.useRequest(async (request, next) => {
 *   if (request.method.startsWith('resources/') && !request.principal?.scopes.includes('files:read'))
 *     throw new ProtocolError(ErrorCode.Forbidden, 'Forbidden: resources need files:read');
 *   return next();
 * });
 * ```
 * @module
 */
import type { JsonObject, RequestId } from '../../protocol/jsonrpc.js';
import type { Principal } from '../auth/principal.js';
import { asError } from '../../protocol/errors.js';

/** One request on its way through the request chain. */
export interface ServerRequest {
  readonly method: string;
  readonly params: JsonObject;
  readonly requestId: RequestId;
  /** Who is asking, as the transport authenticated it; undefined for anonymous requests. */
  readonly principal: Principal | undefined;
  /** The HTTP session id of a stateful HTTP connection; undefined elsewhere. */
  readonly sessionId: string | undefined;
  readonly era: 'handshake' | 'stateless';
  readonly protocolVersion: string;
  /** Aborted when the client cancels the request or the connection closes. */
  readonly signal: AbortSignal;
}

/**
 * @internal A request as the chain's middleware see it, its signal read from its context when asked for
 * (a class: an object literal with an accessor is slow to create, and every request makes one).
 */
export class ChainRequest implements ServerRequest {
  readonly method: string;
  readonly params: JsonObject;
  readonly requestId: RequestId;
  readonly principal: Principal | undefined;
  readonly sessionId: string | undefined;
  readonly era: 'handshake' | 'stateless';
  readonly protocolVersion: string;
  readonly #ctx: { readonly signal: AbortSignal };

  constructor(
    ctx: { readonly id: RequestId; readonly method: string; readonly signal: AbortSignal },
    params: JsonObject,
    principal: Principal | undefined,
    sessionId: string | undefined,
    era: 'handshake' | 'stateless',
    protocolVersion: string,
  ) {
    this.method = ctx.method;
    this.params = params;
    this.requestId = ctx.id;
    this.principal = principal;
    this.sessionId = sessionId;
    this.era = era;
    this.protocolVersion = protocolVersion;
    this.#ctx = ctx;
  }

  get signal(): AbortSignal {
    return this.#ctx.signal;
  }
}

/** A request middleware: call `next()` at most once, or answer (or throw) without it. */
export type RequestMiddleware = (
  request: ServerRequest,
  next: () => Promise<JsonObject>,
) => Promise<JsonObject>;

export class RequestChain {
  #all: readonly RequestMiddleware[] = [];

  get empty(): boolean {
    return this.#all.length === 0;
  }

  use(middleware: RequestMiddleware): void {
    if (typeof middleware !== 'function') throw new TypeError('A request middleware must be a function');
    this.#all = [...this.#all, middleware];
  }

  /**
   * Runs `request` through the middleware, `handler` innermost. Not `compose` with an async handler: every
   * request of a server with request middleware passes here, and each layer of closures, frames and
   * promises costs it (one closure per middleware; the handler's own promise, as it is, with no `then`).
   */
  run(request: ServerRequest, handler: () => Promise<object> | object): Promise<JsonObject> {
    const all = this.#all;
    let last = -1;
    const dispatch = (i: number): Promise<JsonObject> => {
      if (i <= last) return Promise.reject(new Error('next() was called more than once by one middleware'));
      last = i;
      const middleware = all[i];
      try {
        if (middleware) return Promise.resolve(middleware(request, () => dispatch(i + 1)));
        // The handler's own promise as it is (a result is a wire object already: no `then` to say so).
        return Promise.resolve(handler() as Promise<JsonObject> | JsonObject);
      } catch (error) {
        return Promise.reject(asError(error));
      }
    };
    return dispatch(0);
  }
}
