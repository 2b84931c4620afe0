/**
 * The base of the contexts handed to resource readers, prompt getters and completers: their `signal` is their
 * request's, made when first read. Most handlers never read it, and on Node 20 an `AbortSignal` outlives V8's
 * young-generation collections (16 made at a time, ≈3 MB of them promoted per scavenge): one made per request
 * tripled a `resources/read`'s CPU under load. (A tool's context does the same, see `hosted-context.ts`.)
 * @module
 */
import type { JsonObject } from '../protocol/jsonrpc.js';
import type { ClientView, ToolContext } from './tool-context.js';

/** What a context's signal comes from: the request's context, whose signal is made on first use. */
export interface SignalSource {
  readonly signal: AbortSignal;
}

export abstract class RequestSignalContext {
  readonly #request: SignalSource;

  constructor(request: SignalSource) {
    this.#request = request;
  }

  /** Aborted when the client cancels the request or the connection closes (as `server.close()` does). */
  get signal(): AbortSignal {
    return this.#request.signal;
  }
}

/** A prompt getter's or resource reader's context (`PromptContext`, `ResourceContext`). */
export interface RequestHandlerContext {
  /** Aborted when the client cancels the request, the connection closes, or the server shuts down. */
  readonly signal: AbortSignal;
  /** The request's `_meta`. */
  readonly meta: JsonObject | undefined;
  readonly client: ClientView;
  /** Asks the user for input, in both eras, as the tool context's `elicit` does. */
  readonly elicit: ToolContext['elicit'];
  /** Asks the client's model, as the tool context's `sample` does. */
  readonly sample: ToolContext['sample'];
  /** Lists the client's roots, as the tool context's `listRoots` does. */
  readonly listRoots: ToolContext['listRoots'];
  /**
   * Tells the client a URL-mode elicitation it was sent is done, as the tool context's
   * `completeElicitation` does (for a -32042 this request answered, say).
   */
  readonly completeElicitation: ToolContext['completeElicitation'];
  /** Who is asking, as the tool context's `principal` (undefined for anonymous requests). */
  readonly principal: ToolContext['principal'];
  /** The HTTP session id of a stateful HTTP connection, as the tool context's `sessionId`. */
  readonly sessionId: string | undefined;
  /** Handshake era: the connection's own object, as the tool context's `connection`. */
  readonly connection: object | undefined;
  /** Stateless era: what the previous round carried for this request, as the tool context's `carried`. */
  readonly carried: JsonObject | undefined;
  /** Stateless era: data for this round's `requestState`, read back as `carried` (the tool context's `carry`). */
  readonly carry: ToolContext['carry'];
}

/**
 * A prompt getter's or resource reader's context (`PromptContext`, `ResourceContext`): the request's signal
 * and `_meta`, its client, and its questions, asked through the tool context the request runs with.
 */
export class AskingContext extends RequestSignalContext implements RequestHandlerContext {
  readonly meta: JsonObject | undefined;
  readonly elicit: ToolContext['elicit'];
  readonly sample: ToolContext['sample'];
  readonly listRoots: ToolContext['listRoots'];
  readonly completeElicitation: ToolContext['completeElicitation'];
  readonly carry: ToolContext['carry'];
  readonly #tool: Pick<RequestHandlerContext, 'principal' | 'sessionId' | 'connection' | 'carried'>;

  /** `tool`: the tool context the request runs with, which asks its questions and says who is asking. */
  constructor(
    request: SignalSource & { readonly meta: JsonObject | undefined },
    readonly client: ClientView,
    tool: Omit<RequestHandlerContext, 'signal' | 'meta' | 'client'>,
  ) {
    super(request);
    this.meta = request.meta;
    this.#tool = tool;
    this.elicit = (asked, options) => tool.elicit(asked, options);
    this.sample = (asked, options) => tool.sample(asked, options);
    this.listRoots = (options) => tool.listRoots(options);
    this.completeElicitation = (elicitationId) => tool.completeElicitation(elicitationId);
    this.carry = (value) => tool.carry(value);
  }

  get principal(): ToolContext['principal'] {
    return this.#tool.principal;
  }

  get sessionId(): string | undefined {
    return this.#tool.sessionId;
  }

  get connection(): object | undefined {
    return this.#tool.connection;
  }

  get carried(): JsonObject | undefined {
    return this.#tool.carried;
  }
}
