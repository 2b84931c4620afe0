/**
 * Starts one tool call's trip through the chain: the `ToolCall` the middleware sees, and the handler
 * context bound to it. The handler's signal is the call's (so a middleware can abort it, e.g. on
 * timeout; its progress and log messages stop then too), and the time the handler spends waiting for
 * the client's input (elicitation, sampling, roots) is measured, so the timeout can leave it out.
 * @module
 */
import type { Cancellation } from '../../protocol/engine/cancellation.js';
import { linkedSignal, type LinkedSignal } from '../linked-signal.js';
import { isPromiseLike, type MaybePromise } from '../../protocol/promise-like.js';
import type { JsonObject, RequestId } from '../../protocol/jsonrpc.js';
import { isStatelessRevision } from '../../protocol/revisions/index.js';
import type { Principal } from '../auth/principal.js';
import type { CreateMessageParams, ElicitParams } from '../../protocol/types/client-features.js';
import type { LoggingLevel } from '../../protocol/types/lifecycle.js';
import type { InputMethod } from '../input-required/input-requests.js';
import { ContextBase } from '../context-base.js';
import type { InputOptions, ToolContext } from '../tool-context.js';
import type { RegisteredTool } from '../tools/tool-definition.js';
import type { CallDecision, CalledTool, ToolCall } from './middleware.js';
import { REPORT_BUG, type BugReportingCall } from './tool-bugs.js';

/** Where a call comes from, beyond what its context says. */
export interface CallOrigin {
  /** Who is calling, as the transport authenticated it. */
  principal?: Principal | undefined;
  /** The HTTP session id of the connection, where it has one. */
  sessionId?: string | undefined;
  /** The client's address, where the transport knows it and has no session. */
  clientAddress?: string | undefined;
  /** Reports a server-side bug in the tool's result (the server's `onToolBug`). */
  onToolBug?: ((message: string, tool: string) => void) | undefined;
}

/** One call's state: its linked signal, the time its handler waited for input, its `done` promise. */
class CallState {
  // Created on first use (see linked-signal.ts): most calls end without anyone reading it.
  readonly linked: LinkedSignal;
  waiting = 0;
  waitStarted = 0;
  waited = 0;
  #finished = false;
  #done: Promise<void> | undefined;
  #resolveDone: (() => void) | undefined;

  constructor(ctx: ToolContext) {
    this.linked = linkedSignal(ctx.cancellation);
  }

  /** Created when a middleware asks for it: most calls finish without anyone waiting on it. */
  get done(): Promise<void> {
    if (!this.#done) {
      this.#done = this.#finished
        ? Promise.resolve()
        : new Promise<void>((resolve) => (this.#resolveDone = resolve));
    }
    return this.#done;
  }

  finish(): void {
    if (this.#finished) return;
    this.#finished = true;
    this.linked.dispose();
    this.#resolveDone?.();
  }

  async track<T>(ask: () => Promise<T>): Promise<T> {
    if (this.waiting++ === 0) this.waitStarted = performance.now();
    try {
      return await ask();
    } finally {
      if (--this.waiting === 0) this.waited += performance.now() - this.waitStarted;
    }
  }

  inputWaitMs(): number {
    return this.waited + (this.waiting > 0 ? performance.now() - this.waitStarted : 0);
  }
}

/** What every `ToolCall` tells of the call: the tool, its arguments, the caller, the request. */
abstract class CallFacts implements BugReportingCall {
  readonly tool: CalledTool;
  readonly arguments: JsonObject;
  readonly principal: Principal | undefined;
  readonly sessionId: string | undefined;
  readonly clientAddress: string | undefined;
  readonly requestId: RequestId;
  readonly era: 'handshake' | 'stateless';
  readonly protocolVersion: string;
  readonly meta: JsonObject | undefined;
  decision: CallDecision = 'allowed';
  readonly #onToolBug: CallOrigin['onToolBug'];

  constructor(tool: RegisteredTool, args: JsonObject, ctx: ToolContext, origin: CallOrigin) {
    const version = ctx.client.protocolVersion;
    this.tool = tool.called;
    this.arguments = args;
    this.principal = origin.principal;
    this.sessionId = origin.sessionId;
    this.clientAddress = origin.clientAddress;
    this.requestId = ctx.requestId;
    this.era = isStatelessRevision(version) ? 'stateless' : 'handshake';
    this.protocolVersion = version;
    this.meta = ctx.meta;
    this.#onToolBug = origin.onToolBug;
  }

  /** A bug in this call's result (see tool-bugs.ts). */
  [REPORT_BUG](message: string): void {
    this.#onToolBug?.(message, this.tool.name);
  }
}

/** The `ToolCall` middleware sees (a class: accessors on object literals are slow to create). */
class ChainedCall extends CallFacts implements ToolCall {
  readonly #state: CallState;

  constructor(
    tool: RegisteredTool,
    args: JsonObject,
    ctx: ToolContext,
    origin: CallOrigin,
    state: CallState,
  ) {
    super(tool, args, ctx, origin);
    this.#state = state;
  }

  get signal(): AbortSignal {
    return this.#state.linked.signal;
  }

  get done(): Promise<void> {
    return this.#state.done;
  }

  get waitingForInput(): boolean {
    return this.#state.waiting > 0;
  }

  abort(reason?: unknown): void {
    this.#state.linked.abort(reason);
  }

  inputWaitMs(): number {
    return this.#state.inputWaitMs();
  }
}

/**
 * The handler's context inside the chain: the call's signal; once the call is aborted (e.g. timed out),
 * late progress and log messages are dropped; time spent waiting for input is tracked.
 */
class ChainedContext extends ContextBase {
  readonly #ctx: ToolContext;
  readonly #state: CallState;

  constructor(ctx: ToolContext, state: CallState) {
    super(ctx);
    this.#ctx = ctx;
    this.#state = state;
  }

  get signal(): AbortSignal {
    return this.#state.linked.signal;
  }

  get cancellation(): Cancellation {
    return this.#state.linked;
  }

  protected doProgress(progress: number, total?: number, message?: string): Promise<void> {
    return this.#state.linked.aborted ? Promise.resolve() : this.#ctx.progress(progress, total, message);
  }

  protected doLog(level: LoggingLevel, data: unknown, logger?: string): Promise<void> {
    return this.#state.linked.aborted ? Promise.resolve() : this.#ctx.log(level, data, logger);
  }

  protected ask<T>(method: InputMethod, params: unknown, options?: InputOptions): Promise<T> {
    const ctx = this.#ctx;
    const asked = { signal: this.#state.linked.signal, ...options };
    return this.#state.track(
      () =>
        (method === 'elicitation/create'
          ? ctx.elicit(params as ElicitParams, asked)
          : method === 'sampling/createMessage'
            ? ctx.sample(params as CreateMessageParams, asked)
            : ctx.listRoots(asked)) as Promise<unknown> as Promise<T>,
    );
  }

  protected doCloseSSEStream(): void {
    this.#ctx.closeSSEStream();
  }

  protected doStartTask(): Promise<string | undefined> {
    return this.#ctx.startTask();
  }

  get carried(): JsonObject | undefined {
    return this.#ctx.carried;
  }

  protected doCarry(value: JsonObject | undefined): void {
    this.#ctx.carry(value);
  }

  /** Not dropped once the call is over: the step it names usually finishes later. */
  protected doCompleteElicitation(elicitationId: string): Promise<void> {
    return this.#ctx.completeElicitation(elicitationId);
  }
}

/** One call on its way through the chain: the `ToolCall` middleware sees, the handler's context. */
export class StartedCall {
  readonly call: ToolCall;
  /** The context to give the handler. */
  readonly context: ToolContext;
  readonly #state: CallState;
  #ran = false;

  constructor(tool: RegisteredTool, args: JsonObject, ctx: ToolContext, origin: CallOrigin) {
    const state = new CallState(ctx);
    this.#state = state;
    this.call = new ChainedCall(tool, args, ctx, origin, state);
    this.context = new ChainedContext(ctx, state);
  }

  /** Runs the handler (the chain's innermost step); the call is finished when it settles (at once if it answered). */
  handle<T>(handler: (context: ToolContext) => MaybePromise<T>): MaybePromise<T> {
    this.#ran = true;
    const running = handler(this.context);
    if (isPromiseLike(running)) running.then(this.#finish, this.#finish);
    else this.#state.finish();
    return running;
  }

  /** Finishes the call now if its handler never ran (refused by the chain), or will never run. */
  readonly end = (): void => {
    if (!this.#ran) this.#state.finish();
  };

  readonly #finish = (): void => this.#state.finish();
}

/**
 * A call no middleware of its chain can abort (no execution timeout for its tool, no middleware added
 * with `server.use()`: see `ToolChain.mayAbort`): one object, and the handler gets the request's own
 * context — its signal and cancellation are the request's, there is no input wait to leave out of a
 * timeout, and no late progress to drop after an abort by middleware. What the built-ins that see it read
 * (the caller, the tool, `signal` while queued, `done`) is the same as a `StartedCall`'s.
 */
class DirectCall extends CallFacts implements ToolCall {
  readonly context: ToolContext;
  /** The handler's promise, once it runs. */
  #running: Promise<unknown> | undefined;
  /** The chain ended without running the handler. */
  #ended = false;
  #done: Promise<void> | undefined;
  #resolveDone: (() => void) | undefined;

  constructor(tool: RegisteredTool, args: JsonObject, ctx: ToolContext, origin: CallOrigin) {
    super(tool, args, ctx, origin);
    this.context = ctx;
  }

  get call(): ToolCall {
    return this;
  }

  get signal(): AbortSignal {
    return this.context.signal;
  }

  /** Created when a middleware asks for it (the concurrency cap, for capped tools). */
  get done(): Promise<void> {
    if (!this.#done) {
      if (this.#running) this.#done = this.#running.then(ignore, ignore);
      else if (this.#ended) this.#done = Promise.resolve();
      else this.#done = new Promise<void>((resolve) => (this.#resolveDone = resolve));
    }
    return this.#done;
  }

  /** Only the timeout reads it, and this call's chain has none. */
  get waitingForInput(): boolean {
    return false;
  }

  inputWaitMs(): number {
    return 0;
  }

  /** No middleware of this call's chain aborts calls (that is why it is direct). */
  abort(): void {
    throw new Error(`Tool ${this.tool.name}: no middleware of this chain aborts calls`);
  }

  handle<T>(handler: (context: ToolContext) => MaybePromise<T>): MaybePromise<T> {
    const running = handler(this.context);
    if (!isPromiseLike(running)) {
      // Answered at once: the call is over (as if the chain had ended without it).
      this.end();
      return running;
    }
    this.#running = running;
    const resolve = this.#resolveDone;
    if (resolve) running.then(resolve, resolve);
    return running;
  }

  readonly end = (): void => {
    if (this.#running) return;
    this.#ended = true;
    this.#resolveDone?.();
  };
}

function ignore(): void {}

/** What the chain runs: the `ToolCall` middleware sees, and the handler run with its context. */
export interface ChainedRun {
  readonly call: ToolCall;
  handle<T>(handler: (context: ToolContext) => MaybePromise<T>): MaybePromise<T>;
  /** Finishes the call if its handler never ran (refused by the chain). */
  readonly end: () => void;
}

export function startToolCall(
  tool: RegisteredTool,
  args: JsonObject,
  ctx: ToolContext,
  origin: CallOrigin = {},
  direct = false,
): ChainedRun {
  return direct ? new DirectCall(tool, args, ctx, origin) : new StartedCall(tool, args, ctx, origin);
}
