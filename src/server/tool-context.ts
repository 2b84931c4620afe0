/**
 * The context a tool handler receives: cancellation, progress, logging, input from the client
 * (elicitation, sampling, roots: requests to the client in the handshake era, multi round-trip requests
 * in the stateless era), and the request's trace context.
 * @module
 */
import { LocalErrorCode } from '../protocol/errors.js';
import { cancellationOf, type Cancellation } from '../protocol/engine/cancellation.js';
import type { RequestOptions } from '../protocol/engine/peer.js';
import type { JsonObject, RequestId } from '../protocol/jsonrpc.js';
import type {
  CreateMessageParams,
  CreateMessageResult,
  ElicitParams,
  ElicitResult,
  ListRootsResult,
} from '../protocol/types/client-features.js';
import type {
  ClientCapabilities,
  Implementation,
  LoggingLevel,
  ProgressParams,
} from '../protocol/types/lifecycle.js';
import { isHandshakeRevision } from '../protocol/revisions/index.js';
import { completeForm } from '../protocol/revisions/shape-input.js';
import { missingCapabilities } from '../protocol/types/input-checks.js';
import type { Principal } from './auth/principal.js';
import type { InputMethod } from './input-required/input-requests.js';
import { checkedAnswer, checkedElicitation } from './checked-answer.js';
import { ServerError } from './server-error.js';
import { traceContext, type TraceContext } from './trace-context.js';

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

/** What a session provides to build contexts. */
export interface ContextHost {
  readonly client: ClientView;
  readonly principal: Principal | undefined;
  /** The connection's session id, where it has one (stateful HTTP). */
  readonly sessionId?: string | undefined;
  /** Handshake era: the connection's own object (`ToolContext.connection`). */
  readonly connection?: object | undefined;
  /**
   * The client's answer to a request for input: a request to the client (handshake era), or the answer
   * the retried request carries (stateless era, which rejects to end the attempt with input_required).
   */
  input(method: InputMethod, params: JsonObject | undefined, options: InputOptions): Promise<JsonObject>;
  notify(method: string, params: object, relatedRequestId: RequestId): Promise<void>;
  sendProgress(params: ProgressParams, relatedRequestId: RequestId): Promise<void>;
  log(
    level: LoggingLevel,
    data: unknown,
    logger: string | undefined,
    relatedRequestId: RequestId,
  ): Promise<void>;
  closeStream(relatedRequestId: RequestId): void;
  /** Turns the call into a task (tasks extension); absent where a call cannot become one. */
  startTask?(): Promise<string | undefined>;
  /** Stateless era: what the previous round's `requestState` carried for the handler (`ctx.carried`). */
  readonly carried?: JsonObject | undefined;
  /** Stateless era: what this attempt's `requestState` carries (`ctx.carry`); absent where nothing is. */
  carry?(value: JsonObject | undefined): void;
}

/**
 * The request a context serves: its id, `_meta`, and its cancellation. The engine creates a request's
 * signal on first use; its `cancellation` is followed without creating it (most calls never need the
 * signal).
 */
export interface CallRequest {
  readonly signal: AbortSignal;
  readonly cancellation: Cancellation;
  readonly id: RequestId;
  readonly meta: JsonObject | undefined;
}

/** A request whose signal already exists. */
export function callRequest(id: RequestId, signal: AbortSignal, meta: JsonObject | undefined): CallRequest {
  return { id, meta, signal, cancellation: cancellationOf(signal) };
}

/** What a context tells about its request, besides its trace context (read from `meta`). */
export type ContextFacts = Pick<
  ToolContext,
  'requestId' | 'meta' | 'client' | 'principal' | 'sessionId' | 'connection'
>;

/** What a context does: a handler may destructure them (`async (args, { progress }) => …`). */
export type ContextMethods = Pick<
  ToolContext,
  | 'progress'
  | 'log'
  | 'elicit'
  | 'sample'
  | 'listRoots'
  | 'completeElicitation'
  | 'closeSSEStream'
  | 'startTask'
  | 'carry'
>;

/**
 * The handler contexts' common shape: a class, because accessors (`signal`) on object literals take V8's
 * slow path, and a call builds two contexts (the request's, and the tool-call chain's around it). The
 * methods live on the prototype and are bound on first read, so a handler may still destructure them
 * while a call that never uses one (nearly all) creates no closure for it; the trace context is parsed
 * when read.
 */
export abstract class ContextBase implements ToolContext {
  readonly requestId: RequestId;
  readonly meta: JsonObject | undefined;
  readonly client: ClientView;
  readonly principal: Principal | undefined;
  readonly sessionId: string | undefined;
  readonly connection: object | undefined;
  #trace: TraceContext | undefined;
  #bound: { -readonly [K in keyof ContextMethods]?: ContextMethods[K] } | undefined;

  constructor(facts: ContextFacts) {
    this.requestId = facts.requestId;
    this.meta = facts.meta;
    this.client = facts.client;
    this.principal = facts.principal;
    this.sessionId = facts.sessionId;
    this.connection = facts.connection;
  }

  abstract get signal(): AbortSignal;
  abstract get cancellation(): Cancellation;
  protected abstract doProgress(progress: number, total?: number, message?: string): Promise<void>;
  protected abstract doLog(level: LoggingLevel, data: unknown, logger?: string): Promise<void>;
  protected abstract ask<T>(method: InputMethod, params: unknown, options?: InputOptions): Promise<T>;
  protected abstract doCloseSSEStream(): void;
  protected abstract doStartTask(): Promise<string | undefined>;
  protected abstract doCompleteElicitation(elicitationId: string): Promise<void>;
  abstract get carried(): JsonObject | undefined;
  protected abstract doCarry(value: JsonObject | undefined): void;

  get traceparent(): string | undefined {
    return (this.#trace ??= traceContext(this.meta)).traceparent;
  }

  get tracestate(): string | undefined {
    return (this.#trace ??= traceContext(this.meta)).tracestate;
  }

  get progress(): ContextMethods['progress'] {
    return ((this.#bound ??= {}).progress ??= (progress, total, message) =>
      this.doProgress(progress, total, message));
  }

  get log(): ContextMethods['log'] {
    return ((this.#bound ??= {}).log ??= (level, data, logger) => this.doLog(level, data, logger));
  }

  /** A form goes out with the `requestedSchema` every revision requires; the answer is checked against the tool's. */
  get elicit(): ContextMethods['elicit'] {
    return ((this.#bound ??= {}).elicit ??= (params, options) =>
      checkedElicitation(
        params,
        () => this.ask<ElicitResult>('elicitation/create', completeForm(params), options),
        options?.validate,
      ));
  }

  get sample(): ContextMethods['sample'] {
    return ((this.#bound ??= {}).sample ??= (params, options) =>
      checkedAnswer(
        'sampling/createMessage',
        this.ask<CreateMessageResult>('sampling/createMessage', params, options),
      ));
  }

  get listRoots(): ContextMethods['listRoots'] {
    return ((this.#bound ??= {}).listRoots ??= (options) =>
      checkedAnswer('roots/list', this.ask<ListRootsResult>('roots/list', undefined, options)));
  }

  get completeElicitation(): ContextMethods['completeElicitation'] {
    return ((this.#bound ??= {}).completeElicitation ??= (elicitationId) =>
      typeof elicitationId === 'string' && elicitationId !== ''
        ? this.doCompleteElicitation(elicitationId)
        : Promise.reject(new TypeError('completeElicitation: elicitationId must be a non-empty string')));
  }

  get closeSSEStream(): ContextMethods['closeSSEStream'] {
    return ((this.#bound ??= {}).closeSSEStream ??= () => this.doCloseSSEStream());
  }

  get startTask(): ContextMethods['startTask'] {
    return ((this.#bound ??= {}).startTask ??= () => this.doStartTask());
  }

  get carry(): ContextMethods['carry'] {
    return ((this.#bound ??= {}).carry ??= (value) => this.doCarry(value));
  }
}

/** Contexts whose call was answered (or whose task ended): their progress is no longer sent. */
const completed = new WeakSet<ToolContext>();

/**
 * The call `context` serves was answered, or the task it runs ended: progress notifications MUST stop
 * after completion, so a later `progress()` (a handler's timer, say) resolves without sending anything.
 */
export function endProgress(context: ToolContext): void {
  // Only a call with a progress token can send progress (see `doProgress`): the others need no entry, and
  // a weak set's entry per call is work for every young-generation collection.
  const token = context.meta?.progressToken;
  if (typeof token === 'string' || typeof token === 'number') completed.add(context);
}

/** The context of a request on a host: sends through the host, honours the request's cancellation. */
class HostedContext extends ContextBase {
  /** Where the signal comes from: read lazily (the engine creates it on first use). */
  private readonly source: CallRequest;
  readonly #host: ContextHost;
  #lastProgress = -Infinity;

  constructor(host: ContextHost, request: CallRequest) {
    super({
      requestId: request.id,
      meta: request.meta,
      client: host.client,
      principal: host.principal,
      sessionId: host.sessionId,
      connection: host.connection,
    });
    this.source = request;
    this.#host = host;
  }

  get signal(): AbortSignal {
    return this.source.signal;
  }

  get cancellation(): Cancellation {
    return this.source.cancellation;
  }

  protected async doProgress(progress: number, total?: number, message?: string): Promise<void> {
    const token = this.meta?.progressToken;
    if (typeof token !== 'string' && typeof token !== 'number') return;
    if (completed.has(this)) return;
    if (!(progress > this.#lastProgress)) {
      throw new ServerError(
        LocalErrorCode.InvalidProgress,
        `Progress must increase with each notification (got ${progress} after ${this.#lastProgress})`,
      );
    }
    this.#lastProgress = progress;
    if (this.source.cancellation.aborted) return;
    const params: ProgressParams = { progressToken: token, progress };
    if (total !== undefined) params.total = total;
    if (message !== undefined) params.message = message;
    await this.#host.sendProgress(params, this.requestId);
  }

  protected async doLog(level: LoggingLevel, data: unknown, logger?: string): Promise<void> {
    if (this.source.cancellation.aborted) return;
    await this.#host.log(level, data, logger, this.requestId);
  }

  protected async ask<T>(method: InputMethod, params: unknown, options?: InputOptions): Promise<T> {
    const result = await this.#host.input(method, params as JsonObject | undefined, {
      signal: this.source.signal,
      ...options,
      relatedRequestId: this.requestId,
    });
    return result as unknown as T;
  }

  protected doCloseSSEStream(): void {
    this.#host.closeStream(this.requestId);
  }

  protected doStartTask(): Promise<string | undefined> {
    return this.#host.startTask?.() ?? Promise.resolve(undefined);
  }

  get carried(): JsonObject | undefined {
    return this.#host.carried;
  }

  protected doCarry(value: JsonObject | undefined): void {
    this.#host.carry?.(value);
  }

  /** Related to the call's request: on HTTP its stream while it is open, the session's GET stream after. */
  protected doCompleteElicitation(elicitationId: string): Promise<void> {
    if (!takesUrlElicitation(this.client)) return Promise.resolve();
    return this.#host.notify('notifications/elicitation/complete', { elicitationId }, this.requestId);
  }
}

/**
 * Whether a client takes URL-mode elicitations by id (their `-32042` and their completion): a
 * handshake-era client of 2025-11-25 or later that declared `elicitation.url`.
 */
export function takesUrlElicitation(client: ClientView): boolean {
  const { protocolVersion, capabilities } = client;
  return (
    isHandshakeRevision(protocolVersion) &&
    protocolVersion >= '2025-11-25' &&
    missingCapabilities('elicitation/create', { mode: 'url' }, capabilities) === undefined
  );
}

/** A handler context that sends through `host` and follows `request`'s cancellation. */
export function createToolContext(host: ContextHost, request: CallRequest): ToolContext {
  return new HostedContext(host, request);
}
