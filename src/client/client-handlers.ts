/**
 * Handlers for the requests a server may make of the client, and the capabilities they imply. In the
 * handshake era the server sends them as JSON-RPC requests; in the stateless era (2026-07-28) they arrive
 * as the `inputRequests` of an `input_required` result and are answered through the same handlers.
 * @module
 */
import type {
  CreateMessageParams,
  CreateMessageResult,
  ElicitParams,
  ElicitResult,
  ListRootsResult,
  Root,
} from '../protocol/types/client-features.js';
import { ErrorCode, ProtocolError } from '../protocol/errors.js';
import { isJsonObject, type JsonObject } from '../protocol/jsonrpc.js';
import {
  createMessageParamsProblem,
  elicitParamsProblem,
  missingCapabilities,
} from '../protocol/types/input-checks.js';
import { checkedElicitation, checkedRoots, checkedSampling } from './checked-answers.js';
import type { ClientCapabilities } from '../protocol/types/lifecycle.js';
import { revisionCapabilities } from '../protocol/revisions/shape-input.js';
import {
  LATEST_HANDSHAKE_REVISION,
  profileFor,
  type Revision,
  type RevisionFeatures,
  type RevisionProfile,
} from '../protocol/revisions/index.js';

/**
 * What made a server request the call's whose handlers answer it (see `HandlerContext.tiedBy`): its POST
 * response stream, the task it names, or nothing but being the only call in flight with handlers of its own.
 */
export type TiedBy = 'stream' | 'task' | 'only';

export interface HandlerContext {
  /**
   * Aborted when the connection closes, and: in the handshake era, when the server cancels its request
   * (`notifications/cancelled`), and when the call it belongs to ends (answered, failed, timed out or
   * aborted) where the client can tell which call that is — over Streamable HTTP the call whose POST
   * response stream brought it, else the one call in flight with handlers of its own
   * (`ExchangeOptions.handlers`), which answered it; a request that came otherwise (stdio, the HTTP GET
   * stream) and that the client-wide handlers answer is tied to no call, and no call's end aborts it; in
   * the stateless era, when the call whose `input_required` round asked it is aborted or times out.
   */
  signal: AbortSignal;
  /**
   * Handshake era, a call's own handlers (`ExchangeOptions.handlers`): what made the request that call's —
   * `'stream'`, it came on the call's POST response stream (Streamable HTTP); `'task'`, it names the task
   * the call waits for (2025-11-25); `'only'`, nothing on the wire ties it to a call (stdio, the HTTP GET
   * stream) and the call was the only one in flight with handlers of its own, so another request in flight
   * (one without handlers of its own) may have asked it. Undefined for the client's own handlers, and in the
   * stateless era (an `input_required` round's questions are its call's).
   */
  tiedBy?: TiedBy;
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
  /** Answers `roots/list`; declares the `roots` capability (with `listChanged` in the handshake era). */
  roots?: Root[] | ((ctx: HandlerContext) => Root[] | Promise<Root[]>);
}

/**
 * The capabilities the handlers imply, plus `extra`, as `revision` defines them (the latest handshake-era
 * revision unless said). A handshake-era revision gets only what it has: `elicitation` from 2025-06-18,
 * and there as `{}` (its `form` / `url` members, like `sampling.tools` / `sampling.context` and `tasks`,
 * are 2025-11-25's). In the stateless era `roots` is `{}`: there is no `notifications/roots/list_changed`
 * any more (the 2026-07-28 schema types it as an empty object).
 */
export function clientCapabilities(
  handlers: ClientHandlers,
  extra: ClientCapabilities = {},
  revision: Revision = LATEST_HANDSHAKE_REVISION,
): ClientCapabilities {
  const f = profileFor(revision).features;
  const caps: ClientCapabilities = {};
  if (handlers.elicitation) caps.elicitation = { form: {} };
  if (handlers.sampling) caps.sampling = {};
  if (handlers.roots) caps.roots = f.stateless ? {} : { listChanged: true };
  const declared = { ...caps, ...extra };
  return f.stateless ? declared : forRevision(declared, f);
}

/**
 * Handshake era: `caps` without what the revision of `f` lacks (the members of `elicitation` and `sampling`
 * as the server reads them, `revisionCapabilities`; and `elicitation`, `tasks` where the revision has none).
 */
function forRevision(caps: ClientCapabilities, f: RevisionFeatures): ClientCapabilities {
  const out: ClientCapabilities = { ...revisionCapabilities(caps, f) };
  if (!f.elicitation) delete out.elicitation;
  if (!f.tasks) delete out.tasks;
  return out;
}

/** The request methods a server may make of a client (in either era). */
export const INPUT_METHODS = ['elicitation/create', 'sampling/createMessage', 'roots/list'] as const;

/**
 * Handlers with the capabilities declared beside them, and whether the elicitation handler's answers are
 * checked (a client's options are all three).
 */
export type DeclaredHandlers = ClientHandlers & {
  capabilities?: ClientCapabilities;
  validateElicitation?: boolean;
};

/**
 * What the question needs that these handlers' client did not declare (the rule the server side keeps to:
 * `elicitation: {}` is form mode only, URL mode needs `elicitation.url`, tools need `sampling.tools`).
 */
function undeclared(
  method: 'elicitation/create' | 'sampling/createMessage',
  params: JsonObject,
  handlers: DeclaredHandlers,
): string | undefined {
  const missing = missingCapabilities(method, params, clientCapabilities(handlers, handlers.capabilities));
  if (missing?.elicitation)
    return `this client did not declare the elicitation mode "${Object.keys(missing.elicitation)[0] ?? 'form'}"`;
  if (missing?.sampling)
    return `this client did not declare sampling${missing.sampling.tools ? ' with tools' : ''}`;
  return undefined;
}

const TOOL_BLOCKS: ReadonlySet<unknown> = new Set(['tool_use', 'tool_result']);

/** Whether a sampling request uses tools: `tools`, `toolChoice`, or tool_use / tool_result content. */
function usesTools(params: JsonObject): boolean {
  if (params.tools !== undefined || params.toolChoice !== undefined) return true;
  const messages = Array.isArray(params.messages) ? params.messages : [];
  return messages.some((message) => {
    const content = isJsonObject(message) ? message.content : undefined;
    const blocks = Array.isArray(content) ? content : [content];
    return blocks.some((block) => isJsonObject(block) && TOOL_BLOCKS.has(block.type));
  });
}

/**
 * What the question uses that the revision spoken (`profile`) does not have: URL-mode elicitation and
 * tool use in sampling are 2025-11-25's.
 */
function unknownToRevision(
  method: 'elicitation/create' | 'sampling/createMessage',
  params: JsonObject,
  profile: RevisionProfile | undefined,
): string | undefined {
  if (!profile) return undefined;
  const { features: f, version } = profile;
  if (method === 'elicitation/create' && params.mode === 'url' && !f.elicitationModes)
    return `URL-mode elicitation does not exist in protocol version ${version}`;
  if (method === 'sampling/createMessage' && !f.samplingTools && usesTools(params))
    return `sampling with tools does not exist in protocol version ${version}`;
  return undefined;
}

/** A ProtocolError -32602 when the params of a server's question are not what its method takes. */
function checkParams(
  method: 'elicitation/create' | 'sampling/createMessage',
  params: JsonObject,
  handlers: DeclaredHandlers,
  profile: RevisionProfile | undefined,
): void {
  const problem =
    (method === 'elicitation/create' ? elicitParamsProblem(params) : createMessageParamsProblem(params)) ??
    unknownToRevision(method, params, profile) ??
    undeclared(method, params, handlers);
  if (problem) throw new ProtocolError(ErrorCode.InvalidParams, `Invalid params for ${method}: ${problem}`);
}

/**
 * Answers one server request with the handlers; `undefined` when there is no handler for it (the caller
 * decides what that means in its era). Params a handler could not take (a message that is not a string, a
 * form that is not flat, an elicitation mode the client did not declare, a `javascript:` URL, what
 * `profile` — the revision spoken, when known — does not have) are refused with -32602 before any
 * handler sees them. A handler's answer the spec does not allow in that revision is a ClientError
 * INVALID_RESULT, and nothing is sent (`checked-answers.ts`; elicitation's unless `validateElicitation`
 * is false).
 */
export async function answerInputRequest(
  method: string,
  params: JsonObject,
  handlers: DeclaredHandlers,
  ctx: HandlerContext,
  profile?: RevisionProfile,
): Promise<ElicitResult | CreateMessageResult | ListRootsResult | undefined> {
  switch (method) {
    case 'elicitation/create': {
      if (!handlers.elicitation) return undefined;
      checkParams(method, params, handlers, profile);
      const answer = await handlers.elicitation(params as unknown as ElicitParams, ctx);
      return handlers.validateElicitation === false ? answer : checkedElicitation(params, answer);
    }
    case 'sampling/createMessage': {
      if (!handlers.sampling) return undefined;
      checkParams(method, params, handlers, profile);
      return checkedSampling(await handlers.sampling(params as unknown as CreateMessageParams, ctx), profile);
    }
    case 'roots/list': {
      if (!handlers.roots) return undefined;
      return checkedRoots(typeof handlers.roots === 'function' ? await handlers.roots(ctx) : handlers.roots);
    }
    default:
      return undefined;
  }
}

/** A request's own handlers (`ExchangeOptions.handlers`) first, then the client's (whose declarations hold). */
export function withOwnHandlers(client: DeclaredHandlers, own: ClientHandlers | undefined): DeclaredHandlers {
  if (!own) return client;
  return {
    elicitation: own.elicitation ?? client.elicitation,
    sampling: own.sampling ?? client.sampling,
    roots: own.roots ?? client.roots,
    ...(client.capabilities && { capabilities: client.capabilities }),
    ...(client.validateElicitation !== undefined && { validateElicitation: client.validateElicitation }),
  };
}
