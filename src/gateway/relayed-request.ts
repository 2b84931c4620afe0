/**
 * A prompt get or resource read relayed to its upstream, with the upstream's questions (elicitation,
 * sampling, roots) relayed to the caller that made the request, as they are during a call (see
 * relayed-input.ts): in the handshake era as requests to the caller, in the stateless era as the
 * caller's own `input_required` — a question the caller has not answered yet ends this attempt and the
 * upstream request; the caller's retry sends it again, and the upstream, asking again, gets the answer.
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
import type { PromptContext } from '../server/index.js';
import type { ElicitationRoutes } from './elicitation-routes.js';
import { mayBeAsked, relayedInput, takesUrlElicitation } from './relayed-input.js';

/** What a prompt getter's or resource reader's context gives a relayed request. */
export type AskingContext = Pick<
  PromptContext,
  'client' | 'signal' | 'elicit' | 'sample' | 'listRoots' | 'completeElicitation'
>;

/** `send` the request upstream, relaying its questions to the caller of `ctx`. */
export function relayedRequest<T>(
  upstream: string,
  ctx: AskingContext,
  routes: ElicitationRoutes,
  send: (options: ExchangeOptions) => Promise<T>,
): Promise<T> {
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
    throw error;
  };
  // A caller that can be asked nothing gets no handlers: the upstream's questions are declined.
  if (!mayBeAsked(ctx)) return send({ signal: ctx.signal }).catch(failed);
  const stateless = !isHandshakeRevision(ctx.client.protocolVersion);
  let ended: { error: unknown } | undefined;
  const stop = new CancellationSource();
  const handlers = relayedInput(
    ctx,
    stateless,
    (error) => {
      ended ??= { error };
      stop.abort(error);
    },
    (elicitationId) => routes.relayed(upstream, elicitationId, ctx),
  );
  return send({ signal: ctx.signal, cancellation: stop, handlers }).catch((error: unknown) => {
    // The caller's answer is awaited: this attempt ends with its question (input_required).
    if (ended) throw ended.error;
    return failed(error);
  });
}
