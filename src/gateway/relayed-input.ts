/**
 * The upstream's questions during a call (elicitation, sampling, roots), relayed to the caller that made
 * it, for what the caller declared; and a cancellation that follows another, for a call that ends early.
 * @module
 */
import {
  CancellationSource,
  declaresCapability,
  ErrorCode,
  LocalErrorCode,
  isHandshakeRevision,
  ProtocolError,
  ToolwireError,
  type Cancellation,
  type ClientHandlers,
  type TiedBy,
} from '../index.js';
import type { ToolContext } from '../server/index.js';
import { tooManyQuestions } from './question-budget.js';

/** A cancellation of its own that follows `parent` (aborted already if it is); `unfollow` stops following. */
export function following(parent: Cancellation): {
  own: CancellationSource;
  unfollow: (() => void) | undefined;
} {
  const own = new CancellationSource();
  if (parent.aborted) {
    own.abort(parent.reason);
    return { own, unfollow: undefined };
  }
  return { own, unfollow: parent.onAbort((reason) => own.abort(reason)) };
}

/** Whether the caller declared a capability the upstream's questions need (elicitation, sampling, roots). */
export function mayBeAsked(ctx: Pick<ToolContext, 'client'>): boolean {
  const caps = ctx.client.capabilities;
  return (
    declaresCapability(caps, 'elicitation') ||
    declaresCapability(caps, 'sampling') ||
    declaresCapability(caps, 'roots')
  );
}

/**
 * Whether the caller takes URL-mode elicitations with ids, whose completion it may hear of: a
 * handshake-era client of 2025-11-25 or later that declared `elicitation.url` (as the gateway's server
 * reads it: `takesUrlElicitation` in src/server/hosted-context.ts, not public).
 */
export function takesUrlElicitation(ctx: Pick<ToolContext, 'client'>): boolean {
  const { protocolVersion, capabilities } = ctx.client;
  return (
    isHandshakeRevision(protocolVersion) &&
    protocolVersion >= '2025-11-25' &&
    declaresCapability(capabilities.elicitation, 'url')
  );
}

/**
 * What the upstream gets for a question its caller was not asked: a question that caller did not declare
 * what it needs for (URL mode, sampling with tools) gets the -32602 that caller's client would have
 * answered; any other error as it is.
 */
export function upstreamError(error: unknown): unknown {
  return error instanceof ToolwireError && error.code === LocalErrorCode.CapabilityNotSupported
    ? new ProtocolError(ErrorCode.InvalidParams, error.message)
    : error;
}

/** A question the gateway relays to callers (`roots/list` is answered with no roots instead). */
export type RelayedQuestion = 'elicitation/create' | 'sampling/createMessage';

/**
 * The error a question gets that may be another caller's (see `CallsInFlight.owner`): nobody was asked,
 * so an elicitation is not declined (`decline` says a person said no) but refused, as sampling is.
 */
export function notMine(method: RelayedQuestion): ProtocolError {
  return new ProtocolError(
    ErrorCode.InvalidParams,
    `The gateway could not relay ${method}: several callers have calls in flight on this server, and nothing says whose call asks`,
  );
}

/**
 * The error a question gets that no caller takes (see `NO_CALLER` in upstream.ts): asked outside any call,
 * during the call of a caller that did not declare what it needs, or while calls of several callers are in
 * flight where nothing says whose call asks.
 */
export function noCaller(method: RelayedQuestion): ProtocolError {
  const declared = method === 'elicitation/create' ? 'elicitation' : 'sampling';
  return new ProtocolError(
    ErrorCode.InvalidParams,
    `The gateway could not relay ${method}: the client of the call did not declare ${declared}, no call is in flight on this server, or several calls in flight there leave unclear whose call asks; nobody was asked`,
  );
}

/**
 * Whether the caller is a handshake-era client the gateway's server serves without a session (`toolwire
 * gateway --stateless`): it knows neither its `clientInfo` nor its capabilities (they went with an
 * `initialize` no session kept), so the gateway can ask it nothing, whatever it declared. `fromHost`: the
 * request came from the gateway's one host (`CallsInFlight.hostAlone`), whose connection (stdio) is its
 * session — a host that sent no `clientInfo` and declared nothing looks the same otherwise.
 */
export function sessionless(ctx: Pick<ToolContext, 'client' | 'sessionId'>, fromHost: boolean): boolean {
  const { protocolVersion, info, capabilities } = ctx.client;
  return (
    !fromHost &&
    isHandshakeRevision(protocolVersion) &&
    info === undefined &&
    ctx.sessionId === undefined &&
    Object.keys(capabilities).length === 0
  );
}

/**
 * Answers a question asked during the request of a caller served without a session (`sessionless`): refused
 * with -32602 saying so (not that the caller declared nothing: it may have, on its `initialize`).
 */
export const SESSIONLESS = {
  elicitation: (): never => {
    throw unaskable('elicitation/create');
  },
  sampling: (): never => {
    throw unaskable('sampling/createMessage');
  },
} satisfies ClientHandlers;

function unaskable(method: RelayedQuestion): ProtocolError {
  return new ProtocolError(
    ErrorCode.InvalidParams,
    `The gateway could not relay ${method}: it serves the client of the call without sessions (toolwire gateway --stateless), so it cannot ask a handshake-era client anything (what the client declared went with its initialize, which no session kept); nobody was asked`,
  );
}

/** Why a question relayed for a request that ended is cancelled (`notifications/cancelled` to its caller). */
export const REQUEST_ENDED = 'the request this question was relayed for ended';

/** What the upstream gets for a question withdrawn because the request it was relayed for ended. */
function withdrawn(method: string): ProtocolError {
  return new ProtocolError(
    ErrorCode.InternalError,
    `The gateway withdrew ${method}: the request it was relayed for ended before its caller answered`,
  );
}

/** Whether a question was tied to its request by the wire (its POST stream, the task it names): no other's. */
const tied = (tiedBy: TiedBy | undefined) => tiedBy === 'stream' || tiedBy === 'task';

/**
 * The caller's client answers the upstream's questions, for what it declared. In the stateless era a
 * question the caller has not answered yet ends this attempt (`end`): the caller retries with its answer,
 * and the request runs again (the upstream asks again, and this time gets the answer). A stateless-era
 * tool call holds its upstream call between rounds instead (held-run.ts). `mine`, where given: whether a
 * question may be this caller's (see `CallsInFlight.owner`); one that may not is asked of nobody — an
 * elicitation or sampling refused with -32602 (`notMine`), no roots — as a question no caller takes.
 * `settled`, where given, fires when the request the handlers were made for ends (answered, failed,
 * cancelled, timed out): a question relayed for it and not answered yet is withdrawn — the caller's client
 * gets `notifications/cancelled` for it, the upstream an error — since no request of that caller's would
 * wait for the answer any more — unless nothing on the wire tied the question to that request (it was only
 * attributed to it, the oldest of its caller's there) and `heir` names another request in flight there whose
 * caller may take it (see `CallsInFlight.heir`): its handlers are asked instead, and the caller is asked
 * again as part of that request (the question may be its). `room`, where given, takes a place for a
 * question among those open with the caller (`QuestionBudget.take`): one it has none for is not relayed,
 * and the upstream gets -31429 (`tooManyQuestions`).
 */
export function relayedInput(
  ctx: Pick<ToolContext, 'client' | 'elicit' | 'sample' | 'listRoots'>,
  stateless: boolean,
  end: (error: unknown) => void,
  relayedUrl: (elicitationId: string) => void,
  mine?: () => boolean,
  settled?: Cancellation,
  heir?: () => ClientHandlers | undefined,
  room?: () => (() => void) | undefined,
): ClientHandlers {
  const caps = ctx.client.capabilities;
  // The question, its request ended: asked of the heir's handlers (`again`), if it was only attributed to
  // this request and another takes it over; else withdrawn.
  const ended = <T>(
    method: string,
    tiedBy: TiedBy | undefined,
    again: (next: ClientHandlers) => Promise<T> | undefined,
  ): Promise<T> => {
    const next = tied(tiedBy) ? undefined : heir?.();
    const asked = next && next !== handlers ? again(next) : undefined;
    if (asked) return asked;
    throw withdrawn(method);
  };
  const relay = async <T>(
    method: string,
    tiedBy: TiedBy | undefined,
    ask: () => Promise<T>,
    again: (next: ClientHandlers) => Promise<T> | undefined,
  ): Promise<T> => {
    if (settled?.aborted) return ended(method, tiedBy, again);
    // A place among the caller's open questions of this upstream: past them, not relayed.
    const release = room?.();
    if (room && !release) throw tooManyQuestions(method);
    try {
      return await ask();
    } catch (error) {
      release?.();
      if (settled?.aborted) return ended(method, tiedBy, again);
      if (stateless) end(error);
      throw upstreamError(error);
    } finally {
      release?.();
    }
  };
  // A question the upstream's client gave this call only because it is the only one in flight with handlers
  // (nothing on the wire ties it to a call) is this caller's only if `mine` says so.
  const theirs = (tiedBy: TiedBy | undefined) => mine !== undefined && tiedBy === 'only' && !mine();
  const handlers: ClientHandlers = {};
  if (declaresCapability(caps, 'elicitation')) {
    // The form's content is the upstream's to check against its own schema: no compiling of it here.
    handlers.elicitation = (params, handlerCtx) => {
      const { signal, tiedBy } = handlerCtx;
      // Given to this call although another caller's call may have asked: asked of nobody.
      if (theirs(tiedBy)) throw notMine('elicitation/create');
      // A URL elicitation with an id (the handshake era): its completion may follow, for this caller.
      if (params.mode === 'url' && typeof params.elicitationId === 'string' && takesUrlElicitation(ctx))
        relayedUrl(params.elicitationId);
      return relay(
        'elicitation/create',
        tiedBy,
        () => ctx.elicit(params, { signal, cancellation: settled, validate: false }),
        (next) => next.elicitation && Promise.resolve(next.elicitation(params, handlerCtx)),
      );
    };
  }
  if (declaresCapability(caps, 'sampling')) {
    handlers.sampling = (params, handlerCtx) => {
      const { signal, tiedBy } = handlerCtx;
      if (theirs(tiedBy)) throw notMine('sampling/createMessage');
      return relay(
        'sampling/createMessage',
        tiedBy,
        () => ctx.sample(params, { signal, cancellation: settled }),
        (next) => next.sampling && Promise.resolve(next.sampling(params, handlerCtx)),
      );
    };
  }
  if (declaresCapability(caps, 'roots'))
    handlers.roots = (handlerCtx) =>
      theirs(handlerCtx.tiedBy)
        ? []
        : relay(
            'roots/list',
            handlerCtx.tiedBy,
            // The upstream cancelling its roots/list cancels it downstream, as a form or sampling request.
            () => ctx.listRoots({ signal: handlerCtx.signal, cancellation: settled }).then((r) => r.roots),
            ({ roots }) =>
              roots === undefined
                ? undefined
                : Promise.resolve(typeof roots === 'function' ? roots(handlerCtx) : roots),
          );
  return handlers;
}
