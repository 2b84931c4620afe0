/**
 * The context host of a request: what its handler may send (progress, log messages, notifications, and
 * questions for the client), shaped and filtered for its scope (its revision, its client capabilities,
 * its log level). Tools, prompts, resources and tasks share it. A stateless-era request that needs
 * client input is a multi round-trip request: see `input-required/input-round.ts`.
 * @module
 */
import { LocalErrorCode } from '../protocol/errors.js';
import type { JsonObject, RequestId } from '../protocol/jsonrpc.js';
import type { MaybePromise } from '../protocol/promise-like.js';
import { declaredContext, revisionCapabilities, shapeInput } from '../protocol/revisions/shape-input.js';
import { loggingRank, type LoggingLevel, type ProgressParams } from '../protocol/types/lifecycle.js';
import {
  missingCapabilities,
  type InputMethod,
  type InputRequiredResult,
} from './input-required/input-requests.js';
import { InputRound } from './input-required/input-round.js';
import type { HandshakeScope, RequestScope, StatelessScope } from './request-scope.js';
import { ServerError } from './server-error.js';
import type { SessionView } from './session-view.js';
import { createToolContext, type CallRequest, type ContextHost } from './hosted-context.js';
import type { InputOptions, ToolContext } from './tool-context.js';

const CAPABILITY: Record<InputMethod, 'elicitation' | 'sampling' | 'roots'> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

/**
 * The context host of a request: what its handler may send, shaped and filtered for its scope. The era
 * is decided here, once: a handshake-era request's host sends the client requests on the session (one
 * host per session scope, shared by its requests while the scope stands); a stateless-era request's asks
 * for input through `round` (its multi round-trip attempt; without one it cannot ask).
 */
export function scopedHost(session: SessionView, scope: RequestScope, round?: InputRound): ContextHost {
  if (scope.era === 'stateless') return new StatelessHost(session, scope, round);
  return (scope.host ??= new HandshakeHost(session, scope));
}

/** What both eras' hosts send alike; one object with methods on its prototype (no closures per request). */
abstract class ScopedHost<S extends RequestScope> implements ContextHost {
  readonly client: ContextHost['client'];
  readonly principal: ContextHost['principal'];
  readonly sessionId: string | undefined;
  /** Handshake era: the session's own object; undefined in the stateless era. */
  readonly connection: object | undefined;
  protected readonly session: SessionView;
  protected readonly scope: S;

  constructor(session: SessionView, scope: S) {
    this.client = scope.client;
    this.principal = scope.principal;
    this.sessionId = session.peer.transport?.sessionId;
    this.connection = scope.era === 'handshake' ? session.connection : undefined;
    this.session = session;
    this.scope = scope;
  }

  abstract input(
    method: InputMethod,
    params: JsonObject | undefined,
    options: InputOptions,
  ): Promise<JsonObject>;

  /** Whether a log message at `level` is sent. */
  protected abstract logs(level: LoggingLevel): boolean;

  notify(method: string, params: object, relatedRequestId: RequestId): Promise<void> {
    return this.session.peer.notify(method, params, { relatedRequestId });
  }

  sendProgress(params: ProgressParams, relatedRequestId: RequestId): Promise<void> {
    return this.notify('notifications/progress', this.scope.profile.shapeProgress(params), relatedRequestId);
  }

  log(
    level: LoggingLevel,
    data: unknown,
    logger: string | undefined,
    relatedRequestId: RequestId,
  ): Promise<void> {
    if (!this.logs(level)) return Promise.resolve();
    const params: JsonObject = { level, data };
    if (logger !== undefined) params.logger = logger;
    return this.notify('notifications/message', params, relatedRequestId);
  }

  closeStream(relatedRequestId: RequestId): void {
    this.session.peer.transport?.closeStream?.(relatedRequestId);
  }
}

/** A question the client cannot be asked, as the tool that asked it learns (the gateway: -32602). */
function refused(message: string): Promise<never> {
  return Promise.reject(new ServerError(LocalErrorCode.CapabilityNotSupported, message));
}

/** Handshake era: questions are requests to the client, for the capabilities it declared, in its shapes. */
class HandshakeHost extends ScopedHost<HandshakeScope> {
  input(method: InputMethod, params: JsonObject | undefined, options: InputOptions): Promise<JsonObject> {
    const { scope } = this;
    const { features, version } = scope.profile;
    const capability = CAPABILITY[method];
    // What the question needs beyond the capability itself: URL mode, sampling with tools (never sent to a
    // client that did not declare them, as the spec says, nor to one whose revision has no such thing).
    const usable = revisionCapabilities(scope.client.capabilities, features);
    const missing = missingCapabilities(method, params, usable)?.[capability];
    if (missing !== undefined || (capability === 'elicitation' && !features.elicitation)) {
      const part = missing === undefined ? undefined : Object.keys(missing)[0];
      const what = part === undefined ? `the ${capability} capability` : `${capability}.${part}`;
      const declared = missingCapabilities(method, params, scope.client.capabilities) === undefined;
      return refused(
        declared
          ? `The client declared ${what}, but its protocol version ${version} has none, so ${method} cannot be sent`
          : `The client did not declare ${what}, so ${method} cannot be sent`,
      );
    }
    // The question in the shapes of the client's revision (it may have none for it).
    const shaped = shapeInput(method, params, features);
    if ('refused' in shaped)
      return refused(
        `${method} cannot be sent to a client of protocol version ${version}: ${shaped.refused}`,
      );
    const { key: _key, validate: _validate, ...requestOptions } = options;
    const sent = features.samplingTools
      ? declaredContext(method, shaped.params, scope.client.capabilities)
      : shaped.params;
    return this.session.peer.request(method, sent, requestOptions);
  }

  /** No level set (`logging/setLevel`): every message. */
  protected logs(level: LoggingLevel): boolean {
    const min = this.scope.logLevel;
    return min === undefined || loggingRank(level) >= loggingRank(min);
  }
}

/** Stateless era: questions go back in an `InputRequiredResult` (through the round); no requests. */
class StatelessHost extends ScopedHost<StatelessScope> {
  readonly #round: InputRound | undefined;

  constructor(session: SessionView, scope: StatelessScope, round: InputRound | undefined) {
    super(session, scope);
    this.#round = round;
  }

  get carried(): JsonObject | undefined {
    return this.#round?.carried;
  }

  carry(value: JsonObject | undefined): void {
    this.#round?.carry(value);
  }

  input(method: InputMethod, params: JsonObject | undefined, options: InputOptions): Promise<JsonObject> {
    if (this.#round) {
      const asked = declaredContext(method, params, this.scope.client.capabilities);
      return this.#round.ask(method, asked, options.key);
    }
    return Promise.reject(
      new ServerError(
        LocalErrorCode.CapabilityNotSupported,
        `In protocol version ${this.scope.profile.version} a server sends no requests; ${method} is not available here`,
      ),
    );
  }

  /** No level in the request: no log messages at all. */
  protected logs(level: LoggingLevel): boolean {
    const min = this.scope.logLevel;
    return min !== undefined && loggingRank(level) >= loggingRank(min);
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
  work: (context: ToolContext) => MaybePromise<T>,
): MaybePromise<T | InputRequiredResult> {
  // Not async: the handshake era's promise is the work's own (an async wrapper costs microtask hops).
  if (scope.era === 'handshake') return work(createToolContext(scopedHost(session, scope), request));
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
