/**
 * Which POSTs the stateless era (2026-07-28) answers on an endpoint that serves both eras, decided by
 * the body (never by `Mcp-Session-Id`, which this era ignores):
 * - a request whose `_meta` names a protocol version: its metadata headers must match its body (else
 *   400, -32020 HeaderMismatch), then it is served on its own;
 * - on a server that speaks only this era, `initialize` too (its session answers with the error that
 *   names the versions it speaks, 400); an `initialize` that carries this era's `_meta` is a removed
 *   method (404, -32601);
 * - a notification that names this era (header or `_meta`): 202, nothing more (this era defines none
 *   over HTTP: cancellation is closing the stream);
 * - a request that names this era in `MCP-Protocol-Version` but not in `_meta`: 400, -32602.
 * Everything else belongs to the handshake era.
 * @module
 */
import type { HeaderReader } from './http-exchange.js';
import type { HttpRequestLike, Reply } from './http-exchange.js';
import { ErrorCode } from '../../protocol/errors.js';
import { classify, type JsonRpcRequest } from '../../protocol/jsonrpc.js';
import { isStatelessRevision } from '../../protocol/revisions/index.js';
import { META, hasStatelessMeta } from '../../protocol/types/stateless.js';
import type { ServerRuntime } from '../../server/server-runtime.js';
import { emptyReply, jsonResponse } from './http-status.js';
import { metaVersionOf, metadataMismatch, protocolVersionMismatch } from './request-metadata-headers.js';

export interface StatelessEraHost {
  readonly server: ServerRuntime;
  /** The server speaks no handshake-era revision. */
  readonly statelessOnly: boolean;
  /** Serves one request on a session of its own. */
  serve(message: JsonRpcRequest): Promise<Reply>;
}

const errorAnswer = (id: JsonRpcRequest['id'], code: number, message: string) =>
  jsonResponse({ jsonrpc: '2.0', id, error: { code, message } }, 400);

/** The answer to a single-message POST the stateless era takes, or undefined (the handshake era's). */
export function statelessEraPost(
  request: HttpRequestLike,
  body: unknown,
  host: StatelessEraHost,
): Promise<Reply> | Reply | undefined {
  const version = request.headers.get('mcp-protocol-version');
  const item = classify(body);
  if (item.kind === 'notification') {
    const stateless = isStatelessRevision(version) || hasStatelessMeta(item.message.params);
    return stateless ? emptyReply(202) : undefined;
  }
  if (item.kind !== 'request') return undefined;
  const message = item.message;
  if (message.method === 'initialize' && !hasStatelessMeta(message.params)) {
    return host.statelessOnly ? host.serve(message) : undefined;
  }
  if (hasStatelessMeta(message.params)) {
    const problem = headerProblem(request.headers, message, host.server);
    return problem === undefined
      ? host.serve(message)
      : errorAnswer(message.id, ErrorCode.HeaderMismatch, problem);
  }
  if (!isStatelessRevision(version)) return undefined;
  return errorAnswer(
    message.id,
    ErrorCode.InvalidParams,
    `Invalid params: _meta["${META.protocolVersion}"] is required`,
  );
}

/**
 * Why the headers of a stateless-era request do not match its body. A version the server does not
 * serve, or a malformed `_meta`, skips the checks after `MCP-Protocol-Version`: its session answers
 * (-32022 with the supported versions, -32602).
 */
function headerProblem(
  headers: HeaderReader,
  message: JsonRpcRequest,
  server: ServerRuntime,
): string | undefined {
  const version = metaVersionOf(message.params);
  if (typeof version !== 'string') return undefined;
  const versionProblem = protocolVersionMismatch(headers, version);
  if (versionProblem !== undefined) return versionProblem;
  if (!isStatelessRevision(version) || !server.versions.includes(version)) return undefined;
  const name = message.params?.name;
  const inputSchema =
    message.method === 'tools/call' && typeof name === 'string'
      ? server.tools.get(name)?.tool.inputSchema
      : undefined;
  return metadataMismatch(headers, message, inputSchema);
}
