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
import type { ClientCapabilities, Implementation } from '../protocol/types/lifecycle.js';
import type { Era, RevisionProfile } from '../protocol/revisions/index.js';
import type { RequestScope } from './request-scope.js';
import type { ServerResults } from './server-results.js';
import type { SessionView } from './session-view.js';

/** One request as its handler sees it. */
export interface HandlerRequest {
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
  request: HandlerRequest,
) => Promise<ServerResults[M]> | ServerResults[M];

export interface HandleOptions {
  /** The eras the method exists in (default both). */
  eras?: readonly Era[];
  /** The result may be cached: in the stateless era it gets the server's `ttlMs` and `cacheScope`. */
  cacheable?: boolean;
}

export interface HandlerEntry {
  readonly handler: (request: HandlerRequest) => Promise<object> | object;
  readonly handshake: boolean;
  readonly stateless: boolean;
  readonly cacheable: boolean;
}

/** A session as the server's shared handlers see it (`ctx.connection`): it serves requests and handshakes. */
export interface ServingSession extends SessionView {
  /** Serves a request with an entry of the server's table: its scope worked out, its result finished. */
  serve(entry: HandlerEntry, params: JsonObject, ctx: RequestContext): Promise<object> | object;
  /** `initialize` was answered already (or skipped). */
  readonly initialized: boolean;
  /** Records what `initialize` settled: the revision's profile and the client's info and capabilities. */
  begin(profile: RevisionProfile, info: Implementation | undefined, capabilities: ClientCapabilities): void;
  /** `notifications/initialized` arrived. */
  confirm(): void;
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
