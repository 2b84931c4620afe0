/**
 * `ContextBase`: the common shape of a handler's context, the request's and the tool-call chain's around it.
 * @module
 */
import type { Cancellation } from '../protocol/engine/cancellation.js';
import type { JsonObject, RequestId } from '../protocol/jsonrpc.js';
import type {
  CreateMessageResult,
  ElicitResult,
  ListRootsResult,
} from '../protocol/types/client-features.js';
import type { LoggingLevel } from '../protocol/types/lifecycle.js';
import { completeForm } from '../protocol/revisions/shape-input.js';
import type { Principal } from './auth/principal.js';
import type { InputMethod } from './input-required/input-requests.js';
import { checkedAnswer, checkedElicitation } from './checked-answer.js';
import type { ClientView, InputOptions, ToolContext } from './tool-context.js';
import { traceContext, type TraceContext } from './trace-context.js';

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
