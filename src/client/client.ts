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
import { asError } from '../protocol/errors.js';
import type { RequestOptions } from '../protocol/engine/peer.js';
import type { JsonObject } from '../protocol/jsonrpc.js';
import { profileFor, type Revision } from '../protocol/revisions/index.js';
import type { Transport } from '../protocol/transport.js';
import {
  type Implementation,
  type LoggingLevel,
  type ServerCapabilities,
} from '../protocol/types/lifecycle.js';
import type {
  CompleteResult,
  CompletionReference,
  GetPromptResult,
  Prompt,
} from '../protocol/types/prompts.js';
import type { ReadResourceResult, Resource, ResourceTemplate } from '../protocol/types/resources.js';
import type { TaskInfo } from '../protocol/types/tasks.js';
import type { CallToolResult, Tool } from '../protocol/types/tools.js';
import { ClientConnection } from './client-connection.js';
import { ClientEvents } from './client-events.js';
import { bindServerRequests } from './bind-server-requests.js';
import type { CallToolOptions } from './call-tool-options.js';
import type { ClientOptions } from './client-options.js';
import { ClientTools } from './client-tools.js';
import type { ExchangeOptions, Requester } from './exchange-options.js';
import type { ClientLink } from './links/client-link.js';
import { listLimits, type ListLimits, type Paging } from './follow-pages.js';
import { LinkChain } from './links/link-chain.js';
import { ListenStream, type SubscriptionFilter } from './stateless/listen-stream.js';
import { complete, getPrompt, listPrompts } from './client-prompts.js';
import { listResourceTemplates, listResources, readResource } from './client-resources.js';
import type { SkillEntry } from '../protocol/skills/skill-entry.js';
import type { LoadedSkill } from './skills/loaded-skill.js';
import { Skills, withSkillsExtension } from './skills/skills.js';
import { ClientTasks } from './tasks/client-tasks.js';
import { UrlElicitations } from './url-elicitations.js';
import type { RequestMetaOptions } from './request-meta-options.js';
import { TASK_HANDLE, ToolTask } from './tasks/tool-task.js';

export type { CallToolOptions } from './call-tool-options.js';
export type { RequestMetaOptions } from './request-meta-options.js';
export type { ClientOptions } from './client-options.js';

export class Client {
  readonly info: Implementation;
  readonly #options: ClientOptions;
  readonly #connection: ClientConnection;
  readonly #tools: ClientTools;
  readonly #listen: ListenStream;
  readonly #events: ClientEvents;
  readonly #listLimits: ListLimits;
  readonly #links: LinkChain;
  readonly #send: Requester = (method, params, options) => this.#connection.request(method, params, options);
  readonly #skills: Skills;
  readonly #tasks: ClientTasks;
  readonly #urlElicitations = new UrlElicitations();

  constructor(info: Implementation, options: ClientOptions = {}) {
    this.info = { ...info };
    this.#options = options.skills
      ? { ...options, capabilities: withSkillsExtension(options.capabilities) }
      : options;
    this.#listLimits = listLimits(options);
    this.#links = new LinkChain(options.links);
    const connection = (this.#connection = new ClientConnection(options, this.#links));
    this.#tasks = new ClientTasks(
      {
        request: this.#send,
        handlers: options,
        era: () => this.era,
        protocolVersion: () => this.protocolVersion,
        serverCapabilities: () => this.serverCapabilities,
        listLimits: this.#listLimits,
        listenToTask: (taskId, listening) => this.#events.listenToTask(taskId, listening),
        closed: connection.closed,
      },
      connection.peer,
    );
    this.#tools = new ClientTools(
      {
        request: this.#send,
        channel: () => connection.channel,
        serverInfo: () => this.serverInfo,
        tasks: this.#tasks,
        urlElicitations: this.#urlElicitations,
      },
      { ...options, onError: connection.reports.report },
      this.#links,
      this.#listLimits,
    );
    this.#listen = new ListenStream(
      (params, opts) => connection.listen(params, opts),
      connection.reports.report,
    );
    bindServerRequests(
      connection.peer,
      this.#options,
      () => connection.protocolVersion,
      connection.questions,
      connection.own,
      this.#urlElicitations,
    );
    this.#events = new ClientEvents(connection.peer, this.#listen, {
      connection,
      send: this.#send,
      listTools: () => this.listTools(),
      toolsChanged: () => this.#tools.invalidate(),
      onLog: options.onLog,
      urlElicitations: this.#urlElicitations,
      onElicitationComplete: options.onElicitationComplete,
      report: connection.reports.report,
    });
    this.#skills = new Skills(this.#send, {
      enabled: options.skills === true,
      listLimits: this.#listLimits,
      serverCapabilities: () => this.#connection.server?.capabilities,
      emptyCursorEnds: () => this.#connection.channel?.emptyCursorEnds ?? true,
    });
  }

  /**
   * Adds a link (middleware around requests and/or tool calls; see `ClientLink`) after those already
   * there. It applies to calls started from now on. Returns the client.
   */
  use(link: ClientLink): this {
    this.#links.add(link);
    return this;
  }

  /** The era spoken with the server, once connected. */
  get era(): 'handshake' | 'stateless' | undefined {
    return this.#connection.channel?.era;
  }

  /** The revision in use: negotiated by `initialize`, or chosen from `server/discover`. */
  get protocolVersion(): string | undefined {
    return this.#connection.protocolVersion;
  }

  /** From the initialize result; in the stateless era from `server/discover`, then each result's `_meta`. */
  get serverInfo(): Implementation | undefined {
    return this.#connection.serverInfo;
  }

  get serverCapabilities(): ServerCapabilities | undefined {
    return this.#connection.server?.capabilities;
  }

  get instructions(): string | undefined {
    return this.#connection.server?.instructions;
  }

  /** Stateless era: what the server agreed to send on the `subscriptions/listen` stream (once it did). */
  get subscriptions(): SubscriptionFilter | undefined {
    return this.#listen.acknowledged;
  }

  set onclose(listener: (() => void) | undefined) {
    this.#connection.peer.onclose = listener;
  }

  /**
   * Connects and meets the server in the era `protocolVersion` says (see ClientOptions). `timeout` bounds
   * `initialize`; the probe has `discoverTimeout`. Throws ClientError UNSUPPORTED_PROTOCOL_VERSION on a
   * version the client does not speak, and closes the connection on any failure.
   */
  async connect(transport: Transport, options: { timeout?: number } = {}): Promise<void> {
    await this.#connection.connect(transport, this.#listen, this.info, this.#options, options.timeout);
    if (this.#connection.channel?.era === 'stateless') void this.#events.update();
  }

  async close(): Promise<void> {
    this.#listen.close();
    await this.#connection.peer.close();
    this.#connection.reports.close();
  }

  /** Pings the server (handshake era; the stateless era has no ping: ClientError CAPABILITY_NOT_SUPPORTED). */
  ping(options?: RequestOptions): Promise<void> {
    return this.#connection.ping(options);
  }

  /**
   * Handshake era: `logging/setLevel`. Stateless era: no request; the level goes in the `_meta` of every
   * request from now on (without one, the server sends no log messages).
   */
  setLoggingLevel(level: LoggingLevel): Promise<void> {
    return this.#connection.setLoggingLevel(level);
  }

  /**
   * Every tool of the server (all pages). Handshake era: cached until the server says the list changed.
   * Stateless era: each page is reused while its `ttlMs` says it is fresh; tools with invalid
   * `x-mcp-header` declarations are left out (with a warning).
   */
  async listTools(options: { refresh?: boolean } & RequestOptions = {}): Promise<readonly Tool[]> {
    this.#connection.requireConnected();
    return this.#tools.list(options);
  }

  /**
   * Calls `listener` with the fresh list whenever the server's tools change (in the stateless era through
   * a `subscriptions/listen` stream, opened while there are listeners). Returns an unsubscribe.
   */
  onToolsChanged(listener: (tools: readonly Tool[]) => void): () => void {
    return this.#events.listenTo(this.#events.tools, listener);
  }

  /**
   * Calls a tool. Tool failures come back as `isError` results; protocol failures throw ProtocolError;
   * timeouts, cancellation and output that breaks the tool's outputSchema throw ClientError / ToolwireError.
   * In the stateless era, `input_required` rounds are answered through the handlers (options apply to the
   * whole exchange).
   */
  callTool(name: string, args: JsonObject = {}, options: CallToolOptions = {}): Promise<CallToolResult> {
    // Not async (no extra promise per call): the chain returns a promise, and rejects rather than throws.
    try {
      return this.#tools.call(name, args, options);
    } catch (error) {
      return Promise.reject(asError(error));
    }
  }

  /**
   * Calls a tool as a task, where the server and the tool support tasks (2025-11-25: the server's
   * `tasks.requests.tools.call` and the tool's `execution.taskSupport`; 2026-07-28: the
   * `io.modelcontextprotocol/tasks` extension, where the server decides). Resolves once the task exists
   * with its handle (`taskId`, `status`, `onStatus`, `statuses()`, `result()`, `cancel()`); the client
   * follows the task until it ends. Where no task can be created (or the server answered at once) the
   * handle has no `taskId` and its `result()` is the call's. Rejects as `callTool` when the call fails
   * before a task exists (approval denied, a protocol error). `task` defaults to `true`.
   */
  async callToolAsTask(
    name: string,
    args: JsonObject = {},
    options: CallToolOptions = {},
  ): Promise<ToolTask> {
    let settle: (outcome: Promise<CallToolResult>) => void = () => undefined;
    const outcome = new Promise<CallToolResult>((resolve) => (settle = resolve));
    const handle = new ToolTask(name, outcome);
    settle(this.#tools.call(name, args, { task: true, ...options, [TASK_HANDLE]: handle }));
    await Promise.race([handle.whenStarted, outcome]);
    return handle;
  }

  /** A task's current status (either form). ClientError CAPABILITY_NOT_SUPPORTED when the server has no tasks. */
  getTask(taskId: string, options?: ExchangeOptions): Promise<TaskInfo> {
    this.#connection.requireConnected();
    return this.#tasks.get(taskId, options);
  }

  /** Asks the server to cancel a task (`tasks/cancel`). */
  cancelTask(taskId: string, options?: ExchangeOptions): Promise<void> {
    this.#connection.requireConnected();
    return this.#tasks.cancel(taskId, undefined, options);
  }

  /**
   * 2025-11-25: the caller's tasks, every page of `tasks/list` (the 2026-07-28 extension has no listing:
   * ClientError CAPABILITY_NOT_SUPPORTED).
   */
  listTasks(options?: ExchangeOptions): Promise<TaskInfo[]> {
    this.#connection.requireConnected();
    return this.#tasks.list(options);
  }

  /**
   * A task's tool result once it ends (followed until then: `tasks/result` in 2025-11-25, `tasks/get` in
   * 2026-07-28), checked like `callTool`'s (without the output schema); rejects as the call would have.
   */
  async taskResult(taskId: string, options?: ExchangeOptions): Promise<CallToolResult> {
    this.#connection.requireConnected();
    return this.#tools.check(taskId, await this.#tasks.result(taskId, options));
  }

  /** Every resource of the server (all pages). */
  listResources(options?: RequestOptions): Promise<Resource[]> {
    return listResources(this.#send, this.#paging(), options);
  }

  /** Every resource template of the server (all pages). */
  listResourceTemplates(options?: RequestOptions): Promise<ResourceTemplate[]> {
    return listResourceTemplates(this.#send, this.#paging(), options);
  }

  /**
   * Reads a resource. An unknown URI rejects with ProtocolError -32002 (-32602 in the stateless era).
   * `meta` is the request's `_meta`, as `callTool`'s.
   */
  readResource(uri: string, options?: RequestMetaOptions): Promise<ReadResourceResult> {
    return readResource(this.#send, uri, options).catch(this.#sawError);
  }

  /**
   * Asks for `notifications/resources/updated` about `uri` (see `onResourceUpdated`): `resources/subscribe`
   * in the handshake era; in the stateless era the URI joins the `subscriptions/listen` stream (resolves once
   * the server acknowledged it).
   */
  subscribeResource(uri: string, options?: RequestOptions): Promise<void> {
    return this.#events.subscribe(uri, options);
  }

  unsubscribeResource(uri: string, options?: RequestOptions): Promise<void> {
    return this.#events.unsubscribe(uri, options);
  }

  /** Calls `listener` with the URI of each subscribed resource that changed. Returns an unsubscribe. */
  onResourceUpdated(listener: (uri: string) => void): () => void {
    return this.#events.listenTo(this.#events.resourceUpdated, listener);
  }

  /** Calls `listener` when the server says its resources or templates changed. Returns an unsubscribe. */
  onResourceListChanged(listener: () => void): () => void {
    return this.#events.listenTo(this.#events.resourceList, listener);
  }

  /** How lists are paged: the limits, and whether `nextCursor: ""` ends one (the handshake era's reading). */
  #paging(): Paging {
    return { limits: this.#listLimits, emptyCursorEnds: this.#connection.channel?.emptyCursorEnds ?? true };
  }

  /** Every prompt of the server (all pages). */
  listPrompts(options?: RequestOptions): Promise<Prompt[]> {
    return listPrompts(this.#send, this.#paging(), options);
  }

  /**
   * Gets a prompt. An unknown prompt or a missing required argument rejects with ProtocolError -32602.
   * `meta` is the request's `_meta`, as `callTool`'s.
   */
  getPrompt(
    name: string,
    args: Record<string, string> = {},
    options?: RequestMetaOptions,
  ): Promise<GetPromptResult> {
    return getPrompt(this.#send, name, args, options).catch(this.#sawError);
  }

  /** A request failed: the ids of its -32042's elicitations may complete later (any request may send one). */
  readonly #sawError = (error: unknown): never => {
    this.#urlElicitations.sawError(error);
    throw error;
  };

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
    return this.#events.listenTo(this.#events.promptList, listener);
  }

  /**
   * Asks for values of a prompt argument (`{ type: 'ref/prompt', name }`) or a resource-template
   * variable (`{ type: 'ref/resource', uri: uriTemplate }`). `context` holds the values already chosen for
   * the other arguments (sent to 2025-06-18 and later servers only). `meta` is the request's `_meta`, as
   * `callTool`'s.
   */
  async complete(
    ref: CompletionReference,
    argument: { name: string; value: string },
    context?: Record<string, string>,
    options?: RequestMetaOptions,
  ): Promise<CompleteResult['completion']> {
    this.#connection.requireConnected();
    const profile = profileFor(this.protocolVersion as Revision);
    return complete(this.#send, profile, ref, argument, context, options);
  }

  /**
   * Tells the server the roots changed (after the `roots` option's answer changed). Handshake era only: in
   * the stateless era the server asks for the roots with each request that needs them, so nothing is sent.
   */
  async sendRootsListChanged(): Promise<void> {
    await this.#connection.channel?.rootsListChanged();
  }
}
