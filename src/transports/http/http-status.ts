/**
 * The one table from JSON-RPC error codes to HTTP statuses, and the JSON error responses the HTTP
 * transport writes itself.
 * @module
 */
import { ErrorCode, type ToolwireError } from '../../protocol/errors.js';
import { stringifyJson } from '../../protocol/json-text.js';
import { errorResponse, type JsonRpcResponse, type RequestId } from '../../protocol/jsonrpc.js';
import { isRevision, profileFor } from '../../protocol/revisions/index.js';
import {
  isStoreFailure,
  isStoreUnavailable,
  storeUnavailableError,
} from '../../protocol/store-unavailable.js';
import type { QueuedOutput } from '../queued-output.js';
import { JsonReply } from './http-exchange.js';

const STATUS_BY_CODE: ReadonlyMap<number, number> = new Map([
  [ErrorCode.ParseError, 400],
  [ErrorCode.InvalidRequest, 400],
  [ErrorCode.MethodNotFound, 404],
  [ErrorCode.InvalidParams, 400],
  [ErrorCode.InternalError, 500],
  [ErrorCode.HeaderMismatch, 400],
  [ErrorCode.MissingRequiredClientCapability, 400],
  [ErrorCode.UnsupportedProtocolVersion, 400],
  [ErrorCode.RateLimited, 429],
  [ErrorCode.Forbidden, 403],
]);

export function httpStatusFor(code: number): number {
  return STATUS_BY_CODE.get(code) ?? 500;
}

/**
 * Whether an error that answers no known request id leaves `id` out at `revision` (2025-11-25 and later,
 * whose schema makes it optional and never null) rather than sending `"id": null` (JSON-RPC 2.0, and
 * what a client of an unknown revision expects).
 */
export function omitsUnknownId(revision: string | null | undefined): boolean {
  return isRevision(revision) && profileFor(revision).features.optionalErrorId;
}

/**
 * A JSON-RPC error with no request id as an HTTP response; `revision` (the request's
 * `MCP-Protocol-Version`, or its session's) decides between `"id": null` and no `id`.
 */
export function jsonRpcErrorResponse(
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
  revision?: string | null,
): JsonReply {
  const error = { code, message };
  return new JsonReply(
    status,
    { 'content-type': 'application/json', ...headers },
    JSON.stringify(
      omitsUnknownId(revision) ? { jsonrpc: '2.0', error } : { jsonrpc: '2.0', id: null, error },
    ),
  );
}

/**
 * The 429 for a client that holds `max` sessions or listen streams already: -31429 with `retryAfterMs`
 * (and `Retry-After`), answering `id` when the refused request has one that may be named.
 */
export function tooManyForClient(
  max: number,
  retryAfterMs: number,
  id: RequestId | undefined,
  revision: string | null | undefined,
): JsonReply {
  const error = {
    code: ErrorCode.RateLimited,
    message: `Too Many Requests: this client holds ${max} sessions or listen streams already`,
    data: { retryAfterMs },
  };
  const named = id !== undefined ? { id } : omitsUnknownId(revision) ? {} : { id: null };
  return jsonResponse({ jsonrpc: '2.0', ...named, error }, 429);
}

/** `Retry-After` (whole seconds, at least 1) for a 429 or 503 JSON-RPC error whose `data` has `retryAfterMs`. */
function retryAfter(status: number, body: unknown): Record<string, string> {
  if (status !== 429 && status !== 503) return {};
  const ms = (body as { error?: { data?: { retryAfterMs?: unknown } } } | null)?.error?.data?.retryAfterMs;
  if (typeof ms !== 'number' || !Number.isFinite(ms)) return {};
  return { 'retry-after': String(Math.max(1, Math.ceil(ms / 1000))) };
}

export function jsonResponse(body: unknown, status = 200, headers: Record<string, string> = {}): JsonReply {
  const all =
    status === 429 || status === 503
      ? { 'content-type': 'application/json', ...retryAfter(status, body), ...headers }
      : { 'content-type': 'application/json', ...headers };
  return new JsonReply(status, all, stringifyJson(body));
}

/** An answer without a body (202 Accepted, 200 for a DELETE). */
export function emptyReply(status: number, headers: Record<string, string> = {}): JsonReply {
  return new JsonReply(status, headers, null);
}

/** Whether a message is a JSON-RPC error refusing a request for its rate limit (sent with status 429). */
export function isRateLimited(message: unknown): boolean {
  return (message as { error?: { code?: unknown } } | undefined)?.error?.code === ErrorCode.RateLimited;
}

/**
 * The status of a lone JSON answer where errors otherwise go with 200 (a session's POST, a handshake-era
 * stateless server's): 429 for a rate-limit refusal, 503 for a shared store that failed (both with
 * `Retry-After`).
 */
export function answerStatus(message: unknown): number {
  return isRateLimited(message) ? 429 : isStoreUnavailable(message) ? 503 : 200;
}

/**
 * 503 with `Retry-After` for a shared store that failed before any request ran (loading a session, say):
 * the same JSON-RPC error a request that met the failure answers with, without an id.
 */
export function storeUnavailableReply(error: ToolwireError, revision: string | null | undefined): JsonReply {
  const id = omitsUnknownId(revision) ? {} : { id: null };
  return jsonResponse({ jsonrpc: '2.0', ...id, error: storeUnavailableError(error) }, 503);
}

/**
 * What a response becomes when a shared store it needed before it could go out failed (a shared session's
 * record): the request's store-unavailable error. Any other error is thrown again.
 */
export function storeFailedAnswer(id: RequestId | null | undefined, error: unknown): JsonRpcResponse {
  if (!isStoreFailure(error)) throw error;
  return errorResponse(id, storeUnavailableError(error));
}

/**
 * 429 for a POST to a session whose client leaves too much of its SSE output unread: nothing more is
 * taken from it until it reads (its other requests still answer on their streams).
 */
export function tooMuchUnread(
  queue: QueuedOutput,
  headers: Record<string, string>,
  revision: string | null | undefined,
): JsonReply {
  const error = {
    code: ErrorCode.RateLimited,
    message: `Too Many Requests: ${queue.describe()}; read the session's streams, then retry`,
    data: { retryAfterMs: 1000 },
  };
  const id = omitsUnknownId(revision) ? {} : { id: null };
  return jsonResponse({ jsonrpc: '2.0', ...id, error }, 429, headers);
}

/** 503 for what would start new work (a session, a stream, a stateless exchange) while the server closes. */
export function shuttingDown(revision?: string | null): JsonReply {
  const message = 'Service Unavailable: the server is shutting down';
  return jsonRpcErrorResponse(503, ErrorCode.InternalError, message, {}, revision);
}
