/**
 * The context of a request on a host (`createToolContext`): what a session provides to build contexts
 * (`ContextHost`), the request a context serves (`CallRequest`), and the end of a call's progress.
 * @module
 */
import { LocalErrorCode } from '../protocol/errors.js';
import { cancellationOf, type Cancellation } from '../protocol/engine/cancellation.js';
import type { JsonObject, RequestId } from '../protocol/jsonrpc.js';
import type { LoggingLevel, ProgressParams } from '../protocol/types/lifecycle.js';
import { isHandshakeRevision } from '../protocol/revisions/index.js';
import { missingCapabilities } from '../protocol/types/input-checks.js';
import type { Principal } from './auth/principal.js';
import { ContextBase } from './context-base.js';
import type { InputMethod } from './input-required/input-requests.js';
import { ServerError } from './server-error.js';
import type { ClientView, InputOptions, ToolContext } from './tool-context.js';

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
