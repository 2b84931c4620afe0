/**
 * The toolwire client: connects to a server, negotiates the revision, lists and calls tools, and
 * answers the server's requests (elicitation, sampling, roots, ping).
 *
 * @example
 * ```ts
 * const client = new Client({ name: 'my-app', version: '1.0.0' });
 * await client.connect(new StdioClientTransport({ command: 'node', args: ['server.js'] }));
 * const tools = await client.listTools();
 * const result = await client.callTool('add', { a: 1, b: 2 }, { timeout: 5_000 });
 * ```
 * @module
 */
import { Peer, type RequestOptions } from '../protocol/engine/peer.js';
import { LocalErrorCode } from '../protocol/errors.js';
import { isJsonObject, type JsonObject } from '../protocol/jsonrpc.js';
import {
  LEGACY_REVISIONS,
  isLegacyRevision,
  profileFor,
  type LegacyRevision,
} from '../protocol/revisions/index.js';
import type { Transport } from '../protocol/transport.js';
import type {
  ClientCapabilities,
  Implementation,
  InitializeResult,
  LoggingLevel,
  LoggingMessageParams,
  ServerCapabilities,
} from '../protocol/types/lifecycle.js';
import type {
  CompleteResult,
  CompletionReference,
  GetPromptResult,
  Prompt,
} from '../protocol/types/prompts.js';
import type { ReadResourceResult, Resource, ResourceTemplate } from '../protocol/types/resources.js';
import type { CallToolResult, Tool } from '../protocol/types/tools.js';
import { ClientError } from './client-error.js';
import { bindServerRequests, clientCapabilities, type ClientHandlers } from './client-handlers.js';
import { complete, getPrompt, listPrompts } from './prompts.js';
import { listResourceTemplates, listResources, readResource, type Requester } from './resources.js';
import { ToolCache } from './tool-cache.js';

export interface ClientOptions extends ClientHandlers {
  /** Capabilities to declare beyond those implied by the handlers. */
  capabilities?: ClientCapabilities;
  /** Speak only this revision (default: offer the latest, accept any supported one). */
  protocolVersion?: LegacyRevision;
  /** Default timeout for requests, in ms (default 60 s). */
  requestTimeout?: number;
  /** Cap on pages followed by each list method (tools, resources, templates, prompts; default 100). */
  maxListPages?: number;
  /** Server log messages (`notifications/message`). */
  onLog?: (params: LoggingMessageParams) => void;
  /** Errors that reach no caller. */
  onError?: (error: Error) => void;
}

export interface CallToolOptions extends RequestOptions {
  /** Check `structuredContent` against the tool's cached outputSchema (default true). */
  validateOutput?: boolean;
}

export class Client {
  readonly info: Implementation;
  readonly #options: ClientOptions;
  readonly #peer: Peer;
  readonly #tools: ToolCache;
  readonly #toolListeners = new Set<(tools: readonly Tool[]) => void>();
  readonly #resourceUpdatedListeners = new Set<(uri: string) => void>();
  readonly #resourceListListeners = new Set<() => void>();
  readonly #promptListListeners = new Set<() => void>();
  readonly #maxPages: number;
  readonly #send: Requester = (method, params, options) => this.#request(method, params, options);
  #server: InitializeResult | undefined;

  constructor(info: Implementation, options: ClientOptions = {}) {
    this.info = { ...info };
    this.#options = options;
    this.#maxPages = options.maxListPages ?? 100;
    this.#tools = new ToolCache(this.#maxPages);
    this.#peer = new Peer({
      defaultTimeout: options.requestTimeout ?? 60_000,
      acceptBatch: () => this.#server?.protocolVersion === '2025-03-26',
    });
    this.#peer.onerror = (error) => options.onError?.(error);
    this.#bind();
  }

  /** The negotiated revision. */
  get protocolVersion(): string | undefined {
    return this.#server?.protocolVersion;
  }

  get serverInfo(): Implementation | undefined {
    return this.#server?.serverInfo;
  }

  get serverCapabilities(): ServerCapabilities | undefined {
    return this.#server?.capabilities;
  }

  get instructions(): string | undefined {
    return this.#server?.instructions;
  }

  set onclose(listener: (() => void) | undefined) {
    this.#peer.onclose = listener;
  }

  /** Connects and performs the handshake. Throws ClientError on a version the client does not speak. */
  async connect(transport: Transport, options: { timeout?: number } = {}): Promise<void> {
    await this.#peer.connect(transport);
    const offered = this.#options.protocolVersion ?? LEGACY_REVISIONS[0];
    const capabilities = clientCapabilities(this.#options, this.#options.capabilities);
    let result: JsonObject;
    try {
      result = await this.#peer.request(
        'initialize',
        { protocolVersion: offered, capabilities, clientInfo: this.info } as unknown as JsonObject,
        { timeout: options.timeout ?? this.#options.requestTimeout ?? 60_000 },
      );
    } catch (error) {
      await this.#peer.close();
      throw error;
    }
    const version = result.protocolVersion;
    const accepted = this.#options.protocolVersion
      ? version === this.#options.protocolVersion
      : isLegacyRevision(version);
    if (!accepted || !isJsonObject(result.capabilities) || !isJsonObject(result.serverInfo)) {
      await this.#peer.close();
      throw new ClientError(
        LocalErrorCode.UnsupportedProtocolVersion,
        accepted
          ? 'The server sent an invalid initialize result'
          : `The server chose protocol version ${String(version)}, which this client does not support (it speaks ${(this.#options.protocolVersion ? [this.#options.protocolVersion] : LEGACY_REVISIONS).join(', ')})`,
        { details: { serverVersion: version } },
      );
    }
    this.#server = result as unknown as InitializeResult;
    await this.#peer.notify('notifications/initialized');
  }

  async close(): Promise<void> {
    await this.#peer.close();
  }

  async ping(options?: RequestOptions): Promise<void> {
    await this.#request('ping', undefined, options);
  }

  async setLoggingLevel(level: LoggingLevel): Promise<void> {
    await this.#request('logging/setLevel', { level });
  }

  /** Every tool of the server (all pages), cached until the server says the list changed. */
  async listTools(options: { refresh?: boolean } & RequestOptions = {}): Promise<readonly Tool[]> {
    this.#requireConnected();
    if (options.refresh) this.#tools.invalidate();
    return this.#tools.load((cursor) =>
      this.#request('tools/list', cursor === undefined ? {} : { cursor }, options),
    );
  }

  /** Calls `listener` with the fresh list whenever the server's tools change. Returns an unsubscribe. */
  onToolsChanged(listener: (tools: readonly Tool[]) => void): () => void {
    this.#toolListeners.add(listener);
    return () => this.#toolListeners.delete(listener);
  }

  /**
   * Calls a tool. Tool failures come back as `isError` results; protocol failures throw ProtocolError;
   * timeouts, cancellation and output that breaks the tool's outputSchema throw ClientError / ToolwireError.
   */
  async callTool(
    name: string,
    args: JsonObject = {},
    options: CallToolOptions = {},
  ): Promise<CallToolResult> {
    const raw = await this.#request('tools/call', { name, arguments: args }, options);
    if (!Array.isArray(raw.content)) {
      throw new ClientError(
        LocalErrorCode.InvalidResult,
        `tools/call ${name} returned a result without a content array`,
        {
          details: { result: raw },
        },
      );
    }
    const result = raw as unknown as CallToolResult;
    if (options.validateOutput !== false && result.isError !== true) this.#tools.checkOutput(name, result);
    return result;
  }

  /** Every resource of the server (all pages). */
  listResources(options?: RequestOptions): Promise<Resource[]> {
    return listResources(this.#send, this.#maxPages, options);
  }

  /** Every resource template of the server (all pages). */
  listResourceTemplates(options?: RequestOptions): Promise<ResourceTemplate[]> {
    return listResourceTemplates(this.#send, this.#maxPages, options);
  }

  /** Reads a resource. An unknown URI rejects with ProtocolError -32002. */
  readResource(uri: string, options?: RequestOptions): Promise<ReadResourceResult> {
    return readResource(this.#send, uri, options);
  }

  /** Asks for `notifications/resources/updated` about `uri` (see `onResourceUpdated`). */
  async subscribeResource(uri: string, options?: RequestOptions): Promise<void> {
    await this.#request('resources/subscribe', { uri }, options);
  }

  async unsubscribeResource(uri: string, options?: RequestOptions): Promise<void> {
    await this.#request('resources/unsubscribe', { uri }, options);
  }

  /** Calls `listener` with the URI of each subscribed resource that changed. Returns an unsubscribe. */
  onResourceUpdated(listener: (uri: string) => void): () => void {
    return listen(this.#resourceUpdatedListeners, listener);
  }

  /** Calls `listener` when the server says its resources or templates changed. Returns an unsubscribe. */
  onResourceListChanged(listener: () => void): () => void {
    return listen(this.#resourceListListeners, listener);
  }

  /** Every prompt of the server (all pages). */
  listPrompts(options?: RequestOptions): Promise<Prompt[]> {
    return listPrompts(this.#send, this.#maxPages, options);
  }

  /** Gets a prompt. An unknown prompt or a missing required argument rejects with ProtocolError -32602. */
  getPrompt(
    name: string,
    args: Record<string, string> = {},
    options?: RequestOptions,
  ): Promise<GetPromptResult> {
    return getPrompt(this.#send, name, args, options);
  }

  /** Calls `listener` when the server says its prompts changed. Returns an unsubscribe. */
  onPromptListChanged(listener: () => void): () => void {
    return listen(this.#promptListListeners, listener);
  }

  /**
   * Asks for values of a prompt argument (`{ type: 'ref/prompt', name }`) or a resource-template
   * variable (`{ type: 'ref/resource', uri: uriTemplate }`). `context` holds the values already chosen for
   * the other arguments (sent to 2025-06-18 and later servers only).
   */
  async complete(
    ref: CompletionReference,
    argument: { name: string; value: string },
    context?: Record<string, string>,
    options?: RequestOptions,
  ): Promise<CompleteResult['completion']> {
    this.#requireConnected();
    const version = this.#server?.protocolVersion ?? LEGACY_REVISIONS[0];
    const profile = profileFor(version as LegacyRevision);
    return complete(this.#send, profile, ref, argument, context, options);
  }

  #requireConnected(): void {
    if (!this.#server || this.#peer.closed) {
      throw new ClientError(LocalErrorCode.NotConnected, 'The client is not connected');
    }
  }

  #request(
    method: string,
    params: JsonObject | undefined,
    options: RequestOptions = {},
  ): Promise<JsonObject> {
    try {
      this.#requireConnected();
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    return this.#peer.request(method, params, options);
  }

  #bind(): void {
    const peer = this.#peer;
    const options = this.#options;
    bindServerRequests(peer, options);
    peer.setNotificationHandler('notifications/tools/list_changed', () => {
      this.#tools.invalidate();
      if (this.#toolListeners.size === 0) return;
      this.listTools().then(
        (tools) => this.#toolListeners.forEach((listener) => listener(tools)),
        (error: unknown) => options.onError?.(error instanceof Error ? error : new Error(String(error))),
      );
    });
    peer.setNotificationHandler('notifications/resources/updated', (params) => {
      const uri = params.uri;
      if (typeof uri === 'string') this.#resourceUpdatedListeners.forEach((listener) => listener(uri));
    });
    peer.setNotificationHandler('notifications/resources/list_changed', () =>
      this.#resourceListListeners.forEach((listener) => listener()),
    );
    peer.setNotificationHandler('notifications/prompts/list_changed', () =>
      this.#promptListListeners.forEach((listener) => listener()),
    );
    peer.setNotificationHandler('notifications/message', (params) => {
      options.onLog?.(params as unknown as LoggingMessageParams);
    });
  }

  /** Tells the server the roots changed (after the `roots` option's answer changed). */
  async sendRootsListChanged(): Promise<void> {
    await this.#peer.notify('notifications/roots/list_changed');
  }
}

function listen<T>(listeners: Set<T>, listener: T): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
