/**
 * What one request is served as: its era, its revision's profile, the client as that request describes
 * it, and its log level. A handshake-era request takes these from its session; a stateless-era request
 * (2026-07-28) carries them in its own `_meta`, checked here.
 * @module
 */
import { ErrorCode, ProtocolError } from '../protocol/errors.js';
import { echoedName } from '../protocol/echoed-name.js';
import { isJsonObject, type JsonObject } from '../protocol/jsonrpc.js';
import {
  isStatelessRevision,
  profileFor,
  type ResultShapes,
  type RevisionProfile,
  type Revision,
} from '../protocol/revisions/index.js';
import {
  isLoggingLevel,
  type ClientCapabilities,
  isImplementation,
  type LoggingLevel,
} from '../protocol/types/lifecycle.js';
import { META } from '../protocol/types/stateless.js';
import type { Principal } from './auth/principal.js';
import type { RequestStateCodec } from './input-required/request-state.js';
import type { ContextHost } from './hosted-context.js';
import type { ClientView } from './tool-context.js';

/** What one request is served as; `era` tells the two apart. */
export type RequestScope = HandshakeScope | StatelessScope;

interface ScopeBase {
  readonly profile: RevisionProfile;
  readonly client: ClientView;
  /** Messages below this level are not sent; undefined: none at all (stateless era) or all (handshake era, unset). */
  readonly logLevel: LoggingLevel | undefined;
  /** Who sent the request, when the transport authenticated it (undefined: anonymous). */
  readonly principal: Principal | undefined;
  /**
   * The tool-context host made for this scope, kept on it so that the requests of a handshake-era
   * session share one while the scope stands (a WeakMap from scope to host cost a stateless server an
   * entry per request, and its garbage collector the ephemeron work).
   */
  host?: ContextHost;
}

/** A request of a handshake-era session: the session's revision, client and log level. */
export interface HandshakeScope extends ScopeBase {
  readonly era: 'handshake';
}

/** A stateless-era request: everything from its own `_meta`. */
export interface StatelessScope extends ScopeBase {
  readonly era: 'stateless';
  /** The codec of the `requestState` of multi round-trip requests (the server's). */
  readonly codec: RequestStateCodec;
}

const missing = (key: string) =>
  new ProtocolError(ErrorCode.InvalidParams, `Invalid params: _meta["${key}"] is required`);

/**
 * The scope of a stateless-era request, or the error to answer it with: -32022 for a version the server
 * does not serve (with the supported list), -32602 for a missing or malformed required `_meta` field.
 * `shapes`: the server's `resultShapes`.
 */
export function statelessScope(
  params: JsonObject,
  supported: readonly Revision[],
  principal: Principal | undefined,
  shapes: ResultShapes | undefined,
  codec: RequestStateCodec,
): StatelessScope {
  const meta = isJsonObject(params._meta) ? params._meta : {};
  const version = meta[META.protocolVersion];
  if (typeof version !== 'string') throw missing(META.protocolVersion);
  if (!isStatelessRevision(version) || !supported.includes(version)) {
    throw new ProtocolError(ErrorCode.UnsupportedProtocolVersion, 'Unsupported protocol version', {
      supported: supported.filter(isStatelessRevision),
      requested: version,
    });
  }
  const capabilities = meta[META.clientCapabilities];
  if (!isJsonObject(capabilities)) throw missing(META.clientCapabilities);
  const info = meta[META.clientInfo];
  const logLevel = meta[META.logLevel];
  if (logLevel !== undefined && !isLoggingLevel(logLevel)) {
    throw new ProtocolError(
      ErrorCode.InvalidParams,
      `Invalid params: unknown logging level ${echoedName(JSON.stringify(logLevel) ?? 'undefined')}`,
    );
  }
  return {
    era: 'stateless',
    profile: profileFor(version, shapes),
    client: {
      protocolVersion: version,
      info: isImplementation(info) ? info : undefined,
      capabilities: capabilities as ClientCapabilities,
    },
    logLevel,
    principal,
    codec,
  };
}
