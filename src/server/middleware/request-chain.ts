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
import type { MaybePromise } from '../../protocol/promise-like.js';
import { NO_INLINE, runChain } from './compose.js';

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

/** Which requests a request middleware sees (`server.useRequest(middleware, options)`). */
export interface RequestMiddlewareOptions {
  /**
   * Only requests of these methods: the others pass by it, and a request no middleware sees pays nothing
   * for the chain (no request object, no promise steps). Default: every request.
   */
  methods?: readonly string[];
}

interface Layer {
  readonly middleware: RequestMiddleware;
  readonly methods: ReadonlySet<string> | undefined;
}

const NONE: readonly RequestMiddleware[] = Object.freeze([]);

export class RequestChain {
  #all: readonly Layer[] = [];
  /** The middleware of each method served so far (methods of the server's table: a bounded set). */
  readonly #byMethod = new Map<string, readonly RequestMiddleware[]>();

  use(middleware: RequestMiddleware, options: RequestMiddlewareOptions = {}): void {
    if (typeof middleware !== 'function') throw new TypeError('A request middleware must be a function');
    const { methods } = options;
    if (
      methods !== undefined &&
      (!Array.isArray(methods) || !methods.every((m) => typeof m === 'string' && m.length > 0))
    ) {
      throw new TypeError("A request middleware's methods must be an array of method names");
    }
    this.#all = [...this.#all, { middleware, methods: methods && new Set(methods) }];
    this.#byMethod.clear();
  }

  /** The middleware that see requests of `method`, in the order added (empty: none). */
  of(method: string): readonly RequestMiddleware[] {
    if (this.#all.length === 0) return NONE;
    let chain = this.#byMethod.get(method);
    if (chain === undefined) {
      const seen = this.#all.filter((layer) => !layer.methods || layer.methods.has(method));
      chain = seen.length === 0 ? NONE : Object.freeze(seen.map((layer) => layer.middleware));
      this.#byMethod.set(method, chain);
    }
    return chain;
  }

  /**
   * Runs `request` through `chain` (the middleware of its method, see `of`), `handler` innermost. Not
   * `compose` with an async handler: every request with middleware passes here, and each layer of
   * closures, frames and promises costs it (one closure per middleware; the handler's own promise, as it
   * is, with no `then`).
   */
  run(
    chain: readonly RequestMiddleware[],
    request: ServerRequest,
    handler: () => Promise<object> | object,
  ): Promise<JsonObject> {
    // The handler's own promise as it is (a result is a wire object already: no `then` to say so).
    return Promise.resolve(runChain(NO_INLINE, chain, request, handler as () => MaybePromise<JsonObject>));
  }
}
