/**
 * Client links: middleware around what a client sends, in the style of tRPC links and the server's tool
 * middleware. A link gets the outgoing call and `next`, which runs the rest of the chain; it may change
 * the call (`next(changed)`), change or replace the result on its way back, answer without calling `next`
 * (short-circuit), or throw. Links are added with `ClientOptions.links` or `client.use(link)`.
 *
 * The order of a `tools/call`, outermost first:
 * 1. the audit (`onAudit`): sees every decision and every outcome, short-circuits included;
 * 2. the approval policy (`approval`): may refuse (ClientError TOOL_CALL_DENIED) before anything is sent;
 * 3. the tool-call links, in the order added (they run after approval: the approver saw the caller's
 *    arguments, so a link that rewrites them is trusted code of the application);
 * 4. the result checks: size cap (`maxResultBytes`), content blocks, `isError`, outputSchema;
 * 5. the request links, in the order added, around the `tools/call` request itself; then the wire.
 *
 * @example
 * ```ts
 * client.use({
 *   toolCall: async (call, next) => {
 *     if (call.name === 'shell') throw new Error('not from this app');
 *     const result = await next({ ...call, arguments: { ...call.arguments, dryRun: true } });
 *     return { ...result, content: result.content.slice(0, 10) };
 *   },
 *   request: (request, next) => next({ ...request, options: { ...request.options, timeout: 5_000 } }),
 * });
 * ```
 * @module
 */
import type { JsonObject } from '../../protocol/jsonrpc.js';
import type { Implementation } from '../../protocol/types/lifecycle.js';
import type { CallToolResult, Tool } from '../../protocol/types/tools.js';
import type { ClientAuditDecision } from '../approval/audit-record.js';
import type { CallToolOptions } from '../call-tool-options.js';
import type { ExchangeOptions } from '../exchange-options.js';

/** One request on its way out (every method the client's API sends once connected). */
export interface OutgoingRequest {
  readonly method: string;
  readonly params: JsonObject | undefined;
  /** `timeout`, `signal`, `onProgress`… as the caller gave them. */
  readonly options: ExchangeOptions;
}

/** What the chain decided about a tool call so far, for the audit record. A link that refuses sets it. */
export interface ToolCallVerdict {
  decision: ClientAuditDecision;
  reason: string;
  /** `performance.now()` when the approval let the call through: the audit's duration starts there. */
  approvedAt?: number;
}

/** One `tools/call` on its way out. */
export interface OutgoingToolCall {
  readonly name: string;
  readonly arguments: JsonObject;
  /** The tool as the server listed it (title, annotations, schemas); only its name when unlisted. */
  tool(): Promise<Tool>;
  /** The server, as it introduced itself. */
  readonly server: Implementation | undefined;
  /** The options of this call (`timeout`, `signal`, `validateOutput`, `maxResultBytes`…). */
  readonly options: CallToolOptions;
  /** Shared by every link of this call (a changed call passed to `next` keeps it). */
  readonly verdict: ToolCallVerdict;
}

/** Middleware around each request; `next()` without an argument sends the request as it came. */
export type RequestLink = (
  request: OutgoingRequest,
  next: (request?: OutgoingRequest) => Promise<JsonObject>,
) => Promise<JsonObject>;

/** Middleware around each tool call; `next()` without an argument sends the call as it came. */
export type ToolCallLink = (
  call: OutgoingToolCall,
  next: (call?: OutgoingToolCall) => Promise<CallToolResult>,
) => Promise<CallToolResult>;

/** A link: either side, or both. */
export interface ClientLink {
  /** Named in errors and for debugging. */
  name?: string;
  request?: RequestLink;
  toolCall?: ToolCallLink;
}
