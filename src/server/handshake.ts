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
  type Implementation,
  type InitializeResult,
} from '../protocol/types/lifecycle.js';
import { hasStatelessMeta } from '../protocol/types/stateless.js';
import type { HandlerTable } from './handler-table.js';
import type { ServerCore } from './server-core.js';
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

/**
 * What sessions keep of their clients (`clientInfo`, `capabilities`): one frozen object per JSON text,
 * shared by every session that sent the same (most clients of a server are a few programs): ≈140 B less
 * per session. At most `INTERNED_MAX` of each kind (the oldest leaves), none larger than `INTERNED_TEXT`.
 */
class Interned<T extends object> {
  readonly #byText = new Map<string, T>();

  get(value: T): T {
    const text = JSON.stringify(value);
    const kept = this.#byText.get(text);
    if (kept !== undefined) return kept;
    if (text.length > INTERNED_TEXT) return value;
    if (this.#byText.size >= INTERNED_MAX) this.#byText.delete(this.#byText.keys().next().value!);
    this.#byText.set(text, deepFreeze(value));
    return value;
  }
}

const INTERNED_MAX = 256;
const INTERNED_TEXT = 2048;

/** A JSON value frozen all the way down (parsed JSON: no cycles). */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}

const clientInfos = new Interned<Implementation>();
const clientCapabilities = new Interned<ClientCapabilities>();

/** -32601 for a handshake method sent in the stateless era. */
function refuseStateless(method: string, params: JsonObject): void {
  if (hasStatelessMeta(params)) {
    throw new ProtocolError(
      ErrorCode.MethodNotFound,
      `Method not found: ${method} does not exist in the stateless era`,
    );
  }
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
    const capabilities = params.capabilities;
    session.begin(
      profile,
      isImplementation(info) ? clientInfos.get(info) : undefined,
      clientCapabilities.get(isJsonObject(capabilities) ? (capabilities as ClientCapabilities) : {}),
    );
    const result: InitializeResult = {
      protocolVersion: version,
      capabilities: profile.shapeServerCapabilities(core.capabilities),
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
