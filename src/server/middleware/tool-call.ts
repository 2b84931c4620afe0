/**
 * Starts one tool call's trip through the chain: the `ToolCall` the middleware sees, and the handler
 * context bound to it. The handler's signal is the call's (so a middleware can abort it, e.g. on
 * timeout; its progress and log messages stop then too), and the time the handler spends waiting for
 * the client's input (elicitation, sampling, roots) is measured, so the timeout can leave it out.
 * @module
 */
import { linkedSignal } from '../linked-signal.js';
import type { JsonObject } from '../../protocol/jsonrpc.js';
import { isModernRevision } from '../../protocol/revisions/index.js';
import type { Principal } from '../auth/principal.js';
import { signalSourceOf, type ToolContext } from '../tool-context.js';
import type { RegisteredTool } from '../tool-definition.js';
import type { ToolCall } from './middleware.js';

/** Where a call comes from, beyond what its context says. */
export interface CallOrigin {
  /** Who is calling, as the transport authenticated it. */
  principal?: Principal | undefined;
  /** The HTTP session id of the connection, where it has one. */
  sessionId?: string | undefined;
}

export interface StartedCall {
  readonly call: ToolCall;
  /** The context to give the handler. */
  readonly context: ToolContext;
  /** Settles `call.done`: the handler has finished (or will never run). */
  readonly finished: () => void;
}

export function startToolCall(
  tool: RegisteredTool,
  args: JsonObject,
  ctx: ToolContext,
  origin: CallOrigin = {},
): StartedCall {
  // Created on first use (see linked-signal.ts): most calls end without anyone reading it.
  const linked = linkedSignal(signalSourceOf(ctx));
  let resolveDone!: () => void;
  const done = new Promise<void>((resolve) => (resolveDone = resolve));
  const finished = () => {
    linked.dispose();
    resolveDone();
  };

  let waiting = 0;
  let waitStarted = 0;
  let waited = 0;
  const track = async <T>(ask: () => Promise<T>): Promise<T> => {
    if (waiting++ === 0) waitStarted = performance.now();
    try {
      return await ask();
    } finally {
      if (--waiting === 0) waited += performance.now() - waitStarted;
    }
  };

  const version = ctx.client.protocolVersion;
  const call: ToolCall = {
    tool: tool.called,
    arguments: args,
    principal: origin.principal,
    sessionId: origin.sessionId,
    requestId: ctx.requestId,
    era: isModernRevision(version) ? 'modern' : 'legacy',
    protocolVersion: version,
    get signal() {
      return linked.signal;
    },
    meta: ctx.meta,
    decision: 'allowed',
    abort: (reason?: unknown) => linked.abort(reason),
    done,
    get waitingForInput() {
      return waiting > 0;
    },
    inputWaitMs: () => waited + (waiting > 0 ? performance.now() - waitStarted : 0),
  };

  // Once the call is aborted (e.g. timed out), the handler's late progress and log messages are dropped.
  // Built field by field: spreading `ctx` would read its lazy `signal` and create the request's signal.
  const context: ToolContext = {
    get signal() {
      return linked.signal;
    },
    requestId: ctx.requestId,
    meta: ctx.meta,
    client: ctx.client,
    principal: ctx.principal,
    traceparent: ctx.traceparent,
    tracestate: ctx.tracestate,
    progress: (progress, total, message) =>
      linked.aborted ? Promise.resolve() : ctx.progress(progress, total, message),
    log: (level, data, logger) => (linked.aborted ? Promise.resolve() : ctx.log(level, data, logger)),
    elicit: (params, options) => track(() => ctx.elicit(params, { signal: linked.signal, ...options })),
    sample: (params, options) => track(() => ctx.sample(params, { signal: linked.signal, ...options })),
    listRoots: (options) => track(() => ctx.listRoots({ signal: linked.signal, ...options })),
    closeSSEStream: () => ctx.closeSSEStream(),
    startTask: () => ctx.startTask(),
  };
  return { call, context, finished };
}
