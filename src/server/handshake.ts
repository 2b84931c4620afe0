/**
 * The handshake era's own methods, served before a session has a revision: `initialize` (the revision
 * settled on, the client's info and capabilities recorded, the server's shaped for that revision),
 * `ping`, `notifications/initialized` and `notifications/roots/list_changed`. They go in the server's
 * handler table like every other method; a stateless-era request for them gets -32601.
 * @module
 */
import { ErrorCode, ProtocolError } from '../protocol/errors.js';
import { isJsonObject, type JsonObject } from '../protocol/jsonrpc.js';
import {
  isHandshakeRevision,
  negotiateVersion,
  profileFor,
  type HandshakeRevision,
  type Revision,
} from '../protocol/revisions/index.js';
import {
  isImplementation,
  type ClientCapabilities,
  type InitializeResult,
} from '../protocol/types/lifecycle.js';
import { hasStatelessMeta } from '../protocol/types/stateless.js';
import type { HandlerTable } from './handler-table.js';
import { internCapabilities, internClientInfo } from './interned-clients.js';
import type { ServerCore } from './server-core.js';
import { withoutTasksList } from './tasks/core-task-wire.js';
import type { EmptyResult } from './server-results.js';

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

/** -32601 for a handshake method sent in the stateless era. */
function refuseStateless(method: string, params: JsonObject): void {
  if (hasStatelessMeta(params)) {
    throw new ProtocolError(
      ErrorCode.MethodNotFound,
      `Method not found: ${method} does not exist in the stateless era`,
    );
  }
}

/**
 * Characters of JSON a client's `clientInfo`, and its `capabilities`, may have each: a session keeps both
 * for its life (a shared session in its record, in Redis), so a client cannot make one hold megabytes.
 */
export const MAX_CLIENT_DESCRIPTION_CHARS = 64 * 1024;

/** -32602 for a `clientInfo` or `capabilities` longer than `MAX_CLIENT_DESCRIPTION_CHARS` as JSON. */
function refuseLarge(name: 'clientInfo' | 'capabilities', value: unknown): void {
  const length = JSON.stringify(value ?? null).length;
  if (length <= MAX_CLIENT_DESCRIPTION_CHARS) return;
  throw new ProtocolError(
    ErrorCode.InvalidParams,
    `Invalid params: "${name}" has ${length} characters of JSON, more than the ${MAX_CLIENT_DESCRIPTION_CHARS} a session keeps`,
    { limit: name, max: MAX_CLIENT_DESCRIPTION_CHARS },
  );
}

/** Puts the handshake's methods in the server's table. */
export function installHandshake(table: HandlerTable, core: ServerCore): void {
  const handlers = table.engine;
  handlers.request('ping', (params): EmptyResult => {
    refuseStateless('ping', params);
    return {};
  });
  handlers.request('initialize', (params, ctx): InitializeResult => {
    refuseStateless('initialize', params);
    const session = ctx.connection;
    if (session.initialized) {
      throw new ProtocolError(
        ErrorCode.InvalidRequest,
        'Invalid request: the session is already initialized',
      );
    }
    const version = initializeVersion(params, core.versions);
    const profile = profileFor(version, core.options.resultShapes);
    const info = params.clientInfo;
    const asked = params.capabilities;
    refuseLarge('clientInfo', info);
    refuseLarge('capabilities', asked);
    session.begin(
      profile,
      isImplementation(info) ? internClientInfo(info) : undefined,
      internCapabilities(isJsonObject(asked) ? (asked as ClientCapabilities) : {}),
    );
    const capabilities = profile.shapeServerCapabilities(core.capabilities);
    const result: InitializeResult = {
      protocolVersion: version,
      // `tasks.list` only for a caller the server can tell from others (see `TasksFeature.lists`).
      capabilities:
        core.tasks === undefined || core.tasks.lists(session.principal, session)
          ? capabilities
          : withoutTasksList(capabilities),
      serverInfo: profile.shapeImplementation(core.info),
    };
    if (core.options.instructions !== undefined) result.instructions = core.options.instructions;
    return result;
  });
  handlers.notification('notifications/initialized', (_params, session) => session.confirm());
  handlers.notification('notifications/roots/list_changed', (_params, session) =>
    core.options.onRootsListChanged?.(session),
  );
}
