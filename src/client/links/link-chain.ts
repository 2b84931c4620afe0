/**
 * A client's links, in the order they were added (`ClientOptions.links`, then each `client.use`), and
 * how a request or a tool call runs through them (see `client-link.ts` for the whole order).
 * @module
 */
import type { JsonObject } from '../../protocol/jsonrpc.js';
import type { CallToolResult } from '../../protocol/types/tools.js';
import type {
  ClientLink,
  OutgoingRequest,
  OutgoingToolCall,
  RequestLink,
  ToolCallLink,
} from './client-link.js';
import { runLinks } from './compose-links.js';

export class LinkChain {
  readonly #request: RequestLink[] = [];
  readonly #toolCall: ToolCallLink[] = [];

  constructor(links: readonly ClientLink[] = []) {
    for (const link of links) this.add(link);
  }

  /** Adds a link at the inner end of each chain it has a side for; it applies to calls started after. */
  add(link: ClientLink): void {
    if (typeof link !== 'object' || (link.request === undefined && link.toolCall === undefined)) {
      throw new TypeError(
        `A client link needs a request or a toolCall function (${link?.name ?? 'unnamed'})`,
      );
    }
    if (link.request) this.#request.push(link.request);
    if (link.toolCall) this.#toolCall.push(link.toolCall);
  }

  request(
    request: OutgoingRequest,
    end: (request: OutgoingRequest) => Promise<JsonObject>,
  ): Promise<JsonObject> {
    if (this.#request.length === 0) return end(request);
    return runLinks(this.#request.slice(), end, request);
  }

  /** Whether any tool-call link was added (the built-ins aside). */
  get hasToolCallLinks(): boolean {
    return this.#toolCall.length > 0;
  }

  /** Runs `outer` (the built-ins: audit, approval), then the added tool-call links, then `end`. */
  toolCall(
    outer: readonly ToolCallLink[],
    call: OutgoingToolCall,
    end: (call: OutgoingToolCall) => Promise<CallToolResult>,
  ): Promise<CallToolResult> {
    if (outer.length === 0 && this.#toolCall.length === 0) return end(call);
    return runLinks([...outer, ...this.#toolCall], end, call);
  }
}
