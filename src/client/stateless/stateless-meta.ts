/**
 * What every stateless-era request (2026-07-28) carries in `_meta` (the protocol version, the client's
 * capabilities and info, the log level), and how the version is chosen again after a -32022
 * UnsupportedProtocolVersion error names the versions the server speaks.
 * @module
 */
import { ErrorCode, ProtocolError } from '../../protocol/errors.js';
import { isJsonObject, wireObject, type JsonObject } from '../../protocol/jsonrpc.js';
import { STATELESS_REVISIONS } from '../../protocol/revisions/index.js';
import type { ClientCapabilities, Implementation, LoggingLevel } from '../../protocol/types/lifecycle.js';
import { META } from '../../protocol/types/stateless.js';

/**
 * The newest version of `spoken` (newest first) that `supported` names, other than `exclude`; undefined
 * when there is none (or `supported` is not a list).
 */
export function pickStatelessVersion(
  supported: unknown,
  spoken: readonly string[] = STATELESS_REVISIONS,
  exclude?: string,
): string | undefined {
  if (!Array.isArray(supported)) return undefined;
  return spoken.find((version) => version !== exclude && supported.includes(version));
}

/** The `supported` list of a -32022 UnsupportedProtocolVersion error, if `error` is one. */
export function unsupportedVersionList(error: unknown): unknown[] | undefined {
  if (!(error instanceof ProtocolError) || error.code !== ErrorCode.UnsupportedProtocolVersion)
    return undefined;
  const data = error.data;
  return isJsonObject(data) && Array.isArray(data.supported) ? data.supported : undefined;
}

/** The request `_meta` of the stateless era. */
export function statelessMeta(
  version: string,
  capabilities: ClientCapabilities,
  info: Implementation,
  logLevel?: LoggingLevel,
): JsonObject {
  const meta: JsonObject = {
    [META.protocolVersion]: version,
    [META.clientCapabilities]: capabilities,
    [META.clientInfo]: wireObject(info),
  };
  if (logLevel !== undefined) meta[META.logLevel] = logLevel;
  return meta;
}
