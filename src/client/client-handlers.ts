/**
 * Handlers for the requests a server may send, and the capabilities they imply.
 * @module
 */
import type {
  CreateMessageParams,
  CreateMessageResult,
  ElicitParams,
  ElicitResult,
  Root,
} from '../protocol/types/client-features.js';
import type { Peer } from '../protocol/engine/peer.js';
import { ErrorCode, ProtocolError } from '../protocol/errors.js';
import type { JsonObject } from '../protocol/jsonrpc.js';
import type { ClientCapabilities } from '../protocol/types/lifecycle.js';

export interface HandlerContext {
  /** Aborted when the server cancels its request or the connection closes. */
  signal: AbortSignal;
}

export type ElicitationHandler = (
  params: ElicitParams,
  ctx: HandlerContext,
) => Promise<ElicitResult> | ElicitResult;
export type SamplingHandler = (
  params: CreateMessageParams,
  ctx: HandlerContext,
) => Promise<CreateMessageResult> | CreateMessageResult;

export interface ClientHandlers {
  /** Answers `elicitation/create`; declares the `elicitation` capability. */
  elicitation?: ElicitationHandler;
  /** Answers `sampling/createMessage`; declares the `sampling` capability. */
  sampling?: SamplingHandler;
  /** Answers `roots/list`; declares the `roots` capability (with `listChanged`). */
  roots?: Root[] | (() => Root[] | Promise<Root[]>);
}

export function clientCapabilities(
  handlers: ClientHandlers,
  extra: ClientCapabilities = {},
): ClientCapabilities {
  const caps: ClientCapabilities = {};
  if (handlers.elicitation) caps.elicitation = { form: {} };
  if (handlers.sampling) caps.sampling = {};
  if (handlers.roots) caps.roots = { listChanged: true };
  return { ...caps, ...extra };
}

const missing = (what: string) => new ProtocolError(ErrorCode.MethodNotFound, `Method not found: ${what}`);

/** Answers the server's requests with the handlers (ping always; the others when given). */
export function bindServerRequests(peer: Peer, handlers: ClientHandlers): void {
  peer.setRequestHandler('ping', () => ({}));
  peer.setRequestHandler('elicitation/create', async (params, ctx) => {
    if (!handlers.elicitation) throw missing('the client does not support elicitation/create');
    return (await handlers.elicitation(params as never, { signal: ctx.signal })) as unknown as JsonObject;
  });
  peer.setRequestHandler('sampling/createMessage', async (params, ctx) => {
    if (!handlers.sampling) throw missing('the client does not support sampling/createMessage');
    return (await handlers.sampling(params as never, { signal: ctx.signal })) as unknown as JsonObject;
  });
  peer.setRequestHandler('roots/list', async () => {
    if (!handlers.roots) throw missing('the client has no roots');
    const roots = typeof handlers.roots === 'function' ? await handlers.roots() : handlers.roots;
    return { roots } as unknown as JsonObject;
  });
}
