/**
 * A prompt get or resource read relayed to its upstream, with the upstream's questions (elicitation,
 * sampling, roots) relayed to the caller that made the request, as they are during a call (see
 * relayed-input.ts): in the handshake era as requests to the caller, in the stateless era as the
 * caller's own `input_required`, as a call's are (held-run.ts): the upstream request waits between the
 * caller's rounds, parked for its retry (the same caller, method, prompt or URI and arguments), and runs
 * once; a retry that finds nothing parked sends it again, and the upstream, asking again, gets the answer.
 * An upstream's -32042 reaches the caller as the gateway's own prompt or reader would send it (the
 * server shapes it per era); a caller that gets it as it is may later hear of its completion.
 * @module
 */
import {
  CancellationSource,
  ErrorCode,
  ProtocolError,
  UrlElicitationRequiredError,
  errorMessage,
  isHandshakeRevision,
  type ExchangeOptions,
} from '../index.js';
import type { RequestHandlerContext } from '../server/index.js';
import { callerKey, callerOf } from './caller.js';
import type { ElicitationRoutes } from './elicitation-routes.js';
import type { CallsInFlight, InFlight } from './calls-in-flight.js';
import { HeldRun, isInputWait } from './held-run.js';
import type { ParkedCalls } from './parked-calls.js';
import { mayBeAsked, relayedInput, REQUEST_ENDED, takesUrlElicitation } from './relayed-input.js';
import type { Upstream } from './upstream.js';

/** Where a stateless-era request waits between rounds, and what it is (method, name or URI, arguments' digest). */
export interface Parking {
  readonly parked: ParkedCalls;
  /** Computed only when the request parks or a retry names a parked one. */
  readonly request: () => string;
  /**
   * Where the request counts as in flight on its upstream while it is (see `CallsInFlight`): whose a
   * question is that nothing on the wire ties to it (stdio, an HTTP upstream's standalone stream), which the
   * upstream's client gives to the only request in flight that may be asked, though another caller's (one
   * that may be asked nothing) may have asked it.
   */
  readonly inFlight: CallsInFlight;
}

/** Counts the request `send` makes in flight on `upstream` until it settles. */
function counted<T>(
  inFlight: CallsInFlight | undefined,
  upstream: string,
  entry: InFlight,
  send: () => Promise<T>,
): Promise<T> {
  if (!inFlight) return send();
  const remove = inFlight.add(upstream, entry);
  const pending = send();
  pending.then(remove, remove);
  return pending;
}

/**
 * What a request relayed to `target` that failed becomes for its caller (`action` as in `relayedRequest`):
 * the upstream's JSON-RPC error as it sent it, the caller's own cancellation as it is, anything that went
 * wrong on the way (a timeout, a lost connection, a result refused) -32603 naming the upstream, as a tool
 * call's failure does; `target` is told of it, and takes a lost connection as its being down.
 */
export function upstreamFailure(
  target: Pick<Upstream, 'name' | 'failed'>,
  action: string,
  signal: AbortSignal,
  error: unknown,
): never {
  if (error instanceof ProtocolError || signal.aborted) throw error;
  target.failed(error);
  throw new ProtocolError(
    ErrorCode.InternalError,
    `Upstream ${target.name} failed to ${action}: ${errorMessage(error)}`,
  );
}

/**
 * `send` the request upstream, relaying its questions to the caller of `ctx`. `action` says what the
 * request does (`read file:///a.txt`, `get prompt review`) where its failure names the upstream; a failure
 * on the way is told to `target` too, which takes a lost connection as its being down (as a call's does).
 */
export function relayedRequest<T>(
  target: Pick<Upstream, 'name' | 'failed'>,
  action: string,
  ctx: RequestHandlerContext,
  routes: ElicitationRoutes,
  send: (options: ExchangeOptions) => Promise<T>,
  parking?: Parking,
): Promise<T> {
  const upstream = target.name;
  const failed = (error: unknown): never => {
    if (error instanceof UrlElicitationRequiredError) {
      if (takesUrlElicitation(ctx))
        for (const { elicitationId } of error.elicitations) routes.relayed(upstream, elicitationId, ctx);
    } else if (error instanceof ProtocolError && error.code === ErrorCode.UrlElicitationRequired) {
      // A -32042 whose elicitations no person may be sent to (a `javascript:` URL, no id, …).
      throw new ProtocolError(
        ErrorCode.InternalError,
        `Upstream ${upstream} asked for a URL elicitation the gateway does not pass on: ${errorMessage(error)}`,
      );
    }
    return upstreamFailure(target, action, ctx.signal, error);
  };
  // A caller that can be asked nothing gets no handlers: the upstream's questions are declined.
  const inFlight = parking?.inFlight;
  const { connection } = ctx;
  // A stateless-era request has no connection: its caller, where something says who it is.
  const caller = connection === undefined ? inFlight?.callerOf(ctx) : undefined;
  if (!mayBeAsked(ctx))
    return counted(inFlight, upstream, { connection, caller, handlers: undefined }, () =>
      send({ signal: ctx.signal }),
    ).catch(failed);
  const stateless = !isHandshakeRevision(ctx.client.protocolVersion);
  if (stateless && parking) return held(upstream, ctx, send, parking, failed);
  let ended: { error: unknown } | undefined;
  const stop = new CancellationSource();
  // Fires when the upstream request ends: a question relayed for it then is withdrawn (see relayedInput).
  const settled = new CancellationSource();
  const handlers = relayedInput(
    ctx,
    stateless,
    (error) => {
      ended ??= { error };
      stop.abort(error);
    },
    (elicitationId) => routes.relayed(upstream, elicitationId, ctx),
    inFlight
      ? () => {
          const owner = inFlight.owner(upstream);
          return owner !== undefined && owner.connection === connection;
        }
      : undefined,
    settled,
    inFlight ? () => inFlight.heir(upstream, connection) : undefined,
    inFlight ? () => inFlight.questions.take(connection ?? ctx, upstream) : undefined,
  );
  return counted(inFlight, upstream, { connection, caller, handlers }, () =>
    send({ signal: ctx.signal, cancellation: stop, handlers }),
  ).then(
    (value) => {
      settled.abort(REQUEST_ENDED);
      return value;
    },
    (error: unknown) => {
      settled.abort(REQUEST_ENDED);
      // The caller's answer is awaited: this attempt ends with its question (input_required).
      if (ended) throw ended.error;
      return failed(error);
    },
  );
}

/**
 * Stateless era: the upstream request runs once over the caller's rounds. A retry takes back the run its
 * `requestState` names, parked for it; otherwise the request is sent upstream. An attempt that ends with
 * `input_required` parks the run, or, none may be parked, stops it (the retry sends it again).
 */
function held<T>(
  upstream: string,
  ctx: RequestHandlerContext,
  send: (options: ExchangeOptions) => Promise<T>,
  { parked, request, inFlight }: Parking,
  failed: (error: unknown) => never,
): Promise<T> {
  const caller = callerKey(callerOf(ctx));
  const owner = () => `${caller}\u0000${request()}`;
  let run = ctx.carried === undefined ? undefined : parked.take<T>(ctx.carried, owner());
  if (!run) {
    const sent = (run = new HeldRun<T>(ctx.client.capabilities, (handlers) =>
      inFlight.isOwner(upstream, handlers),
    ));
    // In flight until the upstream answers, parked or not; no connection of its own (the stateless era).
    sent.start(
      counted(
        inFlight,
        upstream,
        { connection: undefined, caller: inFlight.callerOf(ctx), handlers: sent.handlers },
        () => send({ cancellation: sent.stop, handlers: sent.handlers }),
      ),
    );
  }
  const taken = run;
  // The caller's cancellation during this attempt stops the upstream request.
  const { signal } = ctx;
  const cancel = () => taken.stop.abort(signal.reason);
  if (signal.aborted) cancel();
  else signal.addEventListener('abort', cancel, { once: true });
  return taken.attempt(ctx).then(
    (value) => {
      signal.removeEventListener('abort', cancel);
      return value;
    },
    (error: unknown) => {
      signal.removeEventListener('abort', cancel);
      if (!isInputWait(error)) return failed(error);
      const carried = parked.park(taken, caller, owner(), upstream);
      if (carried) ctx.carry(carried);
      else taken.stop.abort(new Error('No more requests may be parked; the retry sends the request again'));
      throw error;
    },
  );
}
