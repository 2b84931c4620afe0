/**
 * A client's connection: the engine (`Peer`) it speaks through, what it learned of the server when it
 * connected (era, revision, capabilities), and how one request is sent in that era — straight through the
 * engine in the handshake era, through the stateless-era channel (result cache, `_meta`, `input_required`
 * rounds) otherwise.
 * @module
 */
import { Peer } from '../protocol/engine/peer.js';
import { LocalErrorCode } from '../protocol/errors.js';
import type { JsonObject } from '../protocol/jsonrpc.js';
import type { Transport } from '../protocol/transport.js';
import type { Implementation } from '../protocol/types/lifecycle.js';
import type { ServerView } from './choose-era.js';
import { ClientError } from './client-error.js';
import type { ClientOptions } from './client-options.js';
import type { ExchangeOptions } from './input-required.js';
import { meetServer } from './meet-server.js';
import type { ModernRequests } from './modern-requests.js';
import { ObservedTransport, type TransportObserver } from './observed-transport.js';

export class ClientConnection {
  readonly peer: Peer;
  /** What the server said it is, once connected. */
  server: ServerView | undefined;
  /** Set in the stateless era. */
  modern: ModernRequests | undefined;

  constructor(options: ClientOptions) {
    this.peer = new Peer({
      defaultTimeout: options.requestTimeout ?? 60_000,
      acceptBatch: () => this.server?.era === 'legacy' && this.server.protocolVersion === '2025-03-26',
    });
    this.peer.onerror = (error) => options.onError?.(error);
  }

  /** The revision in use: negotiated by `initialize`, or chosen from `server/discover`. */
  get protocolVersion(): string | undefined {
    return this.modern?.channel.version ?? this.server?.protocolVersion;
  }

  get serverInfo(): Implementation | undefined {
    return this.modern?.channel.serverInfo ?? this.server?.serverInfo;
  }

  /** Connects through `transport` (watched by `observer`) and meets the server (see `meetServer`). */
  async connect(
    transport: Transport,
    observer: TransportObserver,
    info: Implementation,
    options: ClientOptions,
    timeout: number | undefined,
  ): Promise<void> {
    await this.peer.connect(new ObservedTransport(transport, observer));
    const met = await meetServer(this.peer, info, options, timeout);
    this.server = met.server;
    this.modern = met.modern;
  }

  /** Throws ClientError NOT_CONNECTED before `connect()` succeeded and once the connection closed. */
  requireConnected(): void {
    if (!this.server || this.peer.closed) {
      throw new ClientError(LocalErrorCode.NotConnected, 'The client is not connected');
    }
  }

  /** Sends one request in the era spoken; rejects with NOT_CONNECTED when not connected. */
  request(
    method: string,
    params: JsonObject | undefined,
    options: ExchangeOptions = {},
  ): Promise<JsonObject> {
    try {
      this.requireConnected();
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    if (!this.modern) return this.peer.request(method, params, options);
    return this.modern.request(method, params ?? {}, options);
  }
}
