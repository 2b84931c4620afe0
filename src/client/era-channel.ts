/**
 * What differs between the eras once a client met its server: the channel every request of the client
 * goes through after its links. The connection picks one when it connects — `HandshakeChannel`
 * (straight through the engine) or `StatelessChannel` (`stateless/`: the era's `_meta`, the result
 * cache, `input_required` rounds) — so the era is decided once, not per call.
 * @module
 */
import type { RequestOptions } from '../protocol/engine/peer.js';
import type { JsonObject } from '../protocol/jsonrpc.js';
import type { Implementation, LoggingLevel } from '../protocol/types/lifecycle.js';
import type { Requester } from './exchange-options.js';
import type { OutgoingRequest } from './links/client-link.js';

export interface EraChannel {
  readonly era: 'handshake' | 'stateless';
  /** The revision in use (a stateless-era server may move it to another it speaks, see `StatelessSender`). */
  readonly protocolVersion: string;
  /** The server, as it last introduced itself. */
  readonly serverInfo: Implementation | undefined;
  /** Whether `nextCursor: ""` ends a listing (the handshake era's reading; the stateless era's is a cursor). */
  readonly emptyCursorEnds: boolean;
  /**
   * Sends one request that passed the client's request links (the end of their chain; a function bound
   * to its channel, so that no closure is made per request).
   */
  readonly send: (request: OutgoingRequest) => Promise<JsonObject>;
  /** `ping` through `request` (the client's links); the stateless era has none: ClientError CAPABILITY_NOT_SUPPORTED. */
  ping(request: Requester, options?: RequestOptions): Promise<void>;
  /** `logging/setLevel` through `request`; in the stateless era the level goes in the `_meta` of every request. */
  setLoggingLevel(level: LoggingLevel, request: Requester): Promise<void>;
  /** Tells the server the roots changed; nothing in the stateless era (the server asks with each request). */
  rootsListChanged(): Promise<void>;
  /** Drops the cached results of `method` (those whose params `match`); the handshake era caches none. */
  forget(method: string, match?: (params: JsonObject) => boolean): void;
  /** Opens a `subscriptions/listen` stream (stateless era; the handshake era has none: CAPABILITY_NOT_SUPPORTED). */
  listen(params: JsonObject, options: RequestOptions): Promise<JsonObject>;
}
