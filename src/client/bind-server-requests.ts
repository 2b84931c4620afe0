/**
 * The server's requests in the handshake era (elicitation, sampling, roots, ping): JSON-RPC requests of
 * their own, answered through the client's handlers — or through those of the call it belongs to, if that
 * call brought its own (`ExchangeOptions.handlers`; `OwnHandlers` says which call that is). A request that belongs to a call
 * the client can tell (see `callEnd`) has its handler's signal aborted when that call ends.
 * @module
 */
import type { Peer } from '../protocol/engine/peer.js';
import { ErrorCode, ProtocolError, errorMessage } from '../protocol/errors.js';
import { withMember, type RequestId } from '../protocol/jsonrpc.js';
import { jsonSize } from '../protocol/json-size.js';
import {
  isHandshakeRevision,
  isStatelessRevision,
  profileFor,
  type RevisionProfile,
} from '../protocol/revisions/index.js';
import { relatedTaskId, withRelatedTask } from '../protocol/types/tasks.js';
import { mergedSignal } from '../protocol/engine/merged-signal.js';
import {
  INPUT_METHODS,
  answerInputRequest,
  withOwnHandlers,
  type ClientHandlers,
  type HandlerContext,
} from './client-handlers.js';
import { callEnded, type OwnCall, type OwnHandlers } from './own-handlers.js';
import type { QuestionBytes } from './question-bytes.js';
import type { UrlElicitations } from './url-elicitations.js';

const REFUSALS: Record<(typeof INPUT_METHODS)[number], string> = {
  'elicitation/create': 'the client does not support elicitation/create',
  'sampling/createMessage': 'the client does not support sampling/createMessage',
  'roots/list': 'the client has no roots',
};

/**
 * The end of the call a server request belongs to, where the client can tell: the request whose POST
 * stream brought it (Streamable HTTP: `relatedRequestId`), else the one call in flight with handlers of its
 * own (`call`). Undefined where nothing ties it to a call (stdio or the GET stream, client-wide handlers).
 */
function callEnd(
  peer: Peer,
  related: RequestId | undefined,
  call: OwnCall | undefined,
): { ended: AbortSignal; dispose: () => void } | undefined {
  if (related !== undefined) {
    const controller = new AbortController();
    const dispose = peer.whenSettled(related, () => controller.abort(callEnded()));
    return { ended: controller.signal, dispose };
  }
  return call && { ended: call.ended, dispose: () => undefined };
}

/**
 * The profile of the handshake-era revision spoken, once negotiated (`version`); undefined before, and
 * in the stateless era.
 */
function handshakeProfile(version: string | undefined): RevisionProfile | undefined {
  return isHandshakeRevision(version) ? profileFor(version) : undefined;
}

/**
 * The stateless era has no server requests (the 2026-07-28 schema defines none, not even `ping`): the
 * server asks through `input_required` instead. One that arrives anyway is -32601, and no handler runs.
 */
function statelessRefusal(method: string, version: string | undefined): void {
  if (isStatelessRevision(version))
    throw new ProtocolError(
      ErrorCode.MethodNotFound,
      `Method not found: ${method} is no request a server may send in protocol version ${version} (the stateless era asks through input_required)`,
    );
}

/**
 * Answers the server's requests with the handlers (ping always; the others when given), as the revision
 * spoken (`protocolVersion()`) has them: `elicitation/create` before 2025-06-18 is -32601 (no such method
 * there), URL-mode elicitation and sampling with tools before 2025-11-25 are -32602, and in the stateless
 * era every server request is -32601; no handler runs. In 2025-11-25 the answer to a request that names
 * its task (the related-task key in its `_meta`) names that task too.
 * The id of a URL-mode elicitation goes to `urlElicitations`, whose completion the server may announce.
 * A question that would make the client hold more than its `questions` budget of params (those being
 * answered and those waiting their turn) is -32603, and no handler runs.
 */
export function bindServerRequests(
  peer: Peer,
  handlers: ClientHandlers,
  protocolVersion: () => string | undefined,
  questions: QuestionBytes,
  own?: OwnHandlers,
  urlElicitations?: UrlElicitations,
): void {
  peer.setRequestHandler('ping', () => {
    statelessRefusal('ping', protocolVersion());
    return {};
  });
  for (const method of INPUT_METHODS) {
    peer.setRequestHandler(method, async (params, ctx) => {
      statelessRefusal(method, protocolVersion());
      const profile = handshakeProfile(protocolVersion());
      if (method === 'elicitation/create' && profile && !profile.features.elicitation)
        throw new ProtocolError(
          ErrorCode.MethodNotFound,
          `Method not found: elicitation/create does not exist in protocol version ${profile.version}`,
        );
      const bytes = jsonSize(params);
      questions.take(bytes);
      // Expected while the handler runs (the flow may complete before it answers), kept only when accepted:
      // an elicitation refused, declined or cancelled never started, and its completion is not this client's.
      const urlId =
        params.mode === 'url' && typeof params.elicitationId === 'string' ? params.elicitationId : undefined;
      const fresh = urlId !== undefined && urlElicitations?.expect(urlId) === true;
      const related = ctx.relatedRequestId === undefined ? null : peer.requestOptions(ctx.relatedRequestId);
      const call = own?.callOf(related, profile?.features.tasks ? relatedTaskId(params._meta) : undefined);
      const chosen = withOwnHandlers(handlers, call?.handlers);
      // A request that belongs to a call ends with it.
      const end = callEnd(peer, ctx.relatedRequestId, call);
      const signal = end && mergedSignal([ctx.cancellation, end.ended]);
      let result: Awaited<ReturnType<typeof answerInputRequest>>;
      try {
        const handlerContext: HandlerContext = { signal: signal?.signal ?? ctx.signal };
        if (call) handlerContext.tiedBy = call.tiedBy;
        result = await answerInputRequest(method, params, chosen, handlerContext, profile);
      } catch (error) {
        // Cut short because its call ended: the server hears so, and onError nothing (the call's caller did).
        if (end?.ended.aborted && !ctx.aborted)
          throw new ProtocolError(
            ErrorCode.InternalError,
            `Internal error: ${errorMessage(end.ended.reason)}`,
          );
        throw error;
      } finally {
        questions.answered(bytes);
        signal?.dispose();
        end?.dispose();
        if (fresh && (!result || !('action' in result) || result.action !== 'accept'))
          urlElicitations?.forget(urlId);
      }
      if (!result) throw new ProtocolError(ErrorCode.MethodNotFound, `Method not found: ${REFUSALS[method]}`);
      // 2025-11-25: an answer to a task's question carries the task's key in its `_meta`, as the question did.
      const taskId = profile?.features.tasks ? relatedTaskId(params._meta) : undefined;
      return taskId === undefined
        ? result
        : withMember(result, '_meta', withRelatedTask(result._meta, taskId));
    });
  }
}
