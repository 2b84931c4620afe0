/**
 * One upstream server as the gateway sees it: a toolwire `Client` over stdio or HTTP (either era, the
 * client's `auto`), what the server lists (tools, resources, templates, prompts, kept fresh by its
 * `list_changed`), and its health. A lost connection — the process exited, the HTTP server went away, a
 * call failed on the transport — makes it `down` and it reconnects with backoff (the first delay, doubled
 * after each failure up to the last), listing everything again once it is back. The backoff starts over
 * only once a connection stayed up as long as the last delay: a server that crashes soon after each start
 * (a crash loop) is started less and less often, not every first delay for ever. An OAuth-protected HTTP
 * upstream whose tokens cannot authorize it (none yet, or no longer refreshable) `needs-sign-in`: it keeps
 * trying, with the same backoff, and connects at once when a person has signed in (`signIn`).
 * @module
 */
import {
  Client,
  ProtocolError,
  ToolwireError,
  errorMessage,
  type ClientHandlers,
  type Implementation,
  type LoggingMessageParams,
  type Prompt,
  type Resource,
  type ResourceTemplate,
  type Root,
  type Tool,
  type Transport,
} from '../index.js';
import {
  FallbackHttpClientTransport,
  authFailure,
  type OAuthStore,
} from '../transports/http-client/index.js';
import { StdioClientTransport } from '../transports/stdio/index.js';
import { GATEWAY_DEFAULTS, isHttpUpstream, type UpstreamConfig } from './gateway-config.js';
import type { UpstreamStatus } from './gateway-events.js';
import { passStderrThrough } from './prefixed-lines.js';
import { noCaller } from './relayed-input.js';
import { UpstreamOAuth } from './upstream-oauth.js';

/** What an upstream's listing changed: its status, or one of its lists. */
export type UpstreamChange = 'status' | 'tools' | 'resources' | 'prompts';

export interface UpstreamHooks {
  /** How the gateway introduces itself to upstreams. */
  clientInfo: Implementation;
  changed(upstream: Upstream, what: UpstreamChange): void;
  /**
   * Connected (again) and listed, not yet `ready`: the gateway's work that must be done before callers use
   * it (resource subscriptions asked again). Its failures are the hook's to report.
   */
  connected(upstream: Upstream, client: Client): Promise<void>;
  /** A resource it was subscribed to changed (`notifications/resources/updated`). */
  updated(upstream: Upstream, uri: string): void;
  /** A log message from the upstream (`notifications/message`). */
  log(upstream: Upstream, params: LoggingMessageParams): void;
  /**
   * What relays a question the upstream asked outside its requests' own handlers (see `NO_CALLER`) to the
   * caller it belongs to, when one does (see `CallsInFlight.owner`); undefined: nobody's.
   */
  owner(upstream: Upstream): ClientHandlers | undefined;
  /**
   * The gateway's own roots, what a `roots/list` that no caller takes gets: its one host's (see
   * `HostRoots`), else none.
   */
  roots(): Promise<Root[]> | Root[];
  /** The upstream completed a URL-mode elicitation it named (`notifications/elicitation/complete`). */
  elicitationComplete(upstream: Upstream, elicitationId: string): void;
  /** Something worth a warning (a list that could not be read). */
  warn(upstream: Upstream, message: string): void;
  /** Reconnection delays; and how often an HTTP upstream is pinged while up. */
  reconnect: { initialDelayMs: number; maxDelayMs: number; checkIntervalMs: number };
  /** Where OAuth-protected upstreams' tokens are kept. */
  oauthStore: OAuthStore;
}

/**
 * Answers an upstream's questions that no caller's client takes — asked outside any call, during the call
 * of a caller that did not declare what they need, or while several calls of different connections are in
 * flight where nothing on the wire says whose call asks (see `ExchangeOptions.handlers` and
 * `CallsInFlight.owner`; calls of one connection: its caller is asked): an elicitation or sampling is
 * refused with -32602 saying why (what a model reads in the tool's error; not `decline`, which tells the
 * server a person said no), and the roots are none. Declaring them lets every upstream ask; the caller's
 * own client answers during its calls.
 */
const NO_CALLER = {
  elicitation: (): never => {
    throw noCaller('elicitation/create');
  },
  sampling: (): never => {
    throw noCaller('sampling/createMessage');
  },
  roots: [],
} satisfies ClientHandlers;

/**
 * What the gateway declares to every upstream beside `NO_CALLER`'s handlers: every elicitation mode, and
 * sampling with tools. Each question is relayed only to a caller that declared what it needs; one that did
 * not gets the upstream the error it would get from that caller (the server library's check).
 */
const RELAYED_CAPABILITIES = {
  elicitation: { form: {}, url: {} },
  sampling: { tools: {} },
};

/**
 * How long connecting (spawn, era probe, handshake, logging level, first lists) may take, in all, before it
 * counts as a failure, unless the upstream's `connectTimeoutMs` says otherwise. Each step had only its own timeout: an upstream that never answered took 61 s (the
 * probe, then `initialize`), one that answered only `initialize` and `tools/list` up to 120 s by those
 * timeouts, and the gateway served nobody until every upstream's first attempt was over.
 */
const CONNECT_TIMEOUT_MS = 30_000;

export class Upstream {
  readonly name: string;
  readonly config: UpstreamConfig;
  status: UpstreamStatus = 'connecting';
  /** Why it is down (or failed last). */
  error: string | undefined;
  /** The client, while ready. */
  client: Client | undefined;
  tools: readonly Tool[] = [];
  resources: readonly Resource[] = [];
  templates: readonly ResourceTemplate[] = [];
  prompts: readonly Prompt[] = [];
  /** Whether the server declared completions. */
  completions = false;

  readonly #hooks: UpstreamHooks;
  /** The OAuth side of an HTTP upstream. */
  readonly oauth: UpstreamOAuth | undefined;
  #generation = 0;
  #failures = 0;
  /** When the connection now up became ready (`performance.now()`); undefined while none is. */
  #readySince: number | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** The health check of an HTTP upstream while it is up. */
  #check: ReturnType<typeof setInterval> | undefined;
  #closed = false;
  #first: Promise<void> | undefined;
  /**
   * The closes of connections lost (a stdio upstream's process being shut down: stdin closed, then SIGTERM,
   * then SIGKILL), which `close()` waits for: a host that exits once the gateway closed would otherwise
   * leave such a process running, one that no longer reads its stdin for ever.
   */
  readonly #closing = new Set<Promise<void>>();

  constructor(name: string, config: UpstreamConfig, hooks: UpstreamHooks) {
    this.name = name;
    this.config = config;
    this.#hooks = hooks;
    this.oauth = isHttpUpstream(config)
      ? new UpstreamOAuth(name, config.url, config.oauth, hooks.oauthStore)
      : undefined;
  }

  /** The gateway's roots changed while no client was ready: the next one that is tells its server. */
  #rootsChanged = false;

  /**
   * The client's own handlers: a question no request's handlers took goes to the caller it belongs to
   * (`UpstreamHooks.owner`), else `NO_CALLER` answers it (roots: the gateway's own, `UpstreamHooks.roots`).
   */
  #routed(): ClientHandlers {
    const owner = () => this.#hooks.owner(this);
    return {
      elicitation: (params, ctx) => {
        const relay = owner()?.elicitation;
        return relay ? relay(params, ctx) : NO_CALLER.elicitation();
      },
      sampling: (params, ctx) => {
        const relay = owner()?.sampling;
        return relay ? relay(params, ctx) : NO_CALLER.sampling();
      },
      roots: (ctx) => {
        const roots = owner()?.roots;
        return typeof roots === 'function' ? roots(ctx) : this.#hooks.roots();
      },
    };
  }

  /**
   * The gateway's roots changed (its host's did): the server hears so (`notifications/roots/list_changed`),
   * now or, while it is not ready, once it is.
   */
  rootsChanged(): void {
    const client = this.client;
    if (!client) {
      this.#rootsChanged = true;
      return;
    }
    client.sendRootsListChanged().catch((error: unknown) => this.failed(error));
  }

  /** Its tools' and prompts' prefix downstream. */
  get prefix(): string {
    return this.config.prefix ?? this.name;
  }

  get timeoutMs(): number {
    return this.config.timeoutMs ?? GATEWAY_DEFAULTS.upstreamTimeoutMs;
  }

  /** The longest one call may take, however much progress renews its `timeoutMs` (never less than it). */
  get maxCallMs(): number {
    return Math.max(this.config.maxCallMs ?? GATEWAY_DEFAULTS.upstreamMaxCallMs, this.timeoutMs);
  }

  /** How long connecting may take in all: `connectTimeoutMs`. */
  get connectTimeoutMs(): number {
    return this.config.connectTimeoutMs ?? CONNECT_TIMEOUT_MS;
  }

  /** The most tools (and items of each other list) it may list: `maxTools`. */
  get maxTools(): number {
    return this.config.maxTools ?? GATEWAY_DEFAULTS.upstreamMaxTools;
  }

  /** Connects; resolves after the first attempt, whether it succeeded or not (failures retry with backoff). */
  start(): Promise<void> {
    return (this.#first ??= this.#connect());
  }

  /**
   * A call failed on the transport (not with a JSON-RPC error, nor a timeout or cancellation): the
   * connection is taken as lost; refused credentials of an OAuth upstream need a person to sign in.
   */
  failed(error: unknown): void {
    if (error instanceof ProtocolError || !(error instanceof ToolwireError)) return;
    if (['CONNECTION_CLOSED', 'SEND_FAILED', 'NOT_CONNECTED'].includes(error.code)) {
      this.#lost(this.#generation, errorMessage(error));
    } else if (error.code === 'UNAUTHORIZED' && this.oauth?.needsPerson) {
      // The tokens no longer authorize it, and refreshing did not help: a person must sign in again.
      this.#lost(
        this.#generation,
        `sign in to upstream ${this.name}: ${errorMessage(error)}`,
        'needs-sign-in',
      );
    }
  }

  /**
   * A person signed in (its tokens are kept): connects now, whatever the backoff said. Resolves once
   * that attempt is over.
   */
  async reconnect(): Promise<void> {
    if (this.#closed) return;
    clearTimeout(this.#timer);
    clearInterval(this.#check);
    const client = this.client;
    this.client = undefined;
    if (client) {
      client.onclose = undefined;
      await client.close().catch(() => undefined);
    }
    await this.#connect();
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    clearInterval(this.#check);
    const client = this.client;
    this.client = undefined;
    this.#setStatus('closed', undefined);
    await Promise.all([client?.close().catch(() => undefined), ...this.#closing]);
  }

  async #connect(): Promise<void> {
    if (this.#closed) return;
    const generation = ++this.#generation;
    // Waiting for a person stays that (not connecting, then needing sign-in again, every retry); and each
    // retry reads the token store again, where someone may have signed in meanwhile.
    if (this.status === 'needs-sign-in') this.oauth?.reload();
    else this.#setStatus('connecting', this.error);
    // How the transport saw the connection end (a stdio server's exit code or signal): the client's own
    // error for it only says that the connection closed. (An HTTP upstream that cannot be reached fails
    // the connect with the transport's own error, naming `connect ECONNREFUSED …`.)
    let ended: string | undefined;
    const why = (error: unknown) => {
      const code = error instanceof ToolwireError ? error.code : undefined;
      return code === 'CONNECTION_CLOSED' && ended !== undefined ? ended : errorMessage(error);
    };
    const client = new Client(this.#hooks.clientInfo, {
      ...this.#routed(),
      capabilities: RELAYED_CAPABILITIES,
      protocolVersion: this.config.protocolVersion ?? 'auto',
      requestTimeout: this.timeoutMs,
      // Its paging stops at the page past `maxTools` (see `#listTools`).
      maxListItems: this.maxTools,
      onLog: (params) => this.#hooks.log(this, params),
      onElicitationComplete: (elicitationId) => this.#hooks.elicitationComplete(this, elicitationId),
      // A caller's form answer is the upstream's to check against its own schema (and a hostile upstream's
      // schema is not compiled here).
      validateElicitation: false,
      onError: (error) => {
        if (error instanceof ToolwireError && error.code === 'CONNECTION_CLOSED') ended = error.message;
      },
      onWarning: (message) => this.#hooks.warn(this, message),
    });
    // Past the whole attempt's time, the client is closed: the step under way fails, and so the attempt.
    let late = false;
    const deadline = setTimeout(() => {
      late = true;
      client.onclose = undefined;
      void client.close().catch(() => undefined);
    }, this.connectTimeoutMs);
    try {
      await client.connect(await this.#transport(), { timeout: this.connectTimeoutMs });
      client.onclose = () => this.#lost(generation, ended ?? 'the connection closed');
      // Every log message comes to the gateway, which passes on what each caller's own level lets through.
      if (client.serverCapabilities?.logging) await client.setLoggingLevel('debug').catch(() => undefined);
      await this.#list(client, generation, 'all');
      if (generation !== this.#generation || this.#closed) {
        await client.close();
        return;
      }
      client.onToolsChanged((tools) => {
        if (generation !== this.#generation) return;
        this.tools = tools;
        this.#hooks.changed(this, 'tools');
      });
      client.onResourceListChanged(() => this.#relist(client, generation, 'resources'));
      client.onPromptListChanged(() => this.#relist(client, generation, 'prompts'));
      client.onResourceUpdated((uri) => {
        if (generation === this.#generation) this.#hooks.updated(this, uri);
      });
      await this.#hooks.connected(this, client);
      clearTimeout(deadline);
      if (generation !== this.#generation || this.#closed || late) {
        await client.close();
        if (late) this.#lost(generation, connectedTooLate(this.connectTimeoutMs));
        return;
      }
      this.client = client;
      this.#readySince = performance.now();
      this.#setStatus('ready', undefined);
      if (this.#rootsChanged) {
        this.#rootsChanged = false;
        this.rootsChanged();
      }
      if (isHttpUpstream(this.config)) this.#watch(client, generation);
    } catch (error) {
      clearTimeout(deadline);
      client.onclose = undefined;
      await client.close().catch(() => undefined);
      if (late) this.#lost(generation, connectedTooLate(this.connectTimeoutMs));
      else if (this.oauth?.needsPerson && authFailure(error) && (await this.oauth.client()) !== undefined) {
        this.#lost(generation, `sign in to upstream ${this.name}: ${errorMessage(error)}`, 'needs-sign-in');
      } else this.#lost(generation, why(error));
    }
  }

  /** The listings after a list_changed under way (by kind); `again` once another change came meanwhile. */
  readonly #relisting = new Map<'resources' | 'prompts', { generation: number; again: boolean }>();

  /**
   * Lists one kind again after its list_changed: one listing at a time, and one more after it for the
   * changes that came meanwhile (a server sending thousands of list_changed made as many listings).
   */
  #relist(client: Client, generation: number, what: 'resources' | 'prompts'): void {
    const running = this.#relisting.get(what);
    if (running?.generation === generation) {
      running.again = true;
      return;
    }
    const listing = { generation, again: false };
    this.#relisting.set(what, listing);
    void this.#list(client, generation, what).finally(() => {
      if (this.#relisting.get(what) === listing) this.#relisting.delete(what);
      if (listing.again && generation === this.#generation && !this.#closed)
        this.#relist(client, generation, what);
    });
  }

  /** Lists what the server has (all of it, or one kind after its list_changed). */
  async #list(client: Client, generation: number, what: 'all' | 'resources' | 'prompts'): Promise<void> {
    const caps = client.serverCapabilities ?? {};
    this.completions = caps.completions !== undefined;
    const timeout = Math.min(this.timeoutMs, this.connectTimeoutMs);
    if (what === 'all') this.tools = caps.tools ? await this.#listTools(client, timeout) : [];
    try {
      if (what !== 'prompts' && caps.resources) {
        const [resources, templates] = await Promise.all([
          client.listResources({ timeout }),
          client.listResourceTemplates({ timeout }),
        ]);
        if (generation !== this.#generation) return;
        this.resources = resources;
        this.templates = templates;
        if (what === 'resources') this.#hooks.changed(this, 'resources');
      }
      if (what !== 'resources' && caps.prompts) {
        const prompts = await client.listPrompts({ timeout });
        if (generation !== this.#generation) return;
        this.prompts = prompts;
        if (what === 'prompts') this.#hooks.changed(this, 'prompts');
      }
    } catch (error) {
      this.#hooks.warn(
        this,
        `listing its ${what === 'all' ? 'resources and prompts' : what} failed: ${errorMessage(error)}`,
      );
    }
  }

  /**
   * Its tools; more than `maxTools` of them is a failure that says so (the client's own error names its
   * option, `maxListItems`, which the gateway's configuration does not have).
   */
  async #listTools(client: Client, timeout: number): Promise<readonly Tool[]> {
    try {
      return await client.listTools({ timeout });
    } catch (error) {
      if (error instanceof ToolwireError && error.code === 'TOO_MANY_PAGES' && pastItems(error.details)) {
        throw new Error(
          `it lists more than ${this.maxTools} tools (or items of another list); not exposed (raise its maxTools if this is expected)`,
          { cause: error },
        );
      }
      throw error;
    }
  }

  async #transport(): Promise<Transport> {
    const config = this.config;
    if (isHttpUpstream(config)) {
      const token = config.bearerEnv === undefined ? undefined : process.env[config.bearerEnv];
      const oauth = token ? undefined : await this.oauth?.client();
      return new FallbackHttpClientTransport({
        url: config.url,
        ...(config.headers ? { headers: config.headers } : {}),
        ...(token ? { bearer: token } : {}),
        ...(oauth ? { oauth } : {}),
      });
    }
    // Passed through as lines that name the upstream (`[demo] …`), not as the gateway's own.
    const inherit = (config.stderr ?? 'inherit') === 'inherit';
    const transport = new StdioClientTransport({
      command: config.command,
      args: config.args ?? [],
      ...(config.env ? { env: config.env } : {}),
      ...(config.cwd ? { cwd: config.cwd } : {}),
      stderr: inherit ? 'pipe' : 'ignore',
    });
    if (transport.stderr) passStderrThrough(transport.stderr, `[${this.name}] `);
    return transport;
  }

  /**
   * Pings an HTTP upstream while it is up (`ping`; a fresh `tools/list` in the stateless era, which has
   * none): a server that went away (nothing tells an HTTP client so, as a stdio child's exit does) is
   * noticed by the failed check, without a call failing first.
   */
  #watch(client: Client, generation: number): void {
    clearInterval(this.#check);
    const every = this.#hooks.reconnect.checkIntervalMs;
    this.#check = setInterval(() => {
      if (generation !== this.#generation || this.client !== client) {
        clearInterval(this.#check);
        return;
      }
      const timeout = Math.min(every, this.timeoutMs);
      // The stateless era has no ping: a fresh tools/list asks the same.
      const check =
        client.era === 'stateless' ? client.listTools({ refresh: true, timeout }) : client.ping({ timeout });
      check.catch((error: unknown) => this.failed(error));
    }, every);
    this.#check.unref?.();
  }

  /** The connection of `generation` is gone: down (or waiting for a sign-in), then a reconnect after the backoff delay. */
  #lost(generation: number, why: string, status: 'down' | 'needs-sign-in' = 'down'): void {
    if (this.#closed || generation !== this.#generation || this.status === 'down') return;
    const client = this.client;
    this.client = undefined;
    if (client) {
      client.onclose = undefined;
      const closing: Promise<void> = client
        .close()
        .catch(() => undefined)
        .finally(() => this.#closing.delete(closing));
      this.#closing.add(closing);
    }
    this.#setStatus(status, why);
    const { initialDelayMs, maxDelayMs } = this.#hooks.reconnect;
    // Lost after being up as long as the last delay: a fresh failure. Sooner: one more of a crash loop (an
    // upstream that exited 100 ms after each start was started again every 0.8 s, each start a full listing
    // and a list_changed to every caller).
    const upMs = this.#readySince === undefined ? 0 : performance.now() - this.#readySince;
    this.#readySince = undefined;
    if (upMs >= maxDelayMs) this.#failures = 0;
    const delay = Math.min(initialDelayMs * 2 ** Math.min(this.#failures, 30), maxDelayMs);
    this.#failures++;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#connect(), delay);
    this.#timer.unref?.();
  }

  #setStatus(status: UpstreamStatus, error: string | undefined): void {
    const changed = this.status !== status || this.error !== error;
    this.status = status;
    this.error = error;
    if (changed) this.#hooks.changed(this, 'status');
  }
}

/** Whether a TOO_MANY_PAGES error's `details` say that the items (not the pages or bytes) were too many. */
function pastItems(details: unknown): boolean {
  return typeof details === 'object' && details !== null && 'items' in details;
}

/** Why an attempt that took longer than its `connectTimeoutMs` failed. */
function connectedTooLate(ms: number): string {
  return `connecting took longer than ${ms / 1000} s`;
}

/** What a call of a tool of `upstream` is told while the upstream is not ready. */
export function unavailable(upstream: Upstream): string {
  if (upstream.status === 'needs-sign-in') {
    return `Sign in to upstream ${upstream.name} first: a person signs in from the gateway's console (Upstreams, "Sign in").`;
  }
  return `Upstream ${upstream.name} is unavailable${upstream.error ? ` (${upstream.error})` : ''}; the gateway reconnects, try again later.`;
}
