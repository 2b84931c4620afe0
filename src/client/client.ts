/**
 * The toolwire client: connects to a server in the era it speaks (the stateless era of 2026-07-28 when
 * it can, else the `initialize` handshake), lists and calls tools, and answers the server's requests
 * (elicitation, sampling, roots) — as JSON-RPC requests in the handshake era, as the `inputRequests` of
 * `input_required` results in the stateless era.
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
import type { JsonObject } from '../protocol/jsonrpc.js';
import { profileFor, type Revision } from '../protocol/revisions/index.js';
import type { Transport } from '../protocol/transport.js';
import {
  isLoggingLevel,
  type ClientCapabilities,
  type Implementation,
  type LoggingLevel,
  type LoggingMessageParams,
  type ServerCapabilities,
} from '../protocol/types/lifecycle.js';
import { validateMcpHeaderDeclarations } from '../protocol/types/mcp-header-declarations.js';
import type {
  CompleteResult,
  CompletionReference,
  GetPromptResult,
  Prompt,
} from '../protocol/types/prompts.js';
import type { ReadResourceResult, Resource, ResourceTemplate } from '../protocol/types/resources.js';
import type { CallToolResult, Tool } from '../protocol/types/tools.js';
import { chooseEra, type ServerView } from './choose-era.js';
import { ClientError } from './client-error.js';
import { bindServerRequests, clientCapabilities, type ClientHandlers } from './client-handlers.js';
import type { ExchangeOptions } from './input-required.js';
import { ListenStream, type SubscriptionFilter } from './listen-stream.js';
import { ModernChannel } from './modern-channel.js';
import { ModernRequests } from './modern-requests.js';
import { ObservedTransport } from './observed-transport.js';
import { complete, getPrompt, listPrompts } from './prompts.js';
import { listResourceTemplates, listResources, readResource, type Requester } from './resources.js';
import { ToolCache } from './tool-cache.js';
import type { LoadedSkill, SkillEntry } from './skills/skill-entry.js';
import { Skills, withSkillsExtension } from './skills/skills.js';
import { ToolCallGate, type ApprovalOptions, type ClientAuditRecord } from './approval/index.js';

export interface ClientOptions extends ClientHandlers {
  /** Capabilities to declare beyond those implied by the handlers. */
  capabilities?: ClientCapabilities;
  /**
   * `auto` (default): probe with `server/discover` and speak the stateless era (2026-07-28) when the server
   * does, else fall back to the `initialize` handshake. A handshake-era revision: offer only that one. A
   * stateless-era revision: no handshake; `server/discover` is still called, for the server's capabilities
   * and instructions, and must succeed.
   */
  protocolVersion?: 'auto' | Revision;
  /** How long the `server/discover` probe may take before the client falls back to `initialize` (ms, default 5 s). */
  discoverTimeout?: number;
  /** Default timeout for requests, in ms (default 60 s). */
  requestTimeout?: number;
  /** Cap on pages followed by each list method (tools, resources, templates, prompts; default 100). */
  maxListPages?: number;
  /** Stateless era: `input_required` rounds answered per request before giving up (default 8). */
  maxInputRounds?: number;
  /**
   * Stateless era: the authorization context (e.g. a digest of the access token) that `cacheScope: "private"`
   * results are cached under; they are never served to another context. Default `''`.
   */
  authContext?: string | (() => string);
  /** Server log messages (`notifications/message`). */
  onLog?: (params: LoggingMessageParams) => void;
  /** Errors that reach no caller. */
  onError?: (error: Error) => void;
  /** Things worth a warning, e.g. a tool left out of `listTools()` for invalid `x-mcp-header` declarations (default: `onError`). */
  onWarning?: (message: string) => void;
  /**
   * Decides, before anything is sent, whether each `tools/call` may run: rules, trusted annotations and an
   * approver for `ask` (see ApprovalOptions). A refusal throws ClientError TOOL_CALL_DENIED. Without it,
   * every call goes through.
   */
  approval?: ApprovalOptions;
  /** One audit record per tool call: decision, argument digest, duration, outcome (never the arguments). */
  onAudit?: (record: ClientAuditRecord) => void;
  /**
   * Opts in to the skills extension (SEP-2640): declares `extensions["io.modelcontextprotocol/skills"]` in
   * the client's capabilities and enables `listSkills` / `loadSkill`. Off by default (nothing declared).
   */
  skills?: boolean;
}

export interface CallToolOptions extends ExchangeOptions {
  /** Check `structuredContent` against the tool's cached outputSchema (default true). */
  validateOutput?: boolean;
}

export class Client {
  readonly info: Implementation;
  readonly #options: ClientOptions;
  readonly #peer: Peer;
  readonly #tools: ToolCache;
  readonly #listen: ListenStream;
  readonly #toolListeners = new Set<(tools: readonly Tool[]) => void>();
  readonly #resourceUpdatedListeners = new Set<(uri: string) => void>();
  readonly #resourceListListeners = new Set<() => void>();
  readonly #promptListListeners = new Set<() => void>();
  readonly #subscribedUris = new Set<string>();
  readonly #warned = new Set<string>();
  readonly #maxPages: number;
  readonly #send: Requester = (method, params, options) => this.#request(method, params, options);
  #server: ServerView | undefined;
  #modern: ModernRequests | undefined;
  readonly #gate: ToolCallGate | undefined;
  readonly #skills: Skills;

  constructor(info: Implementation, options: ClientOptions = {}) {
    this.info = { ...info };
    this.#options = options.skills
      ? { ...options, capabilities: withSkillsExtension(options.capabilities) }
      : options;
    this.#maxPages = options.maxListPages ?? 100;
    this.#tools = new ToolCache(this.#maxPages);
    this.#peer = new Peer({
      defaultTimeout: options.requestTimeout ?? 60_000,
      acceptBatch: () => this.#server?.era === 'legacy' && this.#server.protocolVersion === '2025-03-26',
    });
    this.#peer.onerror = (error) => options.onError?.(error);
    this.#listen = new ListenStream(
      (params, opts) => this.#modern!.channel.request('subscriptions/listen', params, opts),
      (error) => options.onError?.(error),
    );
    this.#bind();
    this.#skills = new Skills(this.#send, {
      enabled: options.skills === true,
      maxPages: this.#maxPages,
      serverCapabilities: () => this.#server?.capabilities,
    });
    if (options.approval || options.onAudit) {
      this.#gate = new ToolCallGate(options.approval, options.onAudit, (error) => options.onError?.(error));
    }
  }

  /** The era spoken with the server, once connected. */
  get era(): 'legacy' | 'modern' | undefined {
    return this.#server?.era;
  }

  /** The revision in use: negotiated by `initialize`, or chosen from `server/discover`. */
  get protocolVersion(): string | undefined {
    return this.#modern?.channel.version ?? this.#server?.protocolVersion;
  }

  /** From the initialize result; in the stateless era from `server/discover`, then each result's `_meta`. */
  get serverInfo(): Implementation | undefined {
    return this.#modern?.channel.serverInfo ?? this.#server?.serverInfo;
  }

  get serverCapabilities(): ServerCapabilities | undefined {
    return this.#server?.capabilities;
  }

  get instructions(): string | undefined {
    return this.#server?.instructions;
  }

  /** Stateless era: what the server agreed to send on the `subscriptions/listen` stream (once it did). */
  get subscriptions(): SubscriptionFilter | undefined {
    return this.#listen.acknowledged;
  }

  set onclose(listener: (() => void) | undefined) {
    this.#peer.onclose = listener;
  }

  /**
   * Connects and meets the server in the era `protocolVersion` says (see ClientOptions). `timeout` bounds
   * `initialize`; the probe has `discoverTimeout`. Throws ClientError UNSUPPORTED_PROTOCOL_VERSION on a
   * version the client does not speak, and closes the connection on any failure.
   */
  async connect(transport: Transport, options: { timeout?: number } = {}): Promise<void> {
    await this.#peer.connect(new ObservedTransport(transport, this.#listen));
    const handlers = this.#options;
    try {
      this.#server = await chooseEra(this.#peer, {
        protocolVersion: handlers.protocolVersion ?? 'auto',
        info: this.info,
        capabilities: (era) => clientCapabilities(handlers, handlers.capabilities, era),
        discoverTimeout: handlers.discoverTimeout ?? 5_000,
        initializeTimeout: options.timeout ?? handlers.requestTimeout ?? 60_000,
      });
    } catch (error) {
      await this.#peer.close();
      throw error;
    }
    if (this.#server.era === 'modern') {
      const channel = new ModernChannel(this.#peer, this.#server.protocolVersion, {
        info: this.info,
        capabilities: clientCapabilities(handlers, handlers.capabilities, 'modern'),
      });
      channel.serverInfo = this.#server.serverInfo;
      this.#modern = new ModernRequests(channel, {
        handlers,
        authContext: handlers.authContext,
        maxInputRounds: handlers.maxInputRounds,
        defaultTimeout: handlers.requestTimeout ?? 60_000,
      });
      void this.#updateListen();
    }
  }

  async close(): Promise<void> {
    this.#listen.close();
    await this.#peer.close();
  }

  /** Pings the server (handshake era; the stateless era has no ping: ClientError CAPABILITY_NOT_SUPPORTED). */
  async ping(options?: RequestOptions): Promise<void> {
    this.#requireConnected();
    if (this.#modern) {
      throw new ClientError(
        LocalErrorCode.CapabilityNotSupported,
        `ping does not exist in protocol version ${this.#modern.channel.version}`,
      );
    }
    await this.#request('ping', undefined, options);
  }

  /**
   * Handshake era: `logging/setLevel`. Stateless era: no request; the level goes in the `_meta` of every
   * request from now on (without one, the server sends no log messages).
   */
  async setLoggingLevel(level: LoggingLevel): Promise<void> {
    this.#requireConnected();
    if (!this.#modern) {
      await this.#request('logging/setLevel', { level });
      return;
    }
    if (!isLoggingLevel(level)) throw new TypeError(`Unknown logging level ${JSON.stringify(level)}`);
    this.#modern.channel.logLevel = level;
  }

  /**
   * Every tool of the server (all pages). Handshake era: cached until the server says the list changed.
   * Stateless era: each page is reused while its `ttlMs` says it is fresh; tools with invalid
   * `x-mcp-header` declarations are left out (with a warning).
   */
  async listTools(options: { refresh?: boolean } & RequestOptions = {}): Promise<readonly Tool[]> {
    this.#requireConnected();
    const { refresh, ...requestOptions } = options;
    if (refresh) {
      this.#tools.invalidate();
      this.#modern?.cache.invalidate('tools/list');
    }
    const fetchPage = (cursor: string | undefined) =>
      this.#request('tools/list', cursor === undefined ? {} : { cursor }, requestOptions);
    if (!this.#modern) return this.#tools.load(fetchPage);
    return this.#tools.load(fetchPage, { memoize: false, filter: (tool) => this.#validHeaders(tool) });
  }

  /**
   * Calls `listener` with the fresh list whenever the server's tools change (in the stateless era through
   * a `subscriptions/listen` stream, opened while there are listeners). Returns an unsubscribe.
   */
  onToolsChanged(listener: (tools: readonly Tool[]) => void): () => void {
    return this.#listenTo(this.#toolListeners, listener);
  }

  /**
   * Calls a tool. Tool failures come back as `isError` results; protocol failures throw ProtocolError;
   * timeouts, cancellation and output that breaks the tool's outputSchema throw ClientError / ToolwireError.
   * In the stateless era, `input_required` rounds are answered through the handlers (options apply to the
   * whole exchange).
   */
  async callTool(
    name: string,
    args: JsonObject = {},
    options: CallToolOptions = {},
  ): Promise<CallToolResult> {
    if (!this.#gate) return this.#callTool(name, args, options);
    const tool = async (): Promise<Tool> =>
      this.#tools.get(name) ??
      (await this.listTools()).find((t) => t.name === name) ?? { name, inputSchema: { type: 'object' } };
    const context = { server: this.serverInfo, tool };
    return this.#gate.run(name, args, context, () => this.#callTool(name, args, options));
  }

  async #callTool(name: string, args: JsonObject, options: CallToolOptions): Promise<CallToolResult> {
    const raw = await this.#request('tools/call', { name, arguments: args }, options);
    if (!Array.isArray(raw.content)) {
      throw new ClientError(
        LocalErrorCode.InvalidResult,
        `tools/call ${name} returned a result without a content array`,
        { details: { result: raw } },
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

  /** Reads a resource. An unknown URI rejects with ProtocolError -32002 (-32602 in the stateless era). */
  readResource(uri: string, options?: ExchangeOptions): Promise<ReadResourceResult> {
    return readResource(this.#send, uri, options);
  }

  /**
   * Asks for `notifications/resources/updated` about `uri` (see `onResourceUpdated`): `resources/subscribe`
   * in the handshake era; in the stateless era the URI joins the `subscriptions/listen` stream (resolves once
   * the server acknowledged it).
   */
  async subscribeResource(uri: string, options?: RequestOptions): Promise<void> {
    this.#requireConnected();
    if (!this.#modern) {
      await this.#request('resources/subscribe', { uri }, options);
      return;
    }
    this.#subscribedUris.add(uri);
    await this.#updateListen();
  }

  async unsubscribeResource(uri: string, options?: RequestOptions): Promise<void> {
    this.#requireConnected();
    if (!this.#modern) {
      await this.#request('resources/unsubscribe', { uri }, options);
      return;
    }
    this.#subscribedUris.delete(uri);
    await this.#updateListen();
  }

  /** Calls `listener` with the URI of each subscribed resource that changed. Returns an unsubscribe. */
  onResourceUpdated(listener: (uri: string) => void): () => void {
    return this.#listenTo(this.#resourceUpdatedListeners, listener);
  }

  /** Calls `listener` when the server says its resources or templates changed. Returns an unsubscribe. */
  onResourceListChanged(listener: () => void): () => void {
    return this.#listenTo(this.#resourceListListeners, listener);
  }

  /** Every prompt of the server (all pages). */
  listPrompts(options?: RequestOptions): Promise<Prompt[]> {
    return listPrompts(this.#send, this.#maxPages, options);
  }

  /** Gets a prompt. An unknown prompt or a missing required argument rejects with ProtocolError -32602. */
  getPrompt(
    name: string,
    args: Record<string, string> = {},
    options?: ExchangeOptions,
  ): Promise<GetPromptResult> {
    return getPrompt(this.#send, name, args, options);
  }

  /**
   * Skills extension (needs `{ skills: true }`): every entry of `skills/list`. Reads no skill file. Throws
   * ClientError CAPABILITY_NOT_SUPPORTED when the client or the server does not declare the extension.
   */
  listSkills(options?: RequestOptions): Promise<SkillEntry[]> {
    return this.#skills.list(options);
  }

  /**
   * Skills extension: reads every file of a skill (an entry, or its URI from `skills/list`) with
   * `resources/read`, SKILL.md first, verifying sizes, digests and the frontmatter; the first mismatch
   * throws ClientError INVALID_RESULT (`details: { skill, uri, check, expected, actual }`).
   */
  loadSkill(skill: string | SkillEntry, options?: RequestOptions): Promise<LoadedSkill> {
    return this.#skills.load(skill, options);
  }

  /** Calls `listener` when the server says its prompts changed. Returns an unsubscribe. */
  onPromptListChanged(listener: () => void): () => void {
    return this.#listenTo(this.#promptListListeners, listener);
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
    const profile = profileFor(this.protocolVersion as Revision);
    return complete(this.#send, profile, ref, argument, context, options);
  }

  /**
   * Tells the server the roots changed (after the `roots` option's answer changed). Handshake era only: in
   * the stateless era the server asks for the roots with each request that needs them, so nothing is sent.
   */
  async sendRootsListChanged(): Promise<void> {
    if (this.#modern) return;
    await this.#peer.notify('notifications/roots/list_changed');
  }

  #requireConnected(): void {
    if (!this.#server || this.#peer.closed) {
      throw new ClientError(LocalErrorCode.NotConnected, 'The client is not connected');
    }
  }

  #request(
    method: string,
    params: JsonObject | undefined,
    options: ExchangeOptions = {},
  ): Promise<JsonObject> {
    try {
      this.#requireConnected();
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    if (!this.#modern) return this.#peer.request(method, params, options);
    return this.#modern.request(method, params ?? {}, options);
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

  #listenTo<T>(listeners: Set<T>, listener: T): () => void {
    listeners.add(listener);
    void this.#updateListen();
    return () => {
      listeners.delete(listener);
      void this.#updateListen();
    };
  }

  /** Stateless era: listens for what the listeners and subscriptions want (errors go to `onError`). */
  #updateListen(): Promise<void> {
    if (!this.#modern || this.#peer.closed) return Promise.resolve();
    return this.#listen.update({
      toolsListChanged: this.#toolListeners.size > 0,
      promptsListChanged: this.#promptListListeners.size > 0,
      resourcesListChanged: this.#resourceListListeners.size > 0,
      resourceSubscriptions: [...this.#subscribedUris],
    });
  }

  #bind(): void {
    const peer = this.#peer;
    const options = this.#options;
    const report = (error: unknown) =>
      options.onError?.(error instanceof Error ? error : new Error(String(error)));
    bindServerRequests(peer, options);
    peer.setNotificationHandler('notifications/tools/list_changed', () => {
      this.#tools.invalidate();
      this.#modern?.cache.invalidate('tools/list');
      if (this.#toolListeners.size === 0) return;
      this.listTools().then((tools) => this.#toolListeners.forEach((listener) => listener(tools)), report);
    });
    peer.setNotificationHandler('notifications/resources/updated', (params) => {
      const uri = params.uri;
      if (typeof uri !== 'string') return;
      this.#modern?.cache.invalidate('resources/read', (read) => read.uri === uri);
      this.#resourceUpdatedListeners.forEach((listener) => listener(uri));
    });
    peer.setNotificationHandler('notifications/resources/list_changed', () => {
      this.#modern?.cache.invalidate('resources/list');
      this.#modern?.cache.invalidate('resources/templates/list');
      this.#resourceListListeners.forEach((listener) => listener());
    });
    peer.setNotificationHandler('notifications/prompts/list_changed', () => {
      this.#modern?.cache.invalidate('prompts/list');
      this.#promptListListeners.forEach((listener) => listener());
    });
    peer.setNotificationHandler('notifications/subscriptions/acknowledged', (params) =>
      this.#listen.acknowledge(params),
    );
    peer.setNotificationHandler('notifications/message', (params) => {
      options.onLog?.(params as unknown as LoggingMessageParams);
    });
  }
}
