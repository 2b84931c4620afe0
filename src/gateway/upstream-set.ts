/**
 * The gateway's upstreams by name, and their lifecycle: each one added from the configuration, started,
 * brought in line with a new configuration (added, removed, replaced), closed. What an upstream's listing
 * changes reaches the server's exposed tools, resources and prompts, and the listeners (`upstream.status`,
 * `tools.changed`); a removed upstream's entries, subscriptions and grants go with it. The calls parked
 * on an upstream (parked-calls.ts) are let go when it goes down or is removed.
 * @module
 */
import type { CallsInFlight } from './calls-in-flight.js';
import {
  LocalErrorCode,
  errorMessage,
  type Implementation,
  type LoggingMessageParams,
  type Root,
} from '../index.js';
import type { OAuthStore } from '../transports/http-client/index.js';
import type { Approvals } from './approvals.js';
import type { ExposedCatalog } from './exposed-catalog.js';
import type { ExposedTools } from './exposed-tools.js';
import { GATEWAY_DEFAULTS, type GatewayConfig } from './gateway-config.js';
import { GatewayError } from './gateway-error.js';
import type { GatewayEvents } from './gateway-events.js';
import type { ParkedCalls } from './parked-calls.js';
import { upstreamView, type UpstreamView } from './gateway-views.js';
import { SESSIONLESS } from './relayed-input.js';
import type { ResourceSubscriptions } from './resource-subscriptions.js';
import { Upstream, type UpstreamChange, type UpstreamHooks } from './upstream.js';

/** What the upstreams reach of the gateway. */
export interface UpstreamSetOptions {
  /** How the gateway introduces itself to upstreams. */
  clientInfo: Implementation;
  /** Where OAuth-protected upstreams' tokens are kept. */
  oauthStore: OAuthStore;
  /** The configuration in force (its reconnection delays are read when an upstream is added). */
  config: () => GatewayConfig;
  tools: ExposedTools;
  catalog: ExposedCatalog;
  subscriptions: ResourceSubscriptions;
  /** The grants of a removed upstream are forgotten. */
  approvals: Approvals;
  /** The calls parked on an upstream that goes down or is removed are cancelled. */
  parked: ParkedCalls;
  events: GatewayEvents;
  /** A log message from an upstream (`notifications/message`). */
  log: (upstream: Upstream, params: LoggingMessageParams) => void;
  /** The requests in flight on each upstream: whose a question that names none is (`UpstreamHooks.owner`). */
  inFlight: CallsInFlight;
  /** The gateway's own roots (`UpstreamHooks.roots`). */
  roots: () => Promise<Root[]> | Root[];
  /** An upstream completed a URL-mode elicitation (see `UpstreamHooks.elicitationComplete`). */
  elicitationComplete: (upstream: Upstream, elicitationId: string) => void;
  /** A warning, of one upstream or of the gateway. */
  warn: (message: string, upstream?: string) => void;
}

export class UpstreamSet {
  readonly #upstreams = new Map<string, Upstream>();
  readonly #options: UpstreamSetOptions;

  constructor(options: UpstreamSetOptions) {
    this.#options = options;
  }

  /** Connects every upstream; resolves once each has been tried once. */
  async start(): Promise<void> {
    await Promise.all([...this.#upstreams.values()].map((upstream) => upstream.start()));
  }

  /** Closes every upstream (a stdio upstream's process is ended). */
  async close(): Promise<void> {
    await Promise.all([...this.#upstreams.values()].map((upstream) => upstream.close()));
  }

  /** The gateway's roots changed: every upstream's server hears so (see `Upstream.rootsChanged`). */
  rootsChanged(): void {
    for (const upstream of this.#upstreams.values()) upstream.rootsChanged();
  }

  /** The view of each upstream, with the namespaced names of its exposed tools. */
  views(): UpstreamView[] {
    const tools = this.#options.tools;
    return [...this.#upstreams.values()].map((upstream) =>
      upstreamView(
        upstream,
        tools.names().filter((name) => tools.get(name)?.upstream === upstream),
      ),
    );
  }

  /** Starts a person's sign-in to the upstream `name` (see `Gateway.signIn`). */
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

  /** Completes the sign-in `callbackUrl`'s state names, then connects its upstream (see `Gateway.completeSignIn`). */
  async completeSignIn(callbackUrl: string | URL): Promise<UpstreamView> {
    const callback = new URL(callbackUrl);
    for (const upstream of this.#upstreams.values()) {
      if (!(await upstream.oauth?.complete(callback))) continue;
      await upstream.reconnect();
      return this.views().find((view) => view.name === upstream.name)!;
    }
    throw new GatewayError(
      LocalErrorCode.SignInNotFound,
      'No sign-in under way has this state (it finished, expired, or was never started here)',
    );
  }

  /**
   * From the upstreams of `before` to those of `next`: removed ones closed (their tools go), changed ones
   * replaced, added ones connected; with `renamed`, the kept ones' entries are named again. Resolves once
   * the new upstreams were tried once.
   */
  async reconfigure(
    before: GatewayConfig['upstreams'],
    next: GatewayConfig['upstreams'],
    renamed: boolean,
  ): Promise<void> {
    const closing: Promise<void>[] = [];
    const starting: Promise<void>[] = [];
    for (const [name, upstream] of this.#upstreams) {
      const wanted = next[name];
      if (wanted !== undefined && JSON.stringify(wanted) === JSON.stringify(before[name])) continue;
      closing.push(this.#remove(upstream));
    }
    await Promise.all(closing);
    for (const [name, upstream] of Object.entries(next)) {
      if (this.#upstreams.has(name)) {
        if (renamed) this.#sync(this.#upstreams.get(name)!, 'status');
        continue;
      }
      starting.push(this.add(name, upstream).start());
    }
    await Promise.all(starting);
  }

  /** Adds an upstream (not started). */
  add(name: string, config: GatewayConfig['upstreams'][string]): Upstream {
    const upstream = new Upstream(name, config, this.#hooks());
    this.#upstreams.set(name, upstream);
    return upstream;
  }

  async #remove(upstream: Upstream): Promise<void> {
    const { tools, catalog, subscriptions, approvals, parked, warn } = this.#options;
    this.#upstreams.delete(upstream.name);
    parked.release(
      upstream.name,
      new Error(`Upstream ${upstream.name} was removed; the parked call is cancelled`),
    );
    tools.drop(upstream);
    catalog.drop(upstream);
    subscriptions.drop(upstream);
    await approvals
      .forgetUpstream(upstream.name)
      .catch((error: unknown) =>
        warn(`the grants of ${upstream.name} could not be forgotten: ${errorMessage(error)}`),
      );
    await upstream.close();
  }

  #hooks(): UpstreamHooks {
    const { clientInfo, oauthStore, subscriptions, log, elicitationComplete, warn, inFlight, roots } =
      this.#options;
    const reconnect = this.#options.config().reconnect;
    return {
      clientInfo,
      changed: (upstream, what) => this.#sync(upstream, what),
      updated: (upstream, uri) => subscriptions.updated(upstream, uri),
      connected: (upstream, client) => subscriptions.resubscribe(upstream, client),
      log,
      owner: (upstream) => {
        const owner = inFlight.owner(upstream.name);
        return owner?.handlers ?? (owner?.sessionless === true ? SESSIONLESS : undefined);
      },
      roots,
      elicitationComplete,
      warn: (upstream, message) => warn(`upstream ${upstream.name}: ${message}`, upstream.name),
      reconnect: {
        initialDelayMs: reconnect?.initialDelayMs ?? GATEWAY_DEFAULTS.reconnectInitialDelayMs,
        maxDelayMs: reconnect?.maxDelayMs ?? GATEWAY_DEFAULTS.reconnectMaxDelayMs,
        checkIntervalMs: reconnect?.checkIntervalMs ?? GATEWAY_DEFAULTS.reconnectCheckIntervalMs,
      },
      oauthStore,
    };
  }

  #sync(upstream: Upstream, what: UpstreamChange): void {
    if (this.#upstreams.get(upstream.name) !== upstream) return; // removed meanwhile
    const { tools, catalog, events, parked } = this.#options;
    if (what === 'status') {
      const event = { type: 'upstream.status', upstream: upstream.name, status: upstream.status } as const;
      events.emit(upstream.error === undefined ? event : { ...event, error: upstream.error });
      // Its connection is gone: a call parked there gets no answer from it. Its place is freed now, not
      // when the upstream's client closes (which ends the call as well).
      if (upstream.status !== 'ready') {
        parked.release(
          upstream.name,
          new Error(`Upstream ${upstream.name} is ${upstream.status}; the parked call is cancelled`),
        );
      }
    }
    if (upstream.status === 'closed') return;
    if (what === 'status' || what === 'tools') {
      tools.sync(upstream);
      events.emit({ type: 'tools.changed', tools: tools.names() });
    }
    if (what !== 'tools') catalog.sync(upstream);
  }
}
