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
