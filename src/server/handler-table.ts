/**
 * The request handlers of a server, registered once and shared by every session: a session carries only
 * its own state (revision, client, log level, principal), not a copy of every handler (a stateless HTTP
 * server makes a session per request; a stateful one may hold thousands).
 *
 * Every request a session receives is dispatched by the engine through one table (`Handlers`, shared by
 * the sessions' peers). A feature registers a method here with `handle`: the engine's entry for it asks
 * the session the request came on to serve it (`ServingSession.serve`), which works out the request's
 * scope once and calls the handler with one typed request.
 * @module
 */
import { Handlers, type RequestContext } from '../protocol/engine/peer.js';
import type { JsonObject } from '../protocol/jsonrpc.js';
import type { Era } from '../protocol/revisions/index.js';
import type { RequestScope } from './request-scope.js';
import type { ServerResults } from './server-results.js';
import type { ServingSession, SessionView } from './session-view.js';

/** One request as its handler sees it. */
export interface ServerRequest {
  readonly params: JsonObject;
  /** What the request is served as: era, revision profile, client, log level, principal. */
  readonly scope: RequestScope;
  /** The engine's record of the request: id, cancellation, `_meta`. */
  readonly ctx: RequestContext;
  /** The session the request came on. */
  readonly session: SessionView;
}

/** A request handler of method `M`: its result is the method's result type. */
export type ServerHandler<M extends keyof ServerResults> = (
  request: ServerRequest,
) => Promise<ServerResults[M]> | ServerResults[M];

export interface HandleOptions {
  /** The eras the method exists in (default both). */
  eras?: readonly Era[];
  /** The result may be cached: in the stateless era it gets the server's `ttlMs` and `cacheScope`. */
  cacheable?: boolean;
}

export interface HandlerEntry {
  readonly handler: (request: ServerRequest) => Promise<object> | object;
  readonly handshake: boolean;
  readonly stateless: boolean;
  readonly cacheable: boolean;
}

export class HandlerTable {
  /** What every session's peer dispatches through. */
  readonly engine = new Handlers<ServingSession>();

  /** Registers the handler of `method` (replacing any before it). */
  handle<M extends keyof ServerResults>(
    method: M,
    handler: ServerHandler<M>,
    options: HandleOptions = {},
  ): void {
    const eras = options.eras ?? ['handshake', 'stateless'];
    const entry: HandlerEntry = {
      handler,
      handshake: eras.includes('handshake'),
      stateless: eras.includes('stateless'),
      cacheable: options.cacheable === true,
    };
    this.engine.request(method, (params, ctx) => ctx.connection.serve(entry, params, ctx));
  }
}
