/**
 * The context a tool handler receives: cancellation, progress, logging, input from the client
 * (elicitation, sampling, roots: requests to the client in the handshake era, multi round-trip requests
 * in the stateless era), and the request's trace context.
 * @module
 */
import type { Cancellation } from '../protocol/engine/cancellation.js';
import type { RequestOptions } from '../protocol/engine/peer.js';
import type { JsonObject, RequestId } from '../protocol/jsonrpc.js';
import type {
  CreateMessageParams,
  CreateMessageResult,
  ElicitParams,
  ElicitResult,
  ListRootsResult,
} from '../protocol/types/client-features.js';
import type { ClientCapabilities, Implementation, LoggingLevel } from '../protocol/types/lifecycle.js';
import type { Principal } from './auth/principal.js';

/** Options of `elicit`, `sample` and `listRoots`. */
export interface InputOptions extends RequestOptions {
  /**
   * Stateless era: the key of this question in `inputRequests` (default: its kind and position, e.g.
   * `elicit-1`). Name it when clients or tests expect a stable key; keys must be unique within a call.
   */
  key?: string;
  /**
   * `ctx.elicit()`: check the content a form is accepted with against its `requestedSchema` (default true);
   * content that does not match rejects with INVALID_RESULT. A relay passing another server's question on
   * (the gateway) leaves that to the server that asked.
   */
  validate?: boolean;
}

/** What the server knows of the client on this connection. */
export interface ClientView {
  readonly protocolVersion: string;
  readonly info: Implementation | undefined;
  readonly capabilities: ClientCapabilities;
}

export interface ToolContext {
  /** Aborted when the client cancels the call, the connection closes, or the server shuts down. */
  readonly signal: AbortSignal;
  /**
   * The same cancellation as `signal`, followed without creating it: `aborted`, `reason`, `onAbort`.
   * Pass it on as a request's `cancellation` (a gateway relaying the call) to spare an `AbortSignal` per
   * call; nothing else changes.
   */
  readonly cancellation: Cancellation;
  readonly requestId: RequestId;
  /** The request's `_meta`. */
  readonly meta: JsonObject | undefined;
  readonly client: ClientView;
  /**
   * Who is calling, as the transport authenticated it (verified facts: subject, scopes, roles, claims —
   * never the credential); undefined for anonymous calls.
   */
  readonly principal: Principal | undefined;
  /** The HTTP session id of a stateful HTTP connection; undefined elsewhere (as `ToolCall.sessionId`). */
  readonly sessionId: string | undefined;
  /**
   * Handshake era: an opaque object of the connection the request came on (a stdio or in-memory
   * connection, a stateful HTTP session, a legacy HTTP+SSE session), the same for every request on it
   * while it lasts and shared with no other: compare it (`===`) to tell whether two requests come from
   * one client connection, where neither `sessionId` (stdio, in memory) nor `principal` says so. Undefined
   * in the stateless era, whose requests stand alone.
   */
  readonly connection: object | undefined;
  /** W3C `traceparent` from the request's `_meta` (undefined when absent or malformed). */
  readonly traceparent: string | undefined;
  /** W3C `tracestate` from the request's `_meta` (only alongside a valid `traceparent`). */
  readonly tracestate: string | undefined;
  /** Reports progress when the caller asked for it (a no-op otherwise). Values must increase. */
  readonly progress: (progress: number, total?: number, message?: string) => Promise<void>;
  /** Sends `notifications/message`, honouring the level the client set. */
  readonly log: (level: LoggingLevel, data: unknown, logger?: string) => Promise<void>;
  /**
   * Asks the user for input through the client (needs the client's `elicitation` capability).
   *
   * The same code serves both eras. In the handshake era this sends `elicitation/create` to the client.
   * In the stateless era (2026-07-28) a server sends no requests: the call ends with an
   * `InputRequiredResult` carrying the question, and when the client retries with the answer the handler
   * runs again from the start and this resolves with it. So everything a handler does before its last
   * question runs once per round; keep it free of side effects, or make them idempotent. A client that
   * did not declare the capability gets -32021 (stateless era) or an `isError` result (handshake era).
   */
  readonly elicit: (params: ElicitParams, options?: InputOptions) => Promise<ElicitResult>;
  /** Asks the client's model for a completion (needs the client's `sampling` capability); both eras as `elicit`. */
  readonly sample: (params: CreateMessageParams, options?: InputOptions) => Promise<CreateMessageResult>;
  /** Lists the client's roots (needs the client's `roots` capability); both eras as `elicit`. */
  readonly listRoots: (options?: InputOptions) => Promise<ListRootsResult>;
  /**
   * 2025-11-25: tells this call's client that the URL-mode elicitation `elicitationId` is done
   * (`notifications/elicitation/complete`), so that it may retry what waited for it. It may be called
   * after the call has ended (the out-of-band step usually finishes later): it goes to the same client,
   * as long as its connection lasts. A no-op where the notification does not exist: the stateless era
   * (the client learns by retrying), and clients that did not declare `elicitation.url`.
   */
  readonly completeElicitation: (elicitationId: string) => Promise<void>;
  /**
   * Ends this call's HTTP response stream now without ending the call (2025-11-25 SSE polling): the
   * client reconnects with `Last-Event-ID` and receives the rest. A no-op on stdio, in JSON mode and
   * without an event store.
   */
  readonly closeSSEStream: () => void;
  /**
   * 2026-07-28, the tasks extension: turns this call into a task, for a tool declared with
   * `task: { support, start: 'handler' }` (input asked before this went through multi round-trip
   * requests; input asked after it waits for `tasks/update`). The client gets its `CreateTaskResult`
   * once the task is stored, and the handler goes on in the background. Resolves with the task id
   * (the same one on a second call), or undefined when the call cannot become a task (the client did
   * not declare the extension, the handshake era, a tool not declared for tasks).
   */
  readonly startTask: () => Promise<string | undefined>;
  /**
   * Stateless era: what this handler carried to this attempt with `carry()` in the previous round, read
   * from the `requestState` the client sent back (signed and bound to the call like the rest of it, so the
   * client can neither read it as plain text it may trust nor change it). Undefined on a first attempt,
   * in the handshake era (where a handler asks and waits, and needs nothing carried), and where the
   * previous round carried nothing.
   */
  readonly carried: JsonObject | undefined;
  /**
   * Stateless era: data of the handler's own for the `requestState` of this attempt's `input_required`,
   * read back as `carried` on the retry (e.g. the id of work the handler keeps running between rounds).
   * The last value given wins; undefined carries nothing. Signed, not encrypted: the client can decode
   * it, so carry ids and digests, not secrets. A no-op in the handshake era and when the attempt does not
   * end with `input_required`.
   */
  readonly carry: (value: JsonObject | undefined) => void;
}
