/**
 * The tool-call middleware chain: what a middleware receives (`ToolCall`) and what it is. Every
 * `tools/call` whose arguments pass the tool's schema runs through the chain, built-ins first (audit,
 * rate limit, concurrency cap, timeout, sanitization), then the middleware added with `server.use()`
 * in the order added, then the handler.
 *
 * @example
 * ```ts
 * server.use(async (call, next) => {
 *   if (call.tool.annotations?.destructiveHint && call.principal === undefined) {
 *     call.decision = 'denied';
 *     return toolError(`${call.tool.name} needs a signed-in user`);
 *   }
 *   const result = await next(); // the handler's result, on its way out
 *   return result;
 * });
 * ```
 * @module
 */
import type { JsonObject, RequestId } from '../../protocol/jsonrpc.js';
import type { CallToolResult, Tool, ToolAnnotations } from '../../protocol/types/tools.js';
import type { Principal } from '../auth/principal.js';
import type { ToolLimits } from './tool-limits.js';

/**
 * What the chain decided about a call, for the audit log: `allowed` unless a middleware refused it.
 * A middleware that refuses a call sets `call.decision` before it returns or throws.
 */
export type CallDecision = 'allowed' | 'denied' | 'rate_limited' | 'timed_out';

/** The tool being called, as a middleware sees it. */
export interface CalledTool {
  readonly name: string;
  /** The tool as listed (every revision's fields): title, description, schemas, annotations, `_meta`. */
  readonly definition: Tool;
  readonly annotations: ToolAnnotations | undefined;
  /** Its own limits (`timeout`, `rateLimit`, `maxConcurrency`, `untrustedOutput`), where it declares them. */
  readonly limits: ToolLimits;
  /** It is declared for tasks (2026-07-28 tasks extension): long-running by design. */
  readonly task: boolean;
}

/** One tool call on its way through the chain. */
export interface ToolCall {
  readonly tool: CalledTool;
  /** The arguments, checked against the tool's `inputSchema` (and transformed by it, for zod schemas). */
  readonly arguments: JsonObject;
  /** Who is calling, as the transport authenticated it; undefined for anonymous calls. */
  readonly principal: Principal | undefined;
  /** The HTTP session id of a stateful HTTP connection; undefined elsewhere. */
  readonly sessionId: string | undefined;
  /** The client's address, for an HTTP request outside any session (the stateless era); else undefined. */
  readonly clientAddress?: string | undefined;
  readonly requestId: RequestId;
  /** Handshake era (2024-11-05 … 2025-11-25) or the stateless era (2026-07-28). */
  readonly era: 'handshake' | 'stateless';
  readonly protocolVersion: string;
  /**
   * The handler's signal: aborted when the client cancels, the connection closes, the server shuts
   * down, or a middleware calls `abort` (e.g. on timeout).
   */
  readonly signal: AbortSignal;
  /** The request's `_meta`. */
  readonly meta: JsonObject | undefined;
  /** What the chain decided so far; see {@link CallDecision}. */
  decision: CallDecision;
  /** Aborts the handler's `signal` with `reason`. */
  abort(reason?: unknown): void;
  /** Settles once the handler has returned or thrown, or once the chain ended without running it. */
  readonly done: Promise<void>;
  /** The handler is waiting for the client's input (elicitation, sampling, roots) right now. */
  readonly waitingForInput: boolean;
  /** Time the handler has spent waiting for the client's input so far, in ms. */
  inputWaitMs(): number;
}

/**
 * A tool-call middleware. It may return a result of its own without calling `next` (short-circuit),
 * throw a `ProtocolError` (the request's JSON-RPC error), or call `next()` once and see, change or
 * replace the result on its way out.
 */
export type ToolMiddleware = (call: ToolCall, next: () => Promise<CallToolResult>) => Promise<CallToolResult>;
