/**
 * Resource subscriptions through the gateway. A downstream `resources/subscribe` (handshake era) or a
 * `subscriptions/listen` stream naming `resourceSubscriptions` (stateless era) for a URI an upstream
 * exposes subscribes that upstream (once, however many callers hold the URI); the last holder's
 * `resources/unsubscribe` (or its stream ending, or its session going) unsubscribes it. The upstream's
 * `notifications/resources/updated` for a held URI reaches the subscribed downstream sessions, URI kept.
 * After a reconnect the upstream is subscribed again to every URI still held, before it is `ready`.
 * @module
 */
import {
  ErrorCode,
  ProtocolError,
  errorMessage,
  isJsonObject,
  type Client,
  type JsonObject,
} from '../index.js';
import type { RequestMiddleware, Server, ServerRequest } from '../server/index.js';
import type { SessionStore } from '../stores/session-store.js';
import type { Upstream } from './upstream.js';

/** The holder of the connections without an HTTP session id (stdio, in memory, stateless HTTP). */
const LOCAL = '\u0000local';

/** URIs held at once, across callers: past this, a subscription is refused. */
const MAX_HELD_URIS = 10_000;

/** The upstream that exposes a URI (as a resource, or by a template), if any. */
export type ResourceOwner = (uri: string) => Upstream | undefined;

/**
 * Where the sessions' records are when instances share them: a session with no copy here may be served by
 * another instance, and still hold its subscriptions there (undefined: sessions live in this instance).
 */
export type SharedSessionRecords = () => SessionStore | undefined;

export class ResourceSubscriptions {
  readonly #server: Server;
  readonly #owner: ResourceOwner;
  readonly #warn: (upstream: Upstream, message: string) => void;
  readonly #records: SharedSessionRecords;
  /** URI → who holds it (a session id, or a listen stream's own key) and the upstream it was asked of. */
  readonly #held = new Map<string, { upstream: Upstream; holders: Set<string> }>();
  #streams = 0;
  /** URIs held since the last prune: a prune walks every holder, so it runs once per as many new URIs. */
  #added = 0;

  constructor(
    server: Server,
    owner: ResourceOwner,
    warn: (upstream: Upstream, message: string) => void,
    records: SharedSessionRecords = () => undefined,
  ) {
    this.#server = server;
    this.#owner = owner;
    this.#warn = warn;
    this.#records = records;
  }

  /** The methods the middleware sees: no other request passes through it. */
  static readonly methods: readonly string[] = Object.freeze([
    'resources/subscribe',
    'resources/unsubscribe',
    'subscriptions/listen',
  ]);

  /** The request middleware that sees subscriptions come and go (installed for the `methods` only). */
  readonly middleware: RequestMiddleware = (request, next) => {
    switch (request.method) {
      case 'resources/subscribe':
        return this.#subscribe(request, next);
      case 'resources/unsubscribe':
        return this.#unsubscribe(request, next);
      case 'subscriptions/listen':
        return this.#listen(request, next);
      default:
        return next();
    }
  };

  async #subscribe(request: ServerRequest, next: () => Promise<JsonObject>): Promise<JsonObject> {
    const uri = uriOf(request);
    await this.#hold(uri, holderOf(request));
    return next();
  }

  async #unsubscribe(request: ServerRequest, next: () => Promise<JsonObject>): Promise<JsonObject> {
    const result = await next();
    this.#release(uriOf(request), holderOf(request));
    return result;
  }

  /**
   * An upstream's `notifications/resources/updated`: passed on to the subscribed sessions when the URI is
   * held of that upstream (another upstream cannot speak for a URI it does not expose).
   */
  updated(upstream: Upstream, uri: string): void {
    if (this.#held.get(uri)?.upstream !== upstream) return;
    void this.#server.notifyResourceUpdated(uri).catch(() => undefined);
  }

  /**
   * The upstream is back (connected, not yet ready): subscribes it again to every URI held of it, and
   * resolves once each was answered (a failure is a warning).
   */
  async resubscribe(upstream: Upstream, client: Client): Promise<void> {
    this.#prune();
    const uris = [...this.#held].filter(([, entry]) => entry.upstream === upstream).map(([uri]) => uri);
    await Promise.all(
      uris.map((uri) =>
        this.#subscribeUpstream(upstream, uri, client).catch((error: unknown) =>
          this.#warn(upstream, `subscribing again to ${uri} failed: ${errorMessage(error)}`),
        ),
      ),
    );
  }

  /** The upstream left the configuration: its URIs are no longer held. */
  drop(upstream: Upstream): void {
    for (const [uri, entry] of this.#held) if (entry.upstream === upstream) this.#held.delete(uri);
  }

  async #listen(request: ServerRequest, next: () => Promise<JsonObject>): Promise<JsonObject> {
    const notifications = request.params.notifications;
    const uris = isJsonObject(notifications) ? notifications.resourceSubscriptions : undefined;
    if (!Array.isArray(uris)) return next();
    const holder = `\u0000listen ${++this.#streams}`;
    const held: string[] = [];
    try {
      for (const uri of new Set(uris)) {
        if (typeof uri !== 'string') continue;
        // A URI the upstream refuses is left out of this stream's upstream subscriptions, not fatal.
        const ok = await this.#hold(uri, holder).then(
          () => true,
          () => false,
        );
        if (ok) held.push(uri);
      }
      return await next();
    } finally {
      for (const uri of held) this.#release(uri, holder);
    }
  }

  async #hold(uri: string, holder: string): Promise<void> {
    const upstream = this.#owner(uri);
    if (!upstream) return; // not an upstream's: the gateway's server answers as it would
    const entry = this.#held.get(uri);
    if (entry?.upstream === upstream) {
      entry.holders.add(holder);
      return;
    }
    if (++this.#added >= Math.max(64, this.#held.size) || this.#held.size >= MAX_HELD_URIS) this.#prune();
    if (!entry && this.#held.size >= MAX_HELD_URIS) {
      throw new ProtocolError(
        ErrorCode.InternalError,
        `The gateway holds ${MAX_HELD_URIS} resource subscriptions already; try again later`,
      );
    }
    await this.#subscribeUpstream(upstream, uri);
    const now = this.#held.get(uri);
    if (now?.upstream === upstream) now.holders.add(holder);
    else this.#held.set(uri, { upstream, holders: new Set([holder]) });
  }

  #release(uri: string, holder: string): void {
    const entry = this.#held.get(uri);
    if (!entry?.holders.delete(holder) || entry.holders.size > 0) return;
    this.#held.delete(uri);
    const client = entry.upstream.client;
    if (client && entry.upstream.status === 'ready' && subscribable(client)) {
      void client.unsubscribeResource(uri).catch(() => undefined);
    }
  }

  /** Subscribes the upstream (through `client` while it reconnects, else its ready one). */
  async #subscribeUpstream(upstream: Upstream, uri: string, client = readyClient(upstream)): Promise<void> {
    if (!client || !subscribable(client)) return;
    try {
      await client.subscribeResource(uri, { timeout: Math.min(upstream.timeoutMs, 30_000) });
    } catch (error) {
      if (error instanceof ProtocolError) throw error; // the upstream's refusal, as it sent it
      upstream.failed(error);
      throw new ProtocolError(
        ErrorCode.InternalError,
        `Upstream ${upstream.name} could not subscribe to ${uri}: ${errorMessage(error)}`,
      );
    }
  }

  /**
   * Forgets the holders whose session is gone (their subscriptions went with it): an HTTP session by its
   * id (a shared one by its record); the connections without one (stdio, in memory, stateless HTTP
   * exchanges) once none is left.
   */
  #prune(): void {
    this.#added = 0;
    const live = new Set<string>();
    let anonymous = false;
    for (const connection of this.#server.connections) {
      const id = connection.sessionId;
      if (id === undefined) anonymous = true;
      else live.add(id);
    }
    const records = this.#records();
    for (const [uri, entry] of this.#held) {
      for (const holder of entry.holders) {
        if (holder === LOCAL) {
          if (!anonymous) this.#release(uri, holder);
        } else if (holder.startsWith('session ') && !live.has(holder.slice(8))) {
          if (records) void this.#releaseIfUnsubscribed(records, uri, holder);
          else this.#release(uri, holder);
        }
      }
    }
  }

  /**
   * A shared session with no copy here: released once its record is gone (the session ended) or no longer
   * names the URI (unsubscribed through another instance). A record that cannot be read keeps it held.
   */
  async #releaseIfUnsubscribed(records: SessionStore, uri: string, holder: string): Promise<void> {
    try {
      const record = await records.get(holder.slice(8));
      if (!record?.subscriptions?.includes(uri)) this.#release(uri, holder);
    } catch {
      // Redis out of reach: the next prune looks again.
    }
  }
}

/** Whether the server takes `resources/subscribe` (its `resources.subscribe`; the stateless era always). */
function subscribable(client: Client): boolean {
  return client.era === 'stateless' || client.serverCapabilities?.resources?.subscribe === true;
}

function readyClient(upstream: Upstream): Client | undefined {
  return upstream.status === 'ready' ? upstream.client : undefined;
}

function uriOf(request: ServerRequest): string {
  const uri = request.params.uri;
  if (typeof uri !== 'string')
    throw new ProtocolError(ErrorCode.InvalidParams, 'params.uri must be a string');
  return uri;
}

/** Who holds a handshake-era subscription: its HTTP session, or the one connection (stdio). */
function holderOf(request: ServerRequest): string {
  return request.sessionId === undefined ? LOCAL : `session ${request.sessionId}`;
}
