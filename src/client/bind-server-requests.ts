/**
 * The server's requests in the handshake era (elicitation, sampling, roots, ping): JSON-RPC requests of
 * their own, answered through the client's handlers — or through those of the one request in flight that
 * brought its own (`ExchangeOptions.handlers`), tracked by `OwnHandlers`.
 * @module
 */
import type { Peer } from '../protocol/engine/peer.js';
import { ErrorCode, ProtocolError } from '../protocol/errors.js';
import { withMember } from '../protocol/jsonrpc.js';
import {
  isHandshakeRevision,
  isStatelessRevision,
  profileFor,
  type RevisionProfile,
} from '../protocol/revisions/index.js';
import { relatedTaskId, withRelatedTask } from '../protocol/types/tasks.js';
import {
  INPUT_METHODS,
  answerInputRequest,
  withOwnHandlers,
  type ClientHandlers,
} from './client-handlers.js';
import type { UrlElicitations } from './url-elicitations.js';

const REFUSALS: Record<(typeof INPUT_METHODS)[number], string> = {
  'elicitation/create': 'the client does not support elicitation/create',
  'sampling/createMessage': 'the client does not support sampling/createMessage',
  'roots/list': 'the client has no roots',
};

/**
 * Handshake era: the handlers of the requests in flight that brought their own (`ExchangeOptions.handlers`).
 * A server request is theirs when exactly one such request is in flight; with several, nothing on the
 * wire says which one it belongs to, so the client's handlers answer it.
 */
export class OwnHandlers {
  readonly #active = new Set<ClientHandlers>();

  /** Tracks `handlers` until `pending` settles; returns `pending`. */
  track<T>(handlers: ClientHandlers | undefined, pending: Promise<T>): Promise<T> {
    if (!handlers) return pending;
    // A fresh object per request: two requests may share one handlers object.
    const entry = { ...handlers };
    this.#active.add(entry);
    const done = () => void this.#active.delete(entry);
    pending.then(done, done);
    return pending;
  }

  /** The only in-flight request's handlers, if exactly one request brought some. */
  sole(): ClientHandlers | undefined {
    if (this.#active.size !== 1) return undefined;
    for (const handlers of this.#active) return handlers;
    return undefined;
  }
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
 */
export function bindServerRequests(
  peer: Peer,
  handlers: ClientHandlers,
  protocolVersion: () => string | undefined,
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
      // Expected while the handler runs (the flow may complete before it answers), kept only when accepted:
      // an elicitation refused, declined or cancelled never started, and its completion is not this client's.
      const urlId =
        params.mode === 'url' && typeof params.elicitationId === 'string' ? params.elicitationId : undefined;
      const fresh = urlId !== undefined && urlElicitations?.expect(urlId) === true;
      const chosen = withOwnHandlers(handlers, own?.sole());
      let result: Awaited<ReturnType<typeof answerInputRequest>>;
      try {
        result = await answerInputRequest(method, params, chosen, { signal: ctx.signal }, profile);
      } finally {
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
