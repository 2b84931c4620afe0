/**
 * What a request handler may use of the session a request came on: its connection (to send the client
 * notifications and, in the handshake era, requests), who it is authenticated as, the client as the
 * handshake described it, and the session-level state a handler changes (`logging/setLevel`). The
 * session class (`SessionView`) implements it; features and handlers depend on this view only.
 * @module
 */
import type { Peer, RequestOptions } from '../protocol/engine/peer.js';
import type { ListRootsResult } from '../protocol/types/client-features.js';
import type { LoggingLevel } from '../protocol/types/lifecycle.js';
import type { Principal } from './auth/principal.js';
import type { ClientView } from './tool-context.js';

/** A client's connection to a server, as `server.connect()` resolves with it. */
export interface ServerConnection {
  /** Who the connection's requests come from (undefined: anonymous). */
  readonly principal: Principal | undefined;
  /** The client as the handshake described it (empty before `initialize`). */
  readonly client: ClientView;
  /** The negotiated handshake-era revision, once `initialize` has been answered. */
  readonly protocolVersion: string | undefined;
  /** The level `logging/setLevel` asked for (handshake era), if any. */
  readonly logLevel: LoggingLevel | undefined;
  /** The handshake is done (list_changed and the like may be sent). */
  readonly ready: boolean;
  /** The HTTP session id of a stateful HTTP connection; undefined elsewhere (stdio, in memory, stateless). */
  readonly sessionId: string | undefined;
  /** Called once the connection has closed. */
  onclose?: () => void;
  /** Called when the client said it is initialized (`notifications/initialized`, handshake era). */
  oninitialized?: () => void;
  /** Pings the client (handshake era). */
  ping(options?: RequestOptions): Promise<void>;
  /**
   * Lists the client's roots outside any request (`roots/list` on the connection: a stdio client, an HTTP
   * session's standalone stream), for a handshake-era client that declared `roots`; a request's handler asks
   * with its context's `listRoots` instead. Rejects with a ServerError CAPABILITY_NOT_SUPPORTED before
   * `initialize`, in the stateless era and for a client that did not declare `roots`, INVALID_RESULT for an
   * answer that is no list of roots.
   */
  listRoots(options?: RequestOptions): Promise<ListRootsResult>;
  /**
   * Closes the connection. With `graceMs`, first takes no new requests and lets those running finish (at
   * most `graceMs`; what still runs then is cancelled and answered with -32603).
   */
  close(options?: { graceMs?: number }): Promise<void>;
}

/** The session's connection as a handler uses it. */
export type SessionPeer = Pick<Peer, 'request' | 'notify' | 'transport'>;

export interface SessionView extends ServerConnection {
  readonly peer: SessionPeer;
  /** An opaque object of this session's own, the same for its life (a handshake-era context's `connection`). */
  readonly connection: object;
  /** `logging/setLevel` (handshake era): messages below `level` are not sent on this session. */
  setLogLevel(level: LoggingLevel): void;
  /** What a shared session record holds changed after the handshake (resource subscriptions). */
  stateChanged(): void;
}
