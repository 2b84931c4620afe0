/**
 * The server's internals: the registries, the handler table every session dispatches through, the
 * features, the sessions, the cached pages, and what transports sharing sessions across processes need.
 * The public `Server` holds one and exposes only what the README documents; the rest of the package
 * reaches it with `serverCore(server)`.
 * @module
 */
import { isJsonObject, type JsonObject } from '../protocol/jsonrpc.js';
import { ALL_REVISIONS, isHandshakeRevision, type Revision } from '../protocol/revisions/index.js';
import type { Transport } from '../protocol/transport.js';
import type { Implementation, ServerCapabilities } from '../protocol/types/lifecycle.js';
import { checkCacheHint, type CacheHint } from '../protocol/types/stateless.js';
import type { SchemaInput } from '../schema/index.js';
import { AccessControl } from './auth/access-control.js';
import type { Principal } from './auth/principal.js';
import { CompletionsFeature } from './completions/completions-feature.js';
import type { PromptDefinition, PromptGetter, PromptSpec } from './prompts/prompt-definition.js';
import { PromptsFeature } from './prompts/prompts-feature.js';
import { ListChanged, type FeatureHost } from './list-changed.js';
import type { ToolMiddleware } from './middleware/middleware.js';
import {
  RequestChain,
  type RequestMiddleware,
  type RequestMiddlewareOptions,
} from './middleware/request-chain.js';
import { ToolChain } from './middleware/tool-chain.js';
import type {
  ResourceDefinition,
  ResourceReader,
  ResourceSpec,
  ResourceTemplateDefinition,
  ResourceTemplateReader,
  ResourceTemplateSpec,
} from './resources/resource-definition.js';
import { ResourcesFeature } from './resources/resources-feature.js';
import type { SkillDefinition } from './skills/skill-definition.js';
import { SkillsFeature } from './skills/skills-feature.js';
import { Registry, type RegistryHandle } from './registry.js';
import type { ServerCore, ServerOptions } from './server-core.js';
import type { ServerFeature } from './server-feature.js';
import { ServerSession } from './server-session.js';
import { installHandshake } from './handshake.js';
import { installSessionHandlers } from './session-handlers.js';
import { HandlerTable } from './handler-table.js';
import { ToolsFeature } from './tools/tools-feature.js';
import { Subscriptions } from './subscriptions/subscriptions.js';
import { TasksFeature } from './tasks/tasks-feature.js';
import type { SessionState as SharedSessionState } from '../stores/session-store.js';
import {
  buildTool,
  type RegisteredTool,
  type ToolDefinition,
  type ToolHandler,
  type ToolSpec,
} from './tools/tool-definition.js';
import { ToolPages } from './tools/tool-pages.js';
import { FinishedResults } from './finished-results.js';
import { requestStateCodec, type RequestStateCodec } from './input-required/request-state.js';

/** A tool's handle (see `RegistryHandle`). */
export interface ToolHandle extends RegistryHandle<ToolSpec> {
  /**
   * Takes the tool out of every list. Without a reason a call of it is answered as a call of a tool that
   * does not exist (-32602). With one, the tool is away for a while (its backend down, maintenance): a
   * call is answered with an `isError` result whose text is `reason`, and no handler or middleware runs.
   * Calling it again with another reason changes only the answer; `enable()` forgets the reason.
   */
  disable(reason?: string): void;
}

export interface ConnectOptions {
  /** Who the connection's requests come from (default: anonymous). */
  principal?: Principal;
}
/** A resource's handle; its `name` is the resource's URI. */
export type ResourceHandle = RegistryHandle<ResourceSpec>;
/** A resource template's handle; its `name` is the URI template. */
export type ResourceTemplateHandle = RegistryHandle<ResourceTemplateSpec>;
export type PromptHandle = RegistryHandle<PromptSpec>;
/** A skill's handle; its `name` is the skill path. */
export type SkillHandle = RegistryHandle<SkillDefinition>;

export class ServerRuntime implements ServerCore {
  readonly info: Implementation;
  readonly options: ServerOptions;
  /** @internal The protocol revisions this server speaks (`options.versions`, else all). */
  readonly versions: readonly Revision[];
  /** @internal Access control (the tools a principal may see and call). */
  readonly access: AccessControl;
  /** @internal The request middleware chain (`useRequest` adds to it). */
  readonly requests = new RequestChain();
  /** @internal The handler table every session dispatches through. */
  readonly handlers = new HandlerTable();
  /** @internal The tool registry (`tool()` adds to it). */
  readonly tools = new Registry<ToolSpec, RegisteredTool>('tool', (name, spec) =>
    buildTool(name, spec, this.#chain),
  );
  /** @internal The `tools/list` pages, built once per registry change and revision. */
  readonly toolPages: ToolPages;
  /** @internal Finished list pages kept as JSON text. */
  readonly finished: FinishedResults;
  readonly #sessions = new Set<ServerSession>();
  readonly #shutdown = new AbortController();
  readonly #chain: ToolChain;
  readonly #listChanged: ListChanged;
  readonly #subscriptions = new Subscriptions(() => this.capabilities);
  readonly features: ServerFeature[] = [new ToolsFeature(this), this.#subscriptions];
  #resources: ResourcesFeature | undefined;
  #prompts: PromptsFeature | undefined;
  #completions: CompletionsFeature | undefined;
  #skills: SkillsFeature | undefined;
  #tasks: TasksFeature | undefined;
  readonly #listChangedListeners = new Set<(method: string) => void>();
  readonly #resourceListeners = new Set<(uri: string) => void>();
  readonly #taskListeners = new Set<(task: JsonObject) => void>();

  constructor(info: Implementation, options: ServerOptions = {}) {
    checkCacheHint(options.cache);
    this.info = { ...info };
    this.options = {
      ...options,
      onToolBug: options.onToolBug ?? bugOnStderr,
      onPromptBug: options.onPromptBug ?? bugOnStderr,
      onResourceBug: options.onResourceBug ?? bugOnStderr,
    };
    this.#chain = new ToolChain(options);
    installHandshake(this.handlers, this);
    installSessionHandlers(this.handlers, this);
    for (const feature of this.features) feature.install(this.handlers);
    this.versions = options.versions?.length ? options.versions : ALL_REVISIONS;
    this.access = new AccessControl(options.accessPolicy);
    this.toolPages = new ToolPages(options.pageSize ?? 100);
    this.finished = new FinishedResults(this.info);
    this.#listChanged = new ListChanged(
      'notifications/tools/list_changed',
      () => this.tools.version,
      this.#featureHost(),
    );
    this.tools.onChange(() => this.#listChanged.changed());
    if (options.tasks) this.#addFeature(this.#tasksFeature());
    // A tool declared for tasks turns the extension on (the changed tool is looked at, not the whole list:
    // registering n tools was n² steps, 20,000 of them behind a gateway minutes).
    this.tools.onChange((tool, listed) => {
      if (!this.#tasks && listed && tool.task) this.#addFeature(this.#tasksFeature());
    });
  }

  /**
   * Stateless era: the cache hint of list and read results. Unless set, `cacheScope` is `private` once
   * tool lists vary by caller (a tool declares `access`, or there is an `accessPolicy`).
   */
  get cache(): CacheHint {
    const scope =
      this.options.cache?.cacheScope ??
      (this.access.restricts(this.tools.list(), this.tools.version) ? 'private' : 'public');
    return { ttlMs: this.options.cache?.ttlMs ?? 0, cacheScope: scope };
  }

  /** @internal Stateless era: the codec of `requestState`. */
  get requestStateCodec(): RequestStateCodec {
    return requestStateCodec(this.options);
  }

  get capabilities(): ServerCapabilities {
    const caps: ServerCapabilities = { logging: {} };
    for (const feature of this.features) {
      const { extensions, ...rest } = feature.capabilities();
      Object.assign(caps, rest);
      if (isJsonObject(extensions)) {
        caps.extensions = { ...(isJsonObject(caps.extensions) ? caps.extensions : {}), ...extensions };
      }
    }
    return caps;
  }

  /** Tasks (both forms), once configured or a tool declared for tasks is registered. */
  get tasks(): TasksFeature | undefined {
    return this.#tasks;
  }

  get shutdownSignal(): AbortSignal {
    return this.#shutdown.signal;
  }

  /** Live sessions (one per connected transport). */
  get sessions(): ReadonlySet<ServerSession> {
    return this.#sessions;
  }

  /** Open `subscriptions/listen` streams (2026-07-28), across every session. */
  get subscriptionCount(): number {
    return this.#subscriptions.open.size;
  }

  /** See `Server.tool`. */
  tool<I extends SchemaInput | undefined = undefined, O extends SchemaInput | undefined = undefined>(
    name: string,
    definition: ToolDefinition<I, O>,
    handler: ToolHandler<I, O>,
  ): ToolHandle {
    return this.tools.register(name, { ...definition, handler } as unknown as ToolSpec);
  }

  /** See `Server.use`. */
  use(middleware: ToolMiddleware): this {
    this.#chain.use(middleware);
    return this;
  }

  /** See `Server.useRequest`. */
  useRequest(middleware: RequestMiddleware, options?: RequestMiddlewareOptions): this {
    this.requests.use(middleware, options);
    return this;
  }

  /** See `Server.resource`. */
  resource(uri: string, definition: ResourceDefinition, read: ResourceReader): ResourceHandle {
    const feature = (this.#resources ??= new ResourcesFeature(this.#featureHost()));
    const handle = feature.resources.register(uri, { ...definition, read });
    this.#addFeature(feature);
    return handle;
  }

  /** See `Server.resourceTemplate`. */
  resourceTemplate(
    uriTemplate: string,
    definition: ResourceTemplateDefinition,
    read: ResourceTemplateReader,
  ): ResourceTemplateHandle {
    const feature = (this.#resources ??= new ResourcesFeature(this.#featureHost()));
    const handle = feature.templates.register(uriTemplate, { ...definition, read });
    this.#addFeature(feature);
    this.#addFeature(this.#completionsFeature());
    return handle;
  }

  /** See `Server.prompt`. */
  prompt(name: string, definition: PromptDefinition, get: PromptGetter): PromptHandle {
    const feature = (this.#prompts ??= new PromptsFeature(this.#featureHost()));
    const handle = feature.prompts.register(name, { ...definition, get });
    this.#addFeature(feature);
    this.#addFeature(this.#completionsFeature());
    return handle;
  }

  /** See `Server.skill`. */
  skill(path: string, definition: SkillDefinition): SkillHandle {
    const resources = (this.#resources ??= new ResourcesFeature(this.#featureHost()));
    const feature = (this.#skills ??= new SkillsFeature(resources, this.options.pageSize ?? 100));
    const handle = feature.register(path, definition);
    this.#addFeature(resources);
    this.#addFeature(feature);
    return handle;
  }

  /** See `Server.notifyResourceUpdated`. */
  async notifyResourceUpdated(uri: string): Promise<void> {
    for (const listener of this.#resourceListeners) listener(uri);
    await this.#resources?.notifyUpdated(uri);
  }

  /**
   * @internal Calls `listener` with the URI of each `notifyResourceUpdated`: a transport sharing sessions
   * tells the other processes. Returns the function that stops it.
   */
  onResourceUpdated(listener: (uri: string) => void): () => void {
    this.#resourceListeners.add(listener);
    return () => this.#resourceListeners.delete(listener);
  }

  /**
   * @internal Calls `listener` with each `notifications/tasks` this process sends (an extension task's
   * `DetailedTask`): a transport sharing sessions tells the other processes. Returns the function that
   * stops it.
   */
  onTaskChanged(listener: (task: JsonObject) => void): () => void {
    this.#taskListeners.add(listener);
    return () => this.#taskListeners.delete(listener);
  }

  readonly #taskChanged = (task: JsonObject): void => {
    for (const listener of this.#taskListeners) listener(task);
  };

  /**
   * @internal Another process's `list_changed`, `notifications/resources/updated` or `notifications/tasks` (a transport sharing
   * sessions hears it on its bus): sent on this process's open `subscriptions/listen` streams that asked
   * for it, once each. The process that made the change sends on its own streams itself.
   */
  async relayToListeners(method: string, params: JsonObject = {}): Promise<void> {
    const uri = method === 'notifications/resources/updated' ? params.uri : undefined;
    const taskId = method === 'notifications/tasks' ? params.taskId : undefined;
    const sends: Promise<void>[] = [];
    for (const subscription of this.#subscriptions.open) {
      const wanted =
        typeof uri === 'string'
          ? subscription.watches(uri)
          : typeof taskId === 'string'
            ? subscription.watchesTask(taskId)
            : subscription.wantsListChanged(method);
      if (wanted) sends.push(subscription.notify(method, params));
    }
    await Promise.all(sends);
  }

  /** @internal Whether a session subscribed to `uri` (`resources/subscribe`). */
  subscribed(session: ServerSession, uri: string): boolean {
    return this.#resources?.subscriptionsOf(session).includes(uri) ?? false;
  }

  #featureHost(): FeatureHost {
    return {
      pageSize: this.options.pageSize ?? 100,
      listChangedDebounceMs: this.options.listChangedDebounceMs ?? 10,
      onPromptBug: this.options.onPromptBug,
      onResourceBug: this.options.onResourceBug,
      sessions: () => this.#sessions,
      subscriptions: () => this.#subscriptions.open,
      listChanged: (method) => {
        for (const listener of this.#listChangedListeners) listener(method);
      },
    };
  }

  /**
   * @internal Calls `listener` with the `list_changed` notification each registry change owes (tools,
   * resources, prompts), at the change: a transport sharing sessions tells the other processes. Returns
   * the function that stops it.
   */
  onListChanged(listener: (method: string) => void): () => void {
    this.#listChangedListeners.add(listener);
    return () => this.#listChangedListeners.delete(listener);
  }

  #completionsFeature(): CompletionsFeature {
    return (this.#completions ??= new CompletionsFeature({
      prompt: (name) => this.#prompts?.prompts.get(name),
      template: (uriTemplate) => this.#resources?.templates.get(uriTemplate),
      hasResource: (uri) => this.#resources?.resources.get(uri) !== undefined,
    }));
  }

  #tasksFeature(): TasksFeature {
    if (this.#tasks) return this.#tasks;
    const tasks = new TasksFeature(this.options.tasks ?? {}, {
      shutdownSignal: this.#shutdown.signal,
      pageSize: this.options.pageSize ?? 100,
      onError: this.options.onError,
      listeners: () => this.#subscriptions.open,
      changed: () => (this.#taskListeners.size === 0 ? undefined : this.#taskChanged),
    });
    this.#subscriptions.useTasks((taskIds, scope) => tasks.visible(taskIds, scope));
    return (this.#tasks = tasks);
  }

  /** Adds a feature once; sessions already connected get its handlers too. */
  #addFeature(feature: ServerFeature): void {
    if (this.features.includes(feature)) return;
    this.features.push(feature);
    feature.install(this.handlers);
    for (const session of this.#sessions) feature.bind?.(session);
  }

  /** A session closed (one function for every session: none of its own per session). */
  readonly #sessionClosed = (closed: ServerSession): void => void this.#sessions.delete(closed);

  /** See `Server.connect`. */
  async connect(transport: Transport, options: ConnectOptions = {}): Promise<ServerSession> {
    const session = new ServerSession(this, this.#sessionClosed);
    if (options.principal) session.authenticate(options.principal);
    this.#sessions.add(session);
    this.#listChanged.bind(session);
    await session.connect(transport);
    return session;
  }

  /**
   * @internal What a shared session record keeps of a handshake-era session: its revision, the client's
   * info and capabilities, its log level and resource subscriptions.
   */
  sessionState(session: ServerSession): SharedSessionState {
    const { info, capabilities } = session.client;
    const subscriptions = this.#resources?.subscriptionsOf(session) ?? [];
    return {
      protocolVersion: session.protocolVersion,
      clientInfo: info,
      clientCapabilities: capabilities,
      logLevel: session.logLevel,
      subscriptions: subscriptions.length > 0 ? subscriptions : undefined,
    };
  }

  /** @internal Takes up a session from its shared record (see `sessionState`); false for a revision not served. */
  resumeSession(session: ServerSession, state: SharedSessionState): boolean {
    const version = state.protocolVersion;
    if (!isHandshakeRevision(version) || !this.versions.includes(version)) return false;
    session.resume({ ...state, version });
    this.#resources?.subscribe(session, state.subscriptions ?? []);
    return true;
  }

  /** See `Server.close`. */
  async close(options: { graceMs?: number } = {}): Promise<void> {
    this.#listChanged.cancel();
    this.#resources?.close();
    this.#prompts?.close();
    await this.#subscriptions.endAll();
    const graceMs = options.graceMs ?? 0;
    if (graceMs > 0) await Promise.all([...this.#sessions].map((s) => s.drain(graceMs)));
    const reason = new Error('The server is shutting down');
    // Formatted now: an unformatted stack keeps the objects of its frames (whoever awaited `close()`)
    // for as long as the server keeps its shutdown reason.
    void reason.stack;
    this.#shutdown.abort(reason);
    await Promise.all([...this.#sessions].map((s) => s.close()));
  }
}

/** Where a handler's bug goes when the server's options name no hook for it: one line on stderr. */
function bugOnStderr(message: string): void {
  console.error(`[toolwire] ${message}`);
}
