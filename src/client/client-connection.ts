/**
 * A client's connection: the engine (`Peer`) it speaks through, what it learned of the server when it
 * connected (era, revision, capabilities), and how one request is sent: through the client's request links,
 * then in the era spoken — straight through the engine in the handshake era, through the stateless-era
 * channel (result cache, `_meta`, `input_required` rounds) otherwise.
 * @module
 */
import { Peer, type RequestOptions } from '../protocol/engine/peer.js';
import { LocalErrorCode, asError } from '../protocol/errors.js';
import type { JsonObject } from '../protocol/jsonrpc.js';
import type { Transport } from '../protocol/transport.js';
import { isLoggingLevel, type Implementation, type LoggingLevel } from '../protocol/types/lifecycle.js';
import type { ServerView } from './choose-era.js';
import { ClientError } from './client-error.js';
import { OwnHandlers } from './client-handlers.js';
import type { ClientOptions } from './client-options.js';
import type { ExchangeOptions } from './exchange-options.js';
import type { LinkChain } from './links/link-chain.js';
import { meetServer } from './meet-server.js';
import type { StatelessChannel } from './stateless/stateless-channel.js';
import { ObservedTransport, isCredentialsFailure, type TransportObserver } from './observed-transport.js';
import { ProbeWindow, isRestartable } from './probe-window.js';

export class ClientConnection {
  readonly peer: Peer;
  /** What the server said it is, once connected. */
  server: ServerView | undefined;
  /** Set in the stateless era. */
  stateless: StatelessChannel | undefined;

  /** Handshake era: the requests in flight with handlers of their own (see `ExchangeOptions.handlers`). */
  readonly own = new OwnHandlers();
  readonly #links: LinkChain;

  constructor(options: ClientOptions, links: LinkChain) {
    this.#links = links;
    this.peer = new Peer({
      defaultTimeout: options.requestTimeout ?? 60_000,
      acceptBatch: () => this.server?.era === 'handshake' && this.server.protocolVersion === '2025-03-26',
    });
    this.peer.onerror = (error) => options.onError?.(error);
  }

  /** The revision in use: negotiated by `initialize`, or chosen from `server/discover`. */
  get protocolVersion(): string | undefined {
    return this.stateless?.sender.version ?? this.server?.protocolVersion;
  }

  get serverInfo(): Implementation | undefined {
    return this.stateless?.sender.serverInfo ?? this.server?.serverInfo;
  }

  /**
   * Connects through `transport` (watched by `observer`) and meets the server (see `meetServer`). In
   * `auto` mode, a transport that can start its server again is watched by a ProbeWindow while the era
   * is chosen: a server that exits on the probe is started again.
   */
  async connect(
    transport: Transport,
    observer: TransportObserver,
    info: Implementation,
    options: ClientOptions,
    timeout: number | undefined,
  ): Promise<void> {
    const auto = (options.protocolVersion ?? 'auto') === 'auto';
    const window = auto && isRestartable(transport) ? new ProbeWindow(transport) : undefined;
    await this.peer.connect(new ObservedTransport(window ?? transport, observer));
    try {
      const met = await meetServer(this.peer, info, options, timeout, isCredentialsFailure, window);
      this.server = met.server;
      this.stateless = met.stateless;
    } finally {
      window?.end();
    }
  }

  /** Throws ClientError NOT_CONNECTED before `connect()` succeeded and once the connection closed. */
  requireConnected(): void {
    if (!this.server || this.peer.closed) {
      throw new ClientError(LocalErrorCode.NotConnected, 'The client is not connected');
    }
  }

  /** Sends one request through the links, in the era spoken; rejects with NOT_CONNECTED when not connected. */
  request(
    method: string,
    params: JsonObject | undefined,
    options: ExchangeOptions = {},
  ): Promise<JsonObject> {
    try {
      this.requireConnected();
    } catch (error) {
      return Promise.reject(asError(error));
    }
    return this.#links.request({ method, params, options }, (out) =>
      this.stateless
        ? this.stateless.request(out.method, out.params ?? {}, out.options)
        : this.own.track(out.options.handlers, this.peer.request(out.method, out.params, out.options)),
    );
  }

  /** Handshake era: `ping`. The stateless era has none: ClientError CAPABILITY_NOT_SUPPORTED. */
  async ping(options?: RequestOptions): Promise<void> {
    this.requireConnected();
    if (this.stateless) {
      throw new ClientError(
        LocalErrorCode.CapabilityNotSupported,
        `ping does not exist in protocol version ${this.stateless.sender.version}`,
      );
    }
    await this.request('ping', undefined, options);
  }

  /** Handshake era: `logging/setLevel`. Stateless era: the level goes in the `_meta` of every request. */
  async setLoggingLevel(level: LoggingLevel): Promise<void> {
    this.requireConnected();
    if (!this.stateless) {
      await this.request('logging/setLevel', { level });
      return;
    }
    if (!isLoggingLevel(level)) throw new TypeError(`Unknown logging level ${JSON.stringify(level)}`);
    this.stateless.sender.logLevel = level;
  }
}
