/**
 * The request handlers of a server, registered once and shared by every session: a session carries only
 * its own state (revision, client, log level, principal), not a copy of every handler (a stateless HTTP
 * server makes a session per request; a stateful one may hold thousands).
 * @module
 */
import type { RequestContext } from '../protocol/engine/peer.js';
import type { JsonObject } from '../protocol/jsonrpc.js';
import type { RequestScope } from './request-scope.js';
import type { ServerSession } from './server-session.js';

/** A request handler: the request's params, its scope, its engine context, and the session it came on. */
export type ScopedHandler = (
  params: JsonObject,
  scope: RequestScope,
  ctx: RequestContext,
  session: ServerSession,
) => Promise<JsonObject> | JsonObject;

export interface HandleOptions {
  /** The eras the method exists in (default both). */
  eras?: ReadonlyArray<'handshake' | 'stateless'>;
  /** The result may be cached: in the stateless era it gets the server's `ttlMs` and `cacheScope`. */
  cacheable?: boolean;
}

export interface HandlerEntry {
  readonly handler: ScopedHandler;
  readonly handshake: boolean;
  readonly stateless: boolean;
  readonly cacheable: boolean;
}

export class HandlerTable {
  readonly #entries = new Map<string, HandlerEntry>();

  /** Registers the handler of `method` (replacing any before it). */
  handle(method: string, handler: ScopedHandler, options: HandleOptions = {}): void {
    const eras = options.eras ?? ['handshake', 'stateless'];
    this.#entries.set(method, {
      handler,
      handshake: eras.includes('handshake'),
      stateless: eras.includes('stateless'),
      cacheable: options.cacheable === true,
    });
  }

  get(method: string): HandlerEntry | undefined {
    return this.#entries.get(method);
  }
}
