/**
 * The tools side of a client: `tools/list` (every page, cached per era's rules, tools with invalid
 * `x-mcp-header` declarations left out with a warning) and `tools/call` (through the approval gate when
 * there is one, its result checked against the tool's outputSchema).
 * @module
 */
import type { RequestOptions } from '../protocol/engine/peer.js';
import { LocalErrorCode } from '../protocol/errors.js';
import type { JsonObject } from '../protocol/jsonrpc.js';
import type { Implementation } from '../protocol/types/lifecycle.js';
import { validateMcpHeaderDeclarations } from '../protocol/types/mcp-header-declarations.js';
import type { CallToolResult, Tool } from '../protocol/types/tools.js';
import { ToolCallGate } from './approval/index.js';
import { ClientError } from './client-error.js';
import type { CallToolOptions, ClientOptions } from './client-options.js';
import type { ExchangeOptions } from './input-required.js';
import type { ModernRequests } from './modern-requests.js';
import { ToolCache } from './tool-cache.js';

/** What the tools need from their client. */
export interface ToolsHost {
  /** Sends one request on the client's connection (throws NOT_CONNECTED when it is not). */
  request(method: string, params: JsonObject | undefined, options?: ExchangeOptions): Promise<JsonObject>;
  /** The stateless-era requests, once connected in that era. */
  modern(): ModernRequests | undefined;
  /** The server, as it introduced itself. */
  serverInfo(): Implementation | undefined;
}

export class ClientTools {
  readonly #cache: ToolCache;
  readonly #host: ToolsHost;
  readonly #options: ClientOptions;
  readonly #gate: ToolCallGate | undefined;
  readonly #warned = new Set<string>();

  constructor(host: ToolsHost, options: ClientOptions, maxPages: number) {
    this.#host = host;
    this.#options = options;
    this.#cache = new ToolCache(maxPages);
    if (options.approval || options.onAudit) {
      this.#gate = new ToolCallGate(options.approval, options.onAudit, (error) => options.onError?.(error));
    }
  }

  /** The listed tools are stale (the server said so, or the caller asked for a refresh). */
  invalidate(): void {
    this.#cache.invalidate();
    this.#host.modern()?.cache.invalidate('tools/list');
  }

  async list(options: { refresh?: boolean } & RequestOptions = {}): Promise<readonly Tool[]> {
    const { refresh, ...requestOptions } = options;
    if (refresh) this.invalidate();
    const fetchPage = (cursor: string | undefined) =>
      this.#host.request('tools/list', cursor === undefined ? {} : { cursor }, requestOptions);
    if (!this.#host.modern()) return this.#cache.load(fetchPage);
    return this.#cache.load(fetchPage, { memoize: false, filter: (tool) => this.#validHeaders(tool) });
  }

  async call(name: string, args: JsonObject, options: CallToolOptions): Promise<CallToolResult> {
    if (!this.#gate) return this.#call(name, args, options);
    const tool = async (): Promise<Tool> =>
      this.#cache.get(name) ??
      (await this.list()).find((t) => t.name === name) ?? { name, inputSchema: { type: 'object' } };
    const context = { server: this.#host.serverInfo(), tool };
    return this.#gate.run(name, args, context, () => this.#call(name, args, options));
  }

  async #call(name: string, args: JsonObject, options: CallToolOptions): Promise<CallToolResult> {
    const raw = await this.#host.request('tools/call', { name, arguments: args }, options);
    if (!Array.isArray(raw.content)) {
      throw new ClientError(
        LocalErrorCode.InvalidResult,
        `tools/call ${name} returned a result without a content array`,
        { details: { result: raw } },
      );
    }
    const result = raw as unknown as CallToolResult;
    if (options.validateOutput !== false && result.isError !== true) this.#cache.checkOutput(name, result);
    return result;
  }

  /** Whether a listed tool's `x-mcp-header` declarations are valid; warns (once) about one that is not. */
  #validHeaders(tool: Tool): boolean {
    const problems = validateMcpHeaderDeclarations(tool.inputSchema);
    if (problems.length === 0) return true;
    const message = `Tool ${tool.name} is left out of tools/list: invalid x-mcp-header (${problems.join('; ')})`;
    if (!this.#warned.has(message)) {
      this.#warned.add(message);
      if (this.#options.onWarning) this.#options.onWarning(message);
      else this.#options.onError?.(new ClientError(LocalErrorCode.InvalidDefinition, message));
    }
    return false;
  }
}
