/**
 * `tools/list` and `tools/call` on a session, in both eras; and the handler context of one call, bound
 * to that call's scope (its revision's shaping, its client capabilities, its log level). A stateless-era
 * call that needs client input is a multi round-trip request: see `input-required/input-round.ts`.
 * @module
 */
import { ErrorCode, LocalErrorCode, ProtocolError } from '../protocol/errors.js';
import type { JsonObject, RequestId } from '../protocol/jsonrpc.js';
import { loggingRank, type LoggingLevel, type ProgressParams } from '../protocol/types/lifecycle.js';
import type { CallToolResult } from '../protocol/types/tools.js';
import { callTool, parseCallParams, refuseCall } from './call-tool.js';
import type { InputMethod, InputRequiredResult } from './input-required/input-requests.js';
import { InputRound } from './input-required/input-round.js';
import { cursorParam } from './pages.js';
import { requestStateCodec } from './input-required/request-state.js';
import type { RequestScope } from './request-scope.js';
import { ServerError } from './server-error.js';
import type { HandlerTable } from './handler-table.js';
import type { ServerCore } from './server-core.js';
import type { ServerSession } from './server-session.js';
import {
  createToolContext,
  type CallRequest,
  type ContextHost,
  type InputOptions,
  type ToolContext,
} from './tool-context.js';

const CAPABILITY: Record<InputMethod, 'elicitation' | 'sampling' | 'roots'> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

/**
 * The context host of a request: what its handler may send, shaped and filtered for its scope (shared
 * by the requests of a handshake-era session while its scope stays the same). In the stateless era,
 * input from the client comes through `round` (the request's multi round-trip attempt); a stateless
 * request without one cannot ask for input.
 */
export function scopedHost(session: ServerSession, scope: RequestScope, round?: InputRound): ContextHost {
  if (scope.era === 'stateless' || round) return new ScopedHost(session, scope, round);
  // One host per handshake-era scope (a session keeps its scope until it changes).
  return (scope.host ??= new ScopedHost(session, scope, undefined));
}

/** A context host as one object with methods on its prototype (no closures per request). */
class ScopedHost implements ContextHost {
  readonly client: ContextHost['client'];
  readonly principal: ContextHost['principal'];
  readonly sessionId: string | undefined;
  readonly #session: ServerSession;
  readonly #scope: RequestScope;
  readonly #round: InputRound | undefined;

  constructor(session: ServerSession, scope: RequestScope, round: InputRound | undefined) {
    this.client = scope.client;
    this.principal = scope.principal;
    this.sessionId = session.peer.transport?.sessionId;
    this.#session = session;
    this.#scope = scope;
    this.#round = round;
  }

  async input(
    method: InputMethod,
    params: JsonObject | undefined,
    options: InputOptions,
  ): Promise<JsonObject> {
    const scope = this.#scope;
    if (scope.era === 'stateless') {
      if (this.#round) return this.#round.ask(method, params, options.key);
      throw new ServerError(
        LocalErrorCode.CapabilityNotSupported,
        `In protocol version ${scope.profile.version} a server sends no requests; ${method} is not available here`,
      );
    }
    const capability = CAPABILITY[method];
    if (
      scope.client.capabilities[capability] === undefined ||
      (capability === 'elicitation' && !scope.profile.features.elicitation)
    ) {
      throw new ServerError(
        LocalErrorCode.CapabilityNotSupported,
        `The client did not declare the ${capability} capability, so ${method} cannot be sent`,
      );
    }
    const { key: _key, ...requestOptions } = options;
    return this.#session.peer.request(method, params, requestOptions);
  }

  notify(method: string, params: JsonObject, relatedRequestId: RequestId): Promise<void> {
    return this.#session.peer.notify(method, params, { relatedRequestId });
  }

  sendProgress(params: ProgressParams, relatedRequestId: RequestId): Promise<void> {
    const shaped = this.#scope.profile.shapeProgress(params) as unknown as JsonObject;
    return this.notify('notifications/progress', shaped, relatedRequestId);
  }

  log(
    level: LoggingLevel,
    data: unknown,
    logger: string | undefined,
    relatedRequestId: RequestId,
  ): Promise<void> {
    const scope = this.#scope;
    // Stateless era: no level in the request means no log messages at all.
    if (scope.era === 'stateless' && scope.logLevel === undefined) return Promise.resolve();
    if (scope.logLevel !== undefined && loggingRank(level) < loggingRank(scope.logLevel))
      return Promise.resolve();
    const params: JsonObject = { level, data };
    if (logger !== undefined) params.logger = logger;
    return this.notify('notifications/message', params, relatedRequestId);
  }

  closeStream(relatedRequestId: RequestId): void {
    this.#session.peer.transport?.closeStream?.(relatedRequestId);
  }
}

/**
 * Runs `work` with a handler context bound to the request's scope. In the stateless era the work runs
 * inside a multi round-trip attempt: when it asks for input the client has not given, the result is an
 * `InputRequiredResult` (tools/call, prompts/get and resources/read may do this).
 */
export function withInput<T>(
  session: ServerSession,
  scope: RequestScope,
  params: JsonObject,
  method: 'tools/call' | 'prompts/get' | 'resources/read',
  request: CallRequest,
  work: (context: ToolContext) => Promise<T>,
): Promise<T | InputRequiredResult> {
  // Not async: the handshake era's promise is the work's own (an async wrapper costs microtask hops).
  if (scope.era === 'handshake') return work(createToolContext(scopedHost(session, scope), request));
  return inRound(session, scope, params, method, request, work);
}

function inRound<T>(
  session: ServerSession,
  scope: RequestScope,
  params: JsonObject,
  method: 'tools/call' | 'prompts/get' | 'resources/read',
  request: CallRequest,
  work: (context: ToolContext) => Promise<T>,
): Promise<T | InputRequiredResult> {
  const opened = InputRound.open({
    method,
    params,
    capabilities: scope.client.capabilities,
    codec: requestStateCodec(session.core.options),
    principal: scope.principal?.subject,
  });
  // Not async: a first attempt (no requestState) opens at once.
  const run = (round: InputRound) =>
    round.run(() => work(createToolContext(scopedHost(session, scope, round), request)));
  return opened instanceof InputRound ? run(opened) : opened.then(run);
}

/** `tools/list` and `tools/call`, in the server's handler table. */
export function installTools(table: HandlerTable, core: ServerCore): void {
  table.handle(
    'tools/list',
    (params, scope) => {
      const cursor = cursorParam(params);
      const version = core.tools.version;
      const visible = core.access.visible(core.tools.list(), version, scope.principal);
      return core.toolPages.page(
        visible.tools,
        version,
        scope.profile,
        cursor,
        visible.key,
      ) as unknown as JsonObject;
    },
    { cacheable: true },
  );
  // Not async: the call's own promise, shaped when it settles (no frame kept across an `await`).
  table.handle('tools/call', (params, scope, ctx, session) => {
    const { name, args } = parseCallParams(params);
    const tool = core.tools.get(name);
    if (!tool) throw new ProtocolError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    // No AbortSignal.any with the server's shutdown signal here: server.close() closes every session,
    // which aborts the requests in flight (and `any` is costly on the hot path). The request's signal is
    // not read here either: the engine creates it on first use, and most calls never use it.
    const hooks = {
      onToolBug: core.options.onToolBug,
      sessionId: session.peer.transport?.sessionId,
      clientAddress: session.peer.transport?.clientAddress,
      principal: scope.principal,
    };
    const refusal = core.access.refusal(scope.principal, tool);
    if (refusal) {
      const context = createToolContext(scopedHost(session, scope), ctx);
      return refuseCall(tool, args, context, hooks, refusal);
    }
    const run = (context: ToolContext) => callTool(tool, args, context, hooks);
    const shape = (result: CallToolResult) =>
      scope.profile.shapeCallResult(result, tool.tool) as unknown as JsonObject;
    // Tasks: the client asks (2025-11-25, params.task) or the server decides (the 2026-07-28 extension).
    const task = core.tasks?.decide(tool, scope, params);
    if (task !== undefined) {
      return core.tasks!.call({ session, scope, params, tool, ctx, run, shape, ttl: task.ttl });
    }
    return withInput(session, scope, params, 'tools/call', ctx, run).then((result) =>
      'resultType' in result ? (result as unknown as JsonObject) : shape(result),
    );
  });
}
