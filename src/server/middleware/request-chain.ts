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
import { wireObject, type JsonObject, type RequestId } from '../../protocol/jsonrpc.js';
import type { Principal } from '../auth/principal.js';
import { compose } from './compose.js';

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

  run(request: ServerRequest, handler: () => Promise<object> | object): Promise<JsonObject> {
    return compose(this.#all, async () => wireObject(await handler()))(request);
  }
}
