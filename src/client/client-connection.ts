/**
 * A client's connection: the engine (`Peer`) it speaks through, what it learned of the server when it
 * connected, and the channel of the era it speaks (see `EraChannel`), picked once then: every request
 * goes through the client's request links, then through that channel.
 * @module
 */
import { Peer, type RequestOptions } from '../protocol/engine/peer.js';
import { LocalErrorCode, ToolwireError } from '../protocol/errors.js';
import type { JsonObject } from '../protocol/jsonrpc.js';
import type { Transport } from '../protocol/transport.js';
import type { Implementation, LoggingLevel } from '../protocol/types/lifecycle.js';
import type { ServerView } from './choose-era.js';
import { ClientError } from './client-error.js';
import { ErrorReports } from './error-reports.js';
import { OwnHandlers } from './own-handlers.js';
import type { ClientOptions } from './client-options.js';
import type { EraChannel } from './era-channel.js';
import type { ExchangeOptions, Requester } from './exchange-options.js';
import type { LinkChain } from './links/link-chain.js';
import { meetServer } from './meet-server.js';
import { ObservedTransport, isCredentialsFailure, type TransportObserver } from './observed-transport.js';
import { ProbeWindow, isRestartable } from './probe-window.js';
import { DEFAULT_MAX_QUESTION_BYTES, QuestionBytes } from './question-bytes.js';

const notConnected = () => new ClientError(LocalErrorCode.NotConnected, 'The client is not connected');

export class ClientConnection {
  readonly peer: Peer;
  /** What the server said it is, once connected. */
  server: ServerView | undefined;
  /** Handshake era: the requests in flight with handlers of their own (see `ExchangeOptions.handlers`). */
  readonly own = new OwnHandlers();
  /** Handshake era: what the client holds of the server's questions, at most (`maxQuestionBytes`). */
  readonly questions: QuestionBytes;
  /** What goes to `onError`, rate-limited per kind (see `ErrorReports`). */
  readonly reports: ErrorReports;
  /**
   * Aborts when the connection closes, with the error its requests in flight are rejected with: what ends
   * the work of a request that waits on no answer of the server's (a handler answering its question in the
   * stateless era, the pause between polls of a task).
   */
  readonly closed: AbortSignal;
  readonly #links: LinkChain;
  #channel: EraChannel | undefined;
  /** `request`, for the channel's own requests (`ping`, `logging/setLevel`): through the links too. */
  readonly #request: Requester = (method, params, options) => this.request(method, params, options);

  constructor(options: ClientOptions, links: LinkChain) {
    this.#links = links;
    const closing = new AbortController();
    this.closed = closing.signal;
    const questions = new QuestionBytes(
      options.maxQuestionBytes ?? DEFAULT_MAX_QUESTION_BYTES,
      () => this.peer.waitingBytes,
    );
    this.questions = questions;
    this.peer = new Peer({
      defaultTimeout: options.requestTimeout ?? 60_000,
      admitWaiting: questions.admitWaiting,
      acceptBatch: () => this.server?.era === 'handshake' && this.server.protocolVersion === '2025-03-26',
      closed: () =>
        closing.abort(new ToolwireError(LocalErrorCode.ConnectionClosed, 'The connection closed')),
    });
    this.reports = new ErrorReports(options.onError, options.errorReports);
    this.peer.onerror = this.reports.report;
  }

  /** The channel of the era spoken, once connected. */
  get channel(): EraChannel | undefined {
    return this.#channel;
  }

  /** The revision in use: negotiated by `initialize`, or chosen from `server/discover`. */
  get protocolVersion(): string | undefined {
    return this.#channel?.protocolVersion;
  }

  get serverInfo(): Implementation | undefined {
    return this.#channel?.serverInfo;
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
      const met = await meetServer(this.peer, info, options, {
        timeout,
        fatal: isCredentialsFailure,
        window,
        own: this.own,
        closed: this.closed,
      });
      this.server = met.server;
      this.#channel = met.channel;
    } finally {
      window?.end();
    }
  }

  /** The channel; throws ClientError NOT_CONNECTED before `connect()` succeeded and once the connection closed. */
  requireConnected(): EraChannel {
    const channel = this.#channel;
    if (channel === undefined || this.peer.closed) throw notConnected();
    return channel;
  }

  /** Sends one request through the links, then the era's channel; rejects with NOT_CONNECTED when not connected. */
  request(
    method: string,
    params: JsonObject | undefined,
    options: ExchangeOptions = {},
  ): Promise<JsonObject> {
    const channel = this.#channel;
    if (channel === undefined || this.peer.closed) return Promise.reject(notConnected());
    return this.#links.request({ method, params, options }, channel.send);
  }

  /** Handshake era: `ping`. The stateless era has none: ClientError CAPABILITY_NOT_SUPPORTED. */
  async ping(options?: RequestOptions): Promise<void> {
    await this.requireConnected().ping(this.#request, options);
  }

  /** Handshake era: `logging/setLevel`. Stateless era: the level goes in the `_meta` of every request. */
  async setLoggingLevel(level: LoggingLevel): Promise<void> {
    await this.requireConnected().setLoggingLevel(level, this.#request);
  }

  /** Stateless era: opens a `subscriptions/listen` stream (see `ListenStream`). */
  listen(params: JsonObject, options: RequestOptions): Promise<JsonObject> {
    const channel = this.#channel;
    return channel === undefined ? Promise.reject(notConnected()) : channel.listen(params, options);
  }
}
