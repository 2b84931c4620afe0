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
import { Server, type ConnectOptions, type ServerConnection } from '../server/index.js';
import { MemoryOAuthStore } from '../transports/http-client/index.js';
import type { SharedSessionStores } from '../transports/http/index.js';
import { LocalErrorCode, isJsonObject, type LoggingMessageParams, type Transport } from '../index.js';
import { Approvals } from './approvals.js';
import { MemoryApprovalStore } from '../stores/memory-approval-store.js';
import { MemoryAuditStore, type AuditStore } from '../stores/audit-store.js';
import { MemoryGrantStore } from '../stores/grant-store.js';
import { AuditTrail } from './audit-trail.js';
import { CallLog } from './call-log.js';
import { CallRelay } from './call-relay.js';
import { ParkedCalls } from './parked-calls.js';
import { ExposedCatalog } from './exposed-catalog.js';
import { ExposedTools } from './exposed-tools.js';
import { GATEWAY_DEFAULTS, type GatewayConfig, type PolicyAction } from './gateway-config.js';
import { GatewayError } from './gateway-error.js';
import { HostRoots } from './host-roots.js';
import { GatewayEvents, type GatewayEventType, type GatewayListener } from './gateway-events.js';
import { callLogGraceMs, type GatewayOptions } from './gateway-options.js';
import { checkConfig } from './parse-config.js';
import type { Policy } from './policy.js';
import { ResourceSubscriptions } from './resource-subscriptions.js';
import { SharedStores } from './shared-stores.js';
import { ToolNamer } from './tool-namer.js';
import { ToolSettings } from './tool-settings.js';
import type { ExposedToolView, UpstreamView } from './gateway-views.js';
import type { Upstream } from './upstream.js';
import { UpstreamSet } from './upstream-set.js';
import { CallsInFlight } from './calls-in-flight.js';
import { ElicitationRoutes } from './elicitation-routes.js';
import { printable } from './printable.js';

/** The most of an upstream's log message data the gateway's log line holds, in characters. */
const MAX_LOGGED_DATA = 8 * 1024;
/** What may wait unwritten on stderr before log lines are dropped, in bytes. */
const MAX_UNWRITTEN_LOG = 1024 * 1024;

export class Gateway {
  readonly server: Server;
  readonly approvals: Approvals;
  /**
   * The latest calls with their arguments and results (memory, bounded, or shared by the instances on
   * Redis), and their cancellation.
   */
  readonly calls: CallLog;
  readonly #events: GatewayEvents;
  /** The action and visibility a person set per tool from the console. */
  readonly #settings = new ToolSettings();
  readonly #upstreams: UpstreamSet;
  readonly #options: GatewayOptions;
  readonly #relay: CallRelay;
  readonly #parked: ParkedCalls;
  readonly #tools: ExposedTools;
  readonly #catalog: ExposedCatalog;
  readonly #audit: AuditTrail;
  readonly #stores: SharedStores;
  /** The roots of the one host `connectHost` serves, the gateway's own. */
  readonly #roots: HostRoots;
  #config: GatewayConfig;
  #policy: Policy;
  #closing: Promise<void> | undefined;

  constructor(config: GatewayConfig, options: GatewayOptions = {}) {
    this.#config = checkConfig(config);
    this.#options = options;
    this.#events = new GatewayEvents(callLogGraceMs(options));
    const info = options.info ?? { name: 'toolwire-gateway', version: '0.1.0' };
    this.#policy = this.#settings.policyOf(this.#config);
    const stores = options.stores ?? {};
    this.#audit = new AuditTrail(
      stores.audit ??
        new MemoryAuditStore({ maxRecords: config.audit?.maxRecords ?? GATEWAY_DEFAULTS.auditMaxRecords }),
      options.auditSinks,
      this.#events,
      (line) => this.#line(line),
    );
    this.approvals = new Approvals({
      timeoutMs: config.approvals?.timeoutMs ?? GATEWAY_DEFAULTS.approvalTimeoutMs,
      store: stores.approvals ?? new MemoryApprovalStore(),
      grants: stores.grants ?? new MemoryGrantStore(),
      onPending: (approval) => this.#events.emit({ type: 'approval.pending', approval }),
      onSettled: (approval, outcome) => {
        this.#events.emit({ type: 'approval.decided', approval, outcome });
        this.#audit.decided(approval, outcome);
      },
      onWarning: (message) => this.#warn(message),
    });
    this.calls = new CallLog(stores.calls);
    this.server = new Server(info, {
      toolTimeout: false,
      listChangedDebounceMs: 20,
      // Errors no caller is told the whole of (a store's failure behind a 503, a transport's): a line of the
      // gateway's log unless the caller takes them.
      onError: (error) => this.#line(`error: ${error.name}: ${error.message}`),
      ...options.server,
      onRootsListChanged: (session) => {
        this.#roots.changed(session);
        options.server?.onRootsListChanged?.(session);
      },
    });
    this.#roots = new HostRoots({
      server: this.server,
      announce: () => this.#upstreams.rootsChanged(),
      warn: (message) => this.#warn(message),
    });
    const elicitations = new ElicitationRoutes();
    // A stateless-era request has no connection: with the one host as the only one, it is that host's.
    const inFlight = new CallsInFlight(
      () => this.#roots.host !== undefined && this.server.connections.size === 1,
    );
    this.#parked = new ParkedCalls({ ...this.#config.parkedCalls, ...options.parkedCalls });
    this.#relay = new CallRelay({
      policy: () => this.#policy,
      approvals: this.approvals,
      events: this.#events,
      audit: (record, argumentsText) => this.#audit.record(record, argumentsText),
      progressIntervalMs: () =>
        this.#config.approvals?.progressIntervalMs ?? GATEWAY_DEFAULTS.approvalProgressIntervalMs,
      reportError: (error, context) => this.reportError(error, context),
      calls: this.calls,
      elicitations,
      parked: this.#parked,
      inFlight,
    });
    this.#stores = new SharedStores({
      given: options.stores,
      config: () => this.#config,
      approvals: this.approvals,
      calls: this.calls,
      audit: this.#audit,
      events: this.#events,
      relay: this.#relay,
    });
    const warn = (upstream: Upstream, message: string) =>
      this.#warn(`upstream ${upstream.name}: ${message}`, upstream.name);
    this.#tools = new ExposedTools(
      this.server,
      this.#namer(this.#config),
      (entry, args, ctx) => this.#relay.call(entry, args, ctx),
      warn,
      (upstream, tool) => this.#settings.hidden(upstream.name, tool),
    );
    this.#catalog = new ExposedCatalog(
      this.server,
      this.#namer(this.#config),
      warn,
      elicitations,
      this.#parked,
      inFlight,
    );
    const subscriptions = new ResourceSubscriptions(
      this.server,
      (uri) => this.#catalog.ownerOf(uri),
      warn,
      () => this.#stores.sessions?.sessions,
    );
    this.#upstreams = new UpstreamSet({
      clientInfo: info,
      oauthStore: options.oauthStore ?? new MemoryOAuthStore(),
      config: () => this.#config,
      tools: this.#tools,
      catalog: this.#catalog,
      subscriptions,
      approvals: this.approvals,
      parked: this.#parked,
      events: this.#events,
      log: (upstream, params) => this.#upstreamLog(upstream, params),
      inFlight,
      roots: () => this.#roots.roots(),
      elicitationComplete: (upstream, elicitationId) => elicitations.complete(upstream.name, elicitationId),
      warn: (message, upstream) => this.#warn(message, upstream),
    });
    // Request middleware for resource subscriptions only: every other request (each tools/call) passes
    // by at no cost. (A call of a tool whose upstream is down is answered by the server: its tool is
    // disabled with the reason, see ExposedTools.sync.)
    this.server.useRequest(subscriptions.middleware, { methods: ResourceSubscriptions.methods });
    for (const [name, upstream] of Object.entries(this.#config.upstreams)) {
      this.#upstreams.add(name, upstream);
    }
  }

  /** The audit records (memory, or shared by the instances on Redis). */
  get audit(): AuditStore {
    return this.#audit.store;
  }

  /**
   * Where the MCP endpoint shares its handshake-era sessions with the other instances: the stores' `sessions`,
   * or those the configuration's `redis` opened (at `start()`); undefined when sessions stay in this instance.
   */
  get sharedSessions(): SharedSessionStores | undefined {
    return this.#stores.sessions;
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
    await this.#stores.open();
    await this.#upstreams.start();
  }

  /**
   * Serves the gateway to its one host over `transport` (stdio, as `toolwire gateway --stdio` does), as
   * `server.connect(transport, options)`, and makes that host's roots the gateway's own: an upstream's
   * `roots/list` that no call carries (asked when it is initialized, or after a
   * `notifications/roots/list_changed`) gets them, asked of the host once it has initialized and declared
   * `roots` (none before); its initialization and its `notifications/roots/list_changed` reach every ready
   * upstream (coalesced), and an upstream that connects later asks itself. During a call, an upstream's
   * questions go to the caller as always. While the server has any other connection (an HTTP endpoint's
   * session) the gateway has no roots, so that no host supplies or learns another's. Rejects with
   * GatewayError `ALREADY_CONNECTED` while the host it served before is connected.
   */
  async connectHost(transport: Transport, options?: ConnectOptions): Promise<ServerConnection> {
    if (this.#roots.host)
      throw new GatewayError(
        LocalErrorCode.AlreadyConnected,
        'The gateway serves a host already (connectHost)',
      );
    const connection = await this.server.connect(transport, options);
    this.#roots.serve(connection);
    return connection;
  }

  upstreams(): UpstreamView[] {
    return this.#upstreams.views();
  }

  /**
   * Starts a person's sign-in to the OAuth-protected upstream `name`, to come back to `redirectUrl` (the
   * console's `/console/callback`): resolves with the authorization URL to send the person's browser to.
   * Throws GatewayError `UPSTREAM_NOT_FOUND`, `SIGN_IN_UNAVAILABLE` (not an HTTP upstream, or one with
   * client credentials) or `SIGN_IN_FAILED` (its authorization server could not be found or refused).
   */
  signIn(name: string, redirectUrl: string): Promise<URL> {
    return this.#upstreams.signIn(name, redirectUrl);
  }

  /**
   * The person's browser came back to the redirect URI with `callbackUrl`: completes the sign-in its
   * `state` names (the answer checked, the code redeemed with the flow's PKCE verifier, the tokens kept),
   * then connects that upstream. Resolves with the upstream's view once that attempt is over. Throws
   * GatewayError `SIGN_IN_NOT_FOUND` for a state no sign-in under way has, `SIGN_IN_FAILED` when the
   * authorization server's answer is refused or its code cannot be redeemed.
   */
  completeSignIn(callbackUrl: string | URL): Promise<UpstreamView> {
    return this.#upstreams.completeSignIn(callbackUrl);
  }

  /** Every exposed tool, listed or not (hidden, or its upstream down), with the policy that applies. */
  tools(): ExposedToolView[] {
    return this.#tools.all().map((entry) => this.#settings.view(entry, this.#policy));
  }

  /**
   * Sets what the policy does with one exposed tool's calls (before every rule), or with `undefined`
   * returns it to the rules. Kept across configuration changes, until restart. Throws GatewayError
   * `TOOL_NOT_FOUND` for a name no tool has.
   */
  setToolPolicy(name: string, action: PolicyAction | undefined, by: string): ExposedToolView {
    this.#settings.setAction(this.#exposed(name), action, by);
    this.#events.emit({ type: 'tools.changed', tools: this.#tools.names() });
    return this.tools().find((view) => view.name === name)!;
  }

  /**
   * Hides an exposed tool from callers (it leaves `tools/list`, with `list_changed`, and calls of it are
   * refused as unknown), or shows it again. Until restart. Throws GatewayError `TOOL_NOT_FOUND`.
   */
  setToolHidden(name: string, hidden: boolean): ExposedToolView {
    const entry = this.#exposed(name);
    this.#settings.setHidden(entry, hidden);
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
   * `parkedCalls` applies to the calls parked from then on. `redis` and `http` are read at start: a change to
   * either is left out, with a warning (a restart applies it).
   */
  async apply(config: GatewayConfig): Promise<void> {
    let next = checkConfig(config);
    // The limits are checked before anything changes (the schema bounds them already).
    this.#parked.configure({ ...next.parkedCalls, ...this.#options.parkedCalls });
    const policy = this.#settings.policyOf(next);
    const renamed = next.separator !== this.#config.separator || next.toolNames !== this.#config.toolNames;
    const before = this.#config;
    if (JSON.stringify(next.redis) !== JSON.stringify(before.redis)) {
      this.#warn('the redis setting changed: it applies at the next start (the stores in use stay)');
      const { redis: _ignored, ...rest } = next;
      next = before.redis === undefined ? rest : { ...rest, redis: before.redis };
    }
    if (JSON.stringify(next.http) !== JSON.stringify(before.http)) {
      this.#warn('the http setting changed: it applies at the next start (the listener keeps its checks)');
      const { http: _ignored, ...rest } = next;
      next = before.http === undefined ? rest : { ...rest, http: before.http };
    }
    this.#config = next;
    this.#policy = policy;
    this.approvals.timeoutMs = next.approvals?.timeoutMs ?? GATEWAY_DEFAULTS.approvalTimeoutMs;
    if (renamed) {
      this.#tools.rename(this.#namer(next));
      this.#catalog.rename(this.#namer(next));
    }
    await this.#upstreams.reconfigure(before.upstreams, next.upstreams, renamed);
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
    this.#parked.close();
    this.#events.endGrace();
    return (this.#closing = (async () => {
      await withdrawn;
      await this.server.close(options);
      await this.#upstreams.close();
      await this.#stores.close();
    })());
  }

  /** Log lines dropped while stderr was not read (see `#line`). */
  #droppedLines = 0;

  #upstreamLog(upstream: Upstream, params: LoggingMessageParams): void {
    if (this.#relay.log(upstream, params)) return;
    const text = typeof params.data === 'string' ? params.data : (JSON.stringify(params.data) ?? '');
    // An upstream's message is a line of the gateway's log, not a dump: cut at 8 KiB.
    const data =
      text.length > MAX_LOGGED_DATA
        ? `${text.slice(0, MAX_LOGGED_DATA)}… (${text.length - MAX_LOGGED_DATA} more characters)`
        : text;
    this.#line(`[${upstream.name}] ${params.level}${params.logger ? ` ${params.logger}` : ''}: ${data}`);
  }

  /**
   * An error whose whole a caller is not told (a shared store's failure the decision API answered with 503,
   * or a call could not be held for approval by, naming only the store and the operation): to the `onError`
   * of the options' `server` when they have one, as the MCP endpoint does, else a line of the gateway's log
   * (`onLog`, else stderr) saying where it happened — where the MCP endpoint's go too.
   */
  reportError(error: Error, context: string): void {
    const onError = this.#options.server?.onError;
    if (onError) onError(error);
    else this.#line(`${context}: ${error.name}: ${error.message}`);
  }

  #warn(message: string, upstream?: string): void {
    this.#events.emit(
      upstream === undefined ? { type: 'warning', message } : { type: 'warning', message, upstream },
    );
    this.#line(message);
  }

  /**
   * A line of the gateway's log: to `onLog` as it is, else to stderr. There, what a terminal would act on is
   * escaped (control characters, a newline that would start a forged line, bidi overrides: an upstream's log
   * message and an error's text are its peers' words), and lines are dropped (then counted in one line) while
   * 1 MiB waits unwritten: a host that does not read the gateway's stderr, and an upstream that floods log
   * messages, would otherwise grow the gateway's memory without bound.
   */
  #line(line: string): void {
    if (this.#options.onLog) return this.#options.onLog(line);
    const stderr = process.stderr;
    if (stderr.writableLength >= MAX_UNWRITTEN_LOG) {
      // Counted, and told once stderr is read again.
      if (this.#droppedLines++ === 0) stderr.once('drain', this.#toldDropped);
      return;
    }
    this.#toldDropped();
    stderr.write(`toolwire gateway: ${printable(line)}\n`);
  }

  readonly #toldDropped = (): void => {
    if (this.#droppedLines === 0) return;
    process.stderr.write(`toolwire gateway: ${this.#droppedLines} log lines dropped: stderr was not read\n`);
    this.#droppedLines = 0;
  };

  #namer(config: GatewayConfig): ToolNamer {
    return new ToolNamer(
      config.separator ?? GATEWAY_DEFAULTS.separator,
      config.toolNames ?? GATEWAY_DEFAULTS.toolNames,
    );
  }
}

/** A gateway for `config` (checked now: an invalid one throws GatewayError INVALID_CONFIG). Call `start()`. */
export function createGateway(config: GatewayConfig, options?: GatewayOptions): Gateway {
  if (!isJsonObject(config)) throw new TypeError('createGateway needs a configuration object');
  return new Gateway(config, options);
}
