/**
 * The gateway: one MCP server in front of many. Downstream it is a toolwire `Server` (serve it over stdio
 * or HTTP like any other); upstream it holds a toolwire `Client` per configured server. Their tools appear
 * under namespaced names, and every call passes the policy — allowed, denied, or held for a person's
 * approval — before it reaches its upstream. A new configuration is applied without a restart.
 *
 * @example
 * ```ts
 * const gateway = createGateway({
 *   upstreams: { files: { command: 'npx', args: ['toolwire', 'serve'] } },
 *   policy: { rules: [{ upstream: 'files', tool: 'write_file', action: 'ask' }], default: 'allow' },
 * });
 * await gateway.start();
 * await gateway.server.connect(new StdioServerTransport());
 * gateway.on((event) => {
 *   if (event.type === 'approval.pending') void gateway.approvals.decide(event.approval.id, { approve: true, decidedBy: 'me' });
 * });
 * ```
 * @module
 */
import { Server, type ServerOptions } from '../server/index.js';
import { MemoryOAuthStore, type OAuthStore } from '../transports/http-client/index.js';
import type { SharedSessionStores } from '../transports/http/index.js';
import {
  LocalErrorCode,
  errorMessage,
  isJsonObject,
  type Implementation,
  type LoggingMessageParams,
} from '../index.js';
import { Approvals, type PendingApproval, type ApprovalOutcome } from './approvals.js';
import { MemoryApprovalStore } from '../stores/approval-store.js';
import { MemoryAuditStore, type AuditStore } from '../stores/audit-store.js';
import { CALL_IDS_PER_INSTANCE } from '../stores/call-log-store.js';
import { MemoryGrantStore } from '../stores/grant-store.js';
import type { MessageBus } from '../stores/message-bus.js';
import type { GatewayAuditRecord, GatewayAuditSink } from './gateway-audit-sink.js';
import { CallLog } from './call-log.js';
import { CallRelay, unavailable } from './call-relay.js';
import { ExposedCatalog } from './exposed-catalog.js';
import { ExposedTools } from './exposed-tools.js';
import { GATEWAY_DEFAULTS, type GatewayConfig, type PolicyAction } from './gateway-config.js';
import { GatewayError } from './gateway-error.js';
import { openRedisStores, SharedEvents, type GatewayStores } from './gateway-stores.js';
import { GatewayEvents, type GatewayEventType, type GatewayListener } from './gateway-events.js';
import { checkConfig } from './parse-config.js';
import { Policy } from './policy.js';
import { ResourceSubscriptions } from './resource-subscriptions.js';
import { ToolNamer } from './tool-namer.js';
import { upstreamView, type ExposedToolView, type UpstreamView } from './gateway-views.js';
import { Upstream, type UpstreamChange, type UpstreamHooks } from './upstream.js';

export interface GatewayOptions {
  /** How the gateway introduces itself, downstream and upstream (default `toolwire-gateway`). */
  info?: Implementation;
  /**
   * Options of the downstream server (rate limits, sanitization, audit of its own, access policy…).
   * Default: no tool timeout (a call may wait for approval; each upstream's `timeoutMs` bounds its part)
   * and no rate limit (each upstream limits its own calls).
   */
  server?: ServerOptions;
  /** Where audit records go besides the memory store (JSON lines, pino). */
  auditSinks?: readonly GatewayAuditSink[];
  /** Upstream log messages no single caller can be told, and the gateway's warnings. Default: stderr. */
  onLog?: (line: string) => void;
  /**
   * Where the tokens of OAuth-protected upstreams are kept (default: in memory, `MemoryOAuthStore`). The
   * gateway command uses the CLI's token file, so tokens `toolwire login URL` kept are used too.
   */
  oauthStore?: OAuthStore;
  /**
   * Where approvals, grants and audit records live and how events reach other instances (default: the
   * configuration's `redis`, else memory). Stores given here stay yours to close.
   */
  stores?: GatewayStores;
}

export class Gateway {
  readonly server: Server;
  readonly approvals: Approvals;
  /**
   * The latest calls with their arguments and results (memory, bounded, or shared by the instances on
   * Redis), and their cancellation.
   */
  readonly calls: CallLog;
  readonly #events = new GatewayEvents();
  /** Set per tool from the console: upstream NUL tool → action, and who set it. */
  readonly #overrides = new Map<string, { action: PolicyAction; by: string }>();
  /** Tools hidden from callers: upstream NUL tool. */
  readonly #hidden = new Set<string>();
  readonly #upstreams = new Map<string, Upstream>();
  readonly #options: GatewayOptions;
  readonly #oauthStore: OAuthStore;
  readonly #info: Implementation;
  readonly #relay: CallRelay;
  readonly #tools: ExposedTools;
  readonly #catalog: ExposedCatalog;
  readonly #subscriptions: ResourceSubscriptions;
  #config: GatewayConfig;
  #policy: Policy;
  #closing: Promise<void> | undefined;
  #opening: Promise<void> | undefined;
  #audit: AuditStore;
  #shared: SharedEvents | undefined;
  #sessions: SharedSessionStores | undefined;
  /** Closes the Redis connections the gateway opened from its configuration's `redis`. */
  #closeStores: (() => Promise<void>) | undefined;
  /** Stops saying this instance lives (its call log store's `live`), once its calls have ended. */
  #stopLiving: (() => Promise<void>) | undefined;

  constructor(config: GatewayConfig, options: GatewayOptions = {}) {
    this.#config = checkConfig(config);
    this.#options = options;
    this.#oauthStore = options.oauthStore ?? new MemoryOAuthStore();
    this.#info = options.info ?? { name: 'toolwire-gateway', version: '0.1.0' };
    this.#policy = this.#policyOf(this.#config);
    const stores = options.stores ?? {};
    this.#audit =
      stores.audit ??
      new MemoryAuditStore({ maxRecords: config.audit?.maxRecords ?? GATEWAY_DEFAULTS.auditMaxRecords });
    this.approvals = new Approvals({
      timeoutMs: config.approvals?.timeoutMs ?? GATEWAY_DEFAULTS.approvalTimeoutMs,
      store: stores.approvals ?? new MemoryApprovalStore(),
      grants: stores.grants ?? new MemoryGrantStore(),
      onPending: (approval) => this.#events.emit({ type: 'approval.pending', approval }),
      onSettled: (approval, outcome) => this.#decided(approval, outcome),
      onWarning: (message) => this.#warn(message),
    });
    this.calls = new CallLog(stores.calls);
    if (stores.bus) this.#share(stores.bus);
    this.#sessions = stores.sessions;
    this.server = new Server(this.#info, {
      toolTimeout: false,
      listChangedDebounceMs: 20,
      ...options.server,
    });
    this.#relay = new CallRelay({
      policy: () => this.#policy,
      approvals: this.approvals,
      events: this.#events,
      audit: (record) => this.#record(record),
      progressIntervalMs: () =>
        this.#config.approvals?.progressIntervalMs ?? GATEWAY_DEFAULTS.approvalProgressIntervalMs,
      calls: this.calls,
    });
    const warn = (upstream: Upstream, message: string) =>
      this.#warn(`upstream ${upstream.name}: ${message}`, upstream.name);
    this.#tools = new ExposedTools(
      this.server,
      this.#namer(this.#config),
      (entry, args, ctx) => this.#relay.call(entry, args, ctx),
      warn,
      (upstream, tool) => this.#hidden.has(toolKey(upstream.name, tool)),
    );
    this.#catalog = new ExposedCatalog(this.server, this.#namer(this.#config), warn);
    this.#subscriptions = new ResourceSubscriptions(
      this.server,
      (uri) => this.#catalog.ownerOf(uri),
      warn,
      () => this.#sessions?.sessions,
    );
    // One request middleware (each layer costs every request): resource subscriptions, and a call of a
    // tool whose upstream is down, an isError result that says so (its tool is out of the list). Not
    // async: a call of a ready upstream's tool goes straight on.
    const subscriptions = this.#subscriptions.middleware;
    this.server.useRequest((request, next) => {
      if (request.method !== 'tools/call') return subscriptions(request, next);
      const entry =
        typeof request.params.name === 'string' ? this.#tools.get(request.params.name) : undefined;
      if (!entry || entry.handle.enabled || entry.upstream.status === 'ready') return next();
      return Promise.resolve({
        content: [{ type: 'text', text: unavailable(entry.upstream) }],
        isError: true,
      });
    });
    for (const [name, upstream] of Object.entries(this.#config.upstreams)) this.#add(name, upstream);
  }

  /** The audit records (memory, or shared by the instances on Redis). */
  get audit(): AuditStore {
    return this.#audit;
  }

  /**
   * Where the MCP endpoint shares its handshake-era sessions with the other instances: the stores' `sessions`,
   * or those the configuration's `redis` opened (at `start()`); undefined when sessions stay in this instance.
   */
  get sharedSessions(): SharedSessionStores | undefined {
    return this.#sessions;
  }

  /** The configuration in force. */
  get config(): GatewayConfig {
    return this.#config;
  }

  /** The policy in force. */
  get policy(): Policy {
    return this.#policy;
  }

  /**
   * Receives every event (approvals, calls, upstream status, warnings, audit records), or those of
   * `types` only (the gateway builds no event no one listens to). Returns an unsubscribe.
   */
  on(listener: GatewayListener, types?: readonly GatewayEventType[]): () => void {
    return this.#events.on(listener, types);
  }

  /**
   * Opens the shared stores (the configuration's `redis`) and listens to the other instances, then
   * connects every upstream; resolves once each has been tried once (those that failed keep retrying).
   * Rejects when Redis cannot be reached.
   */
  async start(): Promise<void> {
    // Once, however often start() is called (a failed attempt may be made again).
    const opening = (this.#opening ??= this.#openStores());
    opening.catch(() => {
      if (this.#opening === opening) this.#opening = undefined;
    });
    await opening;
    await Promise.all([...this.#upstreams.values()].map((upstream) => upstream.start()));
  }

  async #openStores(): Promise<void> {
    const redis = this.#config.redis;
    if (redis !== undefined && this.#options.stores === undefined && this.#closeStores === undefined) {
      const { stores, close } = await openRedisStores(redis, this.#config);
      this.#closeStores = close;
      this.#audit = stores.audit;
      this.approvals.useStores(stores.approvals, stores.grants);
      this.calls.useStore(stores.calls);
      this.#share(stores.bus);
      this.#sessions = stores.sessions;
    }
    try {
      await this.approvals.listen();
      if (this.#shared) {
        this.#relay.idBase = await this.#shared.start();
        // Its running calls are shown lost to the other instances once this one stops saying it lives.
        this.#stopLiving = await this.calls.store.live(this.#relay.idBase / CALL_IDS_PER_INSTANCE);
      }
    } catch (error) {
      await this.#closeStores?.();
      this.#closeStores = undefined;
      throw error;
    }
  }

  upstreams(): UpstreamView[] {
    return [...this.#upstreams.values()].map((upstream) =>
      upstreamView(
        upstream,
        this.#tools.names().filter((name) => this.#tools.get(name)?.upstream === upstream),
      ),
    );
  }

  /**
   * Starts a person's sign-in to the OAuth-protected upstream `name`, to come back to `redirectUrl` (the
   * console's `/console/callback`): resolves with the authorization URL to send the person's browser to.
   * Throws GatewayError `UPSTREAM_NOT_FOUND`, `SIGN_IN_UNAVAILABLE` (not an HTTP upstream, or one with
   * client credentials) or `SIGN_IN_FAILED` (its authorization server could not be found or refused).
   */
  async signIn(name: string, redirectUrl: string): Promise<URL> {
    const upstream = this.#upstreams.get(name);
    if (!upstream) {
      throw new GatewayError(LocalErrorCode.UpstreamNotFound, `No upstream ${name}`, { details: { name } });
    }
    if (!upstream.oauth) {
      throw new GatewayError(LocalErrorCode.SignInUnavailable, `Upstream ${name} is not reached over HTTP`);
    }
    return (await upstream.oauth.signIn(redirectUrl)).authorizationUrl;
  }

  /**
   * The person's browser came back to the redirect URI with `callbackUrl`: completes the sign-in its
   * `state` names (the answer checked, the code redeemed with the flow's PKCE verifier, the tokens kept),
   * then connects that upstream. Resolves with the upstream's view once that attempt is over. Throws
   * GatewayError `SIGN_IN_NOT_FOUND` for a state no sign-in under way has, `SIGN_IN_FAILED` when the
   * authorization server's answer is refused or its code cannot be redeemed.
   */
  async completeSignIn(callbackUrl: string | URL): Promise<UpstreamView> {
    const callback = new URL(callbackUrl);
    for (const upstream of this.#upstreams.values()) {
      if (!(await upstream.oauth?.complete(callback))) continue;
      await upstream.reconnect();
      return this.upstreams().find((view) => view.name === upstream.name)!;
    }
    throw new GatewayError(
      LocalErrorCode.SignInNotFound,
      'No sign-in under way has this state (it finished, expired, or was never started here)',
    );
  }

  /** Every exposed tool, listed or not (hidden, or its upstream down), with the policy that applies. */
  tools(): ExposedToolView[] {
    return this.#tools.all().map((entry) => {
      const key = toolKey(entry.upstream.name, entry.tool.name);
      const view: ExposedToolView = {
        name: entry.name,
        upstream: entry.upstream.name,
        tool: entry.tool,
        policy: this.#policy.decide(entry.upstream.name, entry.tool),
        hidden: this.#hidden.has(key),
        listed: entry.handle.enabled,
      };
      const override = this.#overrides.get(key);
      if (override) view.override = override.action;
      return view;
    });
  }

  /**
   * Sets what the policy does with one exposed tool's calls (before every rule), or with `undefined`
   * returns it to the rules. Kept across configuration changes, until restart. Throws GatewayError
   * `TOOL_NOT_FOUND` for a name no tool has.
   */
  setToolPolicy(name: string, action: PolicyAction | undefined, by: string): ExposedToolView {
    const entry = this.#exposed(name);
    const key = toolKey(entry.upstream.name, entry.tool.name);
    if (action === undefined) this.#overrides.delete(key);
    else this.#overrides.set(key, { action, by });
    this.#events.emit({ type: 'tools.changed', tools: this.#tools.names() });
    return this.tools().find((view) => view.name === name)!;
  }

  /**
   * Hides an exposed tool from callers (it leaves `tools/list`, with `list_changed`, and calls of it are
   * refused as unknown), or shows it again. Until restart. Throws GatewayError `TOOL_NOT_FOUND`.
   */
  setToolHidden(name: string, hidden: boolean): ExposedToolView {
    const entry = this.#exposed(name);
    const key = toolKey(entry.upstream.name, entry.tool.name);
    if (hidden) this.#hidden.add(key);
    else this.#hidden.delete(key);
    this.#tools.sync(entry.upstream);
    this.#events.emit({ type: 'tools.changed', tools: this.#tools.names() });
    return this.tools().find((view) => view.name === name)!;
  }

  #exposed(name: string) {
    const entry = this.#tools.get(name);
    if (!entry) throw new GatewayError(LocalErrorCode.ToolNotFound, `No tool ${name}`, { details: { name } });
    return entry;
  }

  /**
   * Applies a new configuration at once (checked first: an invalid one throws and changes nothing):
   * upstreams added are connected, removed ones closed (their tools go), changed ones replaced; the policy,
   * names and approval settings are swapped in one step. Resolves once new upstreams were tried once.
   */
  async apply(config: GatewayConfig): Promise<void> {
    let next = checkConfig(config);
    const policy = this.#policyOf(next);
    const renamed = next.separator !== this.#config.separator || next.toolNames !== this.#config.toolNames;
    const before = this.#config;
    if (JSON.stringify(next.redis) !== JSON.stringify(before.redis)) {
      this.#warn('the redis setting changed: it applies at the next start (the stores in use stay)');
      const { redis: _ignored, ...rest } = next;
      next = before.redis === undefined ? rest : { ...rest, redis: before.redis };
    }
    this.#config = next;
    this.#policy = policy;
    this.approvals.timeoutMs = next.approvals?.timeoutMs ?? GATEWAY_DEFAULTS.approvalTimeoutMs;
    if (renamed) {
      this.#tools.rename(this.#namer(next));
      this.#catalog.rename(this.#namer(next));
    }
    const closing: Promise<void>[] = [];
    const starting: Promise<void>[] = [];
    for (const [name, upstream] of this.#upstreams) {
      const wanted = next.upstreams[name];
      if (wanted !== undefined && JSON.stringify(wanted) === JSON.stringify(before.upstreams[name])) continue;
      closing.push(this.#remove(upstream));
    }
    await Promise.all(closing);
    for (const [name, upstream] of Object.entries(next.upstreams)) {
      if (this.#upstreams.has(name)) {
        if (renamed) this.#sync(this.#upstreams.get(name)!, 'status');
        continue;
      }
      starting.push(this.#add(name, upstream).start());
    }
    await Promise.all(starting);
  }

  /**
   * Withdraws pending approvals (their calls end with an isError result), closes the downstream server —
   * with `graceMs`, its sessions first take no new requests and the calls running upstream get that long
   * to finish (as `Server.close`) — then every upstream (a stdio upstream's process is ended). A second
   * call resolves when the first is done, and without `graceMs` ends its wait.
   */
  close(options: { graceMs?: number } = {}): Promise<void> {
    if (this.#closing) {
      if (!options.graceMs) void this.server.close().catch(() => undefined);
      return this.#closing;
    }
    // Held calls end now (with an isError result); the store learns it meanwhile.
    const withdrawn = this.approvals.close();
    return (this.#closing = (async () => {
      await withdrawn;
      await this.server.close(options);
      await Promise.all([...this.#upstreams.values()].map((upstream) => upstream.close()));
      this.#shared?.stop();
      // The last calls' ends are written (when the store can be reached) before its connection closes.
      await this.calls.store.flushed().catch(() => undefined);
      await this.#stopLiving?.().catch(() => undefined);
      await this.#closeStores?.();
    })());
  }

  /** Shares events on `bus`, and takes the cancellations of calls this instance runs from there. */
  #share(bus: MessageBus): void {
    const shared = new SharedEvents(this.#events, bus, (id, by) => void this.calls.cancelHere(id, by));
    this.#shared = shared;
    this.calls.reach((id, by) => shared.requestCancel(id, by));
  }

  #add(name: string, config: GatewayConfig['upstreams'][string]): Upstream {
    const upstream = new Upstream(name, config, this.#hooks());
    this.#upstreams.set(name, upstream);
    return upstream;
  }

  async #remove(upstream: Upstream): Promise<void> {
    this.#upstreams.delete(upstream.name);
    this.#tools.drop(upstream);
    this.#catalog.drop(upstream);
    this.#subscriptions.drop(upstream);
    await this.approvals
      .forgetUpstream(upstream.name)
      .catch((error: unknown) =>
        this.#warn(`the grants of ${upstream.name} could not be forgotten: ${errorMessage(error)}`),
      );
    await upstream.close();
  }

  #hooks(): UpstreamHooks {
    return {
      clientInfo: this.#info,
      changed: (upstream, what) => this.#sync(upstream, what),
      updated: (upstream, uri) => this.#subscriptions.updated(upstream, uri),
      connected: (upstream, client) => this.#subscriptions.resubscribe(upstream, client),
      log: (upstream, params) => this.#upstreamLog(upstream, params),
      warn: (upstream, message) => this.#warn(`upstream ${upstream.name}: ${message}`, upstream.name),
      reconnect: {
        initialDelayMs: this.#config.reconnect?.initialDelayMs ?? GATEWAY_DEFAULTS.reconnectInitialDelayMs,
        maxDelayMs: this.#config.reconnect?.maxDelayMs ?? GATEWAY_DEFAULTS.reconnectMaxDelayMs,
        checkIntervalMs: this.#config.reconnect?.checkIntervalMs ?? GATEWAY_DEFAULTS.reconnectCheckIntervalMs,
      },
      oauthStore: this.#oauthStore,
    };
  }

  #sync(upstream: Upstream, what: UpstreamChange): void {
    if (this.#upstreams.get(upstream.name) !== upstream) return; // removed meanwhile
    if (what === 'status') {
      const event = { type: 'upstream.status', upstream: upstream.name, status: upstream.status } as const;
      this.#events.emit(upstream.error === undefined ? event : { ...event, error: upstream.error });
    }
    if (upstream.status === 'closed') return;
    if (what === 'status' || what === 'tools') {
      this.#tools.sync(upstream);
      this.#events.emit({ type: 'tools.changed', tools: this.#tools.names() });
    }
    if (what !== 'tools') this.#catalog.sync(upstream);
  }

  #upstreamLog(upstream: Upstream, params: LoggingMessageParams): void {
    if (this.#relay.log(upstream, params)) return;
    const data = typeof params.data === 'string' ? params.data : JSON.stringify(params.data);
    this.#line(`[${upstream.name}] ${params.level}${params.logger ? ` ${params.logger}` : ''}: ${data}`);
  }

  #decided(approval: PendingApproval, outcome: ApprovalOutcome): void {
    this.#events.emit({ type: 'approval.decided', approval, outcome });
    const record: Omit<GatewayAuditRecord, 'seq'> = {
      time: outcome.decidedAt,
      kind: 'decision',
      caller: approval.caller,
      upstream: approval.upstream,
      tool: approval.tool,
      argumentsDigest: approval.argumentsDigest,
      decision:
        outcome.decision === 'approved'
          ? outcome.always
            ? 'approved-always'
            : 'approved'
          : outcome.decision,
      decidedBy: 'decidedBy' in outcome ? outcome.decidedBy : 'gateway',
      approvalId: approval.id,
    };
    const reason = 'reason' in outcome ? outcome.reason : undefined;
    this.#record(reason === undefined ? record : { ...record, reason });
  }

  /** Stores an audit record, then hands it to the sinks and the listeners (with its number). */
  #record(record: Omit<GatewayAuditRecord, 'seq'>): void {
    // No sink and no listener (a gateway no console watches): the record is stored, nothing waits for it.
    if (!this.#options.auditSinks?.length && !this.#events.wants('audit')) {
      this.#audit.append(record).catch(this.#notStored);
      return;
    }
    const written = (stored: GatewayAuditRecord) => {
      for (const sink of this.#options.auditSinks ?? []) {
        try {
          sink.write(stored);
        } catch (error) {
          this.#line(`audit sink failed: ${errorMessage(error)}`);
        }
      }
      if (this.#events.wants('audit')) this.#events.emit({ type: 'audit', record: stored });
    };
    this.#audit.append(record).then(written, (error: unknown) => {
      // The sinks still get it (unnumbered: seq 0), and the failure is said.
      this.#notStored(error);
      written({ seq: 0, ...record });
    });
  }

  readonly #notStored = (error: unknown): void => {
    this.#line(`audit record not stored: ${errorMessage(error)}`);
  };

  #warn(message: string, upstream?: string): void {
    this.#events.emit(
      upstream === undefined ? { type: 'warning', message } : { type: 'warning', message, upstream },
    );
    this.#line(message);
  }

  #line(line: string): void {
    if (this.#options.onLog) this.#options.onLog(line);
    else process.stderr.write(`toolwire gateway: ${line}\n`);
  }

  #namer(config: GatewayConfig): ToolNamer {
    return new ToolNamer(
      config.separator ?? GATEWAY_DEFAULTS.separator,
      config.toolNames ?? GATEWAY_DEFAULTS.toolNames,
    );
  }

  #policyOf(config: GatewayConfig): Policy {
    const upstreams = config.upstreams;
    return new Policy({
      ...(config.policy?.rules ? { rules: config.policy.rules } : {}),
      ...(config.policy?.default ? { default: config.policy.default } : {}),
      trusted: (name) => upstreams[name]?.trusted === true,
      override: (upstream, tool) => {
        const set = this.#overrides.get(toolKey(upstream, tool));
        return set && { action: set.action, reason: `set in the console by ${set.by}` };
      },
    });
  }
}

/** A gateway for `config` (checked now: an invalid one throws GatewayError INVALID_CONFIG). Call `start()`. */
export function createGateway(config: GatewayConfig, options?: GatewayOptions): Gateway {
  if (!isJsonObject(config)) throw new TypeError('createGateway needs a configuration object');
  return new Gateway(config, options);
}

function toolKey(upstream: string, tool: string): string {
  return `${upstream}\u0000${tool}`;
}
