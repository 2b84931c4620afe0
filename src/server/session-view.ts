/**
 * What a request handler may use of the session a request came on: its connection (to send the client
 * notifications and, in the handshake era, requests), who it is authenticated as, the client as the
 * handshake described it, and the session-level state a handler changes (`logging/setLevel`). The
 * session class (`SessionView`) implements it; features and handlers depend on this view only.
 * @module
 */
import type { Peer } from '../protocol/engine/peer.js';
import type { RequestContext } from '../protocol/engine/peer.js';
import type { JsonObject } from '../protocol/jsonrpc.js';
import type { RevisionProfile } from '../protocol/revisions/index.js';
import type { ClientCapabilities, Implementation, LoggingLevel } from '../protocol/types/lifecycle.js';
import type { Principal } from './auth/principal.js';
import type { HandlerEntry } from './handler-table.js';
import type { ClientView } from './tool-context.js';

/** The session's connection as a handler uses it. */
export type SessionPeer = Pick<Peer, 'request' | 'notify' | 'transport'>;

export interface SessionView {
  readonly peer: SessionPeer;
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
  /** `logging/setLevel` (handshake era): messages below `level` are not sent on this session. */
  setLogLevel(level: LoggingLevel): void;
  /** What a shared session record holds changed after the handshake (resource subscriptions). */
  stateChanged(): void;
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
