/**
 * The `MCP-Protocol-Version` header of a handshake-era request (2025-03-26 … 2025-11-25 binding): one
 * check of a present header against the handshake-era revisions the server speaks (its `versions`
 * option), made on POST, GET and DELETE before the request reaches a session; and the revision a
 * stateless server (`stateless: true`) serves a handshake-era request at, which has no session to carry
 * one. A session's own requests are served at the revision it negotiated: a header that names another
 * revision the server speaks is accepted and does not change it (the spec's SHOULD, not a MUST).
 * @module
 */
import type { HttpRequestLike, JsonReply } from './http-exchange.js';
import { ErrorCode } from '../../protocol/errors.js';
import { echoedName } from '../../protocol/echoed-name.js';
import {
  HANDSHAKE_REVISIONS,
  isHandshakeRevision,
  type HandshakeRevision,
  type Revision,
} from '../../protocol/revisions/index.js';
import { jsonRpcErrorResponse } from './http-status.js';

/** The revision the spec has a server assume when a request carries no header and nothing else says. */
const DEFAULT_REVISION = '2025-03-26';

const badRequest = (message: string, revision: string | null) =>
  jsonRpcErrorResponse(400, ErrorCode.InvalidRequest, `Bad Request: ${message}`, {}, revision);

/** Per server's `versions` (fixed when the server is made): its handshake-era ones, found once. */
const known = new WeakMap<readonly Revision[], readonly HandshakeRevision[]>();

/** The handshake-era revisions among `versions` (a server's), newest first; the same array each time. */
export function handshakeVersions(versions: readonly Revision[]): readonly HandshakeRevision[] {
  let found = known.get(versions);
  if (!found) {
    found = HANDSHAKE_REVISIONS.filter((revision) => versions.includes(revision));
    known.set(versions, found);
  }
  return found;
}

/**
 * The 400 for a request whose `MCP-Protocol-Version` header is not one of `supported`, or undefined
 * (no header, or a supported one).
 */
export function unsupportedVersionHeader(
  request: HttpRequestLike,
  supported: readonly HandshakeRevision[],
): JsonReply | undefined {
  const version = request.headers.get('mcp-protocol-version');
  if (version === null || (supported as readonly string[]).includes(version)) return undefined;
  return badRequest(
    `unsupported MCP-Protocol-Version ${echoedName(version)} (supported: ${supported.join(', ') || 'none'})`,
    version,
  );
}

/**
 * The revision a stateless server serves a handshake-era request at: its header's (checked already by
 * {@link unsupportedVersionHeader}), else 2025-03-26 when the server speaks it (the spec's default for a
 * request that says nothing), else a 400 saying the header is required.
 */
export function statelessServerRevision(
  request: HttpRequestLike,
  supported: readonly HandshakeRevision[],
): HandshakeRevision | JsonReply {
  const version = request.headers.get('mcp-protocol-version');
  if (isHandshakeRevision(version)) return version;
  if (supported.includes(DEFAULT_REVISION)) return DEFAULT_REVISION;
  return badRequest(
    `the MCP-Protocol-Version header is required (this server does not speak ${DEFAULT_REVISION}; supported: ${supported.join(', ')})`,
    null,
  );
}
