/**
 * The context host of a request: what its handler may send (progress, log messages, notifications, and
 * questions for the client), shaped and filtered for its scope (its revision, its client capabilities,
 * its log level). Tools, prompts, resources and tasks share it. A stateless-era request that needs
 * client input is a multi round-trip request: see `input-required/input-round.ts`.
 * @module
 */
import { LocalErrorCode } from '../protocol/errors.js';
import type { JsonObject, RequestId } from '../protocol/jsonrpc.js';
import { loggingRank, type LoggingLevel, type ProgressParams } from '../protocol/types/lifecycle.js';
import type { InputMethod, InputRequiredResult } from './input-required/input-requests.js';
import { InputRound } from './input-required/input-round.js';
import type { RequestScope, StatelessScope } from './request-scope.js';
import { ServerError } from './server-error.js';
import type { SessionView } from './session-view.js';
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
export function scopedHost(session: SessionView, scope: RequestScope, round?: InputRound): ContextHost {
  if (scope.era === 'stateless' || round) return new ScopedHost(session, scope, round);
  // One host per handshake-era scope (a session keeps its scope until it changes).
  return (scope.host ??= new ScopedHost(session, scope, undefined));
}

/** A context host as one object with methods on its prototype (no closures per request). */
class ScopedHost implements ContextHost {
  readonly client: ContextHost['client'];
  readonly principal: ContextHost['principal'];
  readonly sessionId: string | undefined;
  readonly #session: SessionView;
  readonly #scope: RequestScope;
  readonly #round: InputRound | undefined;

  constructor(session: SessionView, scope: RequestScope, round: InputRound | undefined) {
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

  notify(method: string, params: object, relatedRequestId: RequestId): Promise<void> {
    return this.#session.peer.notify(method, params, { relatedRequestId });
  }

  sendProgress(params: ProgressParams, relatedRequestId: RequestId): Promise<void> {
    return this.notify('notifications/progress', this.#scope.profile.shapeProgress(params), relatedRequestId);
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
  session: SessionView,
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
  session: SessionView,
  scope: StatelessScope,
  params: JsonObject,
  method: 'tools/call' | 'prompts/get' | 'resources/read',
  request: CallRequest,
  work: (context: ToolContext) => Promise<T>,
): Promise<T | InputRequiredResult> {
  const opened = InputRound.open({
    method,
    params,
    capabilities: scope.client.capabilities,
    codec: scope.codec,
    principal: scope.principal?.subject,
  });
  // Not async: a first attempt (no requestState) opens at once.
  const run = (round: InputRound) =>
    round.run(() => work(createToolContext(scopedHost(session, scope, round), request)));
  return opened instanceof InputRound ? run(opened) : opened.then(run);
}
