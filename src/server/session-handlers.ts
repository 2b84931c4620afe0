/**
 * The session's own methods: the revision an `initialize` settles on, and the session-level methods
 * every server serves from its shared handler table, `logging/setLevel` (handshake era: the
 * session's log level) and `server/discover` (stateless era: versions, capabilities and instructions).
 * @module
 */
import { ErrorCode, ProtocolError } from '../protocol/errors.js';
import type { JsonObject } from '../protocol/jsonrpc.js';
import {
  isHandshakeRevision,
  negotiateVersion,
  type HandshakeRevision,
  type Revision,
} from '../protocol/revisions/index.js';
import { isLoggingLevel } from '../protocol/types/lifecycle.js';
import type { HandlerTable } from './handler-table.js';
import type { ServerCore } from './server-core.js';

/**
 * The handshake-era revision an `initialize` request settles on: -32602 when it names no version, or
 * when the server speaks only the stateless era.
 */
export function initializeVersion(params: JsonObject, versions: readonly Revision[]): HandshakeRevision {
  const requested = params.protocolVersion;
  if (typeof requested !== 'string' || requested.length === 0) {
    throw new ProtocolError(ErrorCode.InvalidParams, 'Invalid params: protocolVersion must be a string');
  }
  const handshake = versions.filter(isHandshakeRevision);
  if (handshake.length === 0) {
    throw new ProtocolError(
      ErrorCode.InvalidParams,
      'Unsupported protocol version: this server speaks only the stateless era (no initialize)',
      { supported: [...versions], requested },
    );
  }
  return negotiateVersion(requested, handshake);
}

/** The session-level methods every server serves: `logging/setLevel` and `server/discover`. */
export function installSessionHandlers(table: HandlerTable, core: ServerCore): void {
  table.handle(
    'logging/setLevel',
    (params, _scope, _ctx, session) => {
      if (!isLoggingLevel(params.level)) {
        throw new ProtocolError(
          ErrorCode.InvalidParams,
          `Invalid params: unknown logging level ${String(params.level)}`,
        );
      }
      session.setLogLevel(params.level);
      return {};
    },
    { eras: ['handshake'] },
  );
  table.handle(
    'server/discover',
    (_params, scope) => ({
      supportedVersions: [...core.versions],
      capabilities: scope.profile.shapeServerCapabilities(core.capabilities),
      ...(core.options.instructions === undefined ? {} : { instructions: core.options.instructions }),
    }),
    { eras: ['stateless'], cacheable: true },
  );
}
