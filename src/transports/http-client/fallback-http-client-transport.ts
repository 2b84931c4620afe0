/**
 * An HTTP client transport that speaks Streamable HTTP to servers that do, and falls back to the
 * legacy HTTP+SSE transport for 2024-11-05 servers, as the spec's backwards-compatibility section
 * describes.
 * @module
 */
import { LocalErrorCode, errorMessage } from '../../protocol/errors.js';
import type { JsonRpcMessage } from '../../protocol/jsonrpc.js';
import type { MessageExtra, SendOptions, Transport } from '../../protocol/transport.js';
import { TransportError } from '../transport-error.js';
import { failureStatus } from './http-failure.js';
import { isStatelessRequest } from './stateless-http-requests.js';
import { OAuthError } from './oauth/oauth-error.js';
import { SseClientTransport } from './sse-client-transport.js';
import {
  StreamableHttpClientTransport,
  type StreamableHttpClientTransportOptions,
} from './streamable-http-client-transport.js';

export interface FallbackHttpClientTransportOptions extends StreamableHttpClientTransportOptions {
  /** How long the legacy transport waits for the `endpoint` event, in ms, from its GET on. Default 30000. */
  endpointTimeoutMs?: number;
}

/** The HTTP statuses to a POSTed initialize that mean "not a Streamable HTTP endpoint" (2025-11-25). */
const FALLBACK_STATUSES: ReadonlySet<number> = new Set([400, 404, 405]);

const isCancellation = (message: JsonRpcMessage | JsonRpcMessage[]) =>
  !Array.isArray(message) && 'method' in message && message.method === 'notifications/cancelled';

/** A failure that decides nothing (a stateless-era request's 400; refused credentials, 401/403). */
class Undecided extends Error {
  constructor(override readonly cause: unknown) {
    super('undecided');
  }
}

/**
 * Decides on the first message it sends, which the Client makes the `initialize` request:
 *
 * 1. POST it to the URL as Streamable HTTP. If the server answers it (JSON or SSE, or a JSON-RPC
 *    error naming the request), the server speaks Streamable HTTP and every later message goes there.
 * 2. If the POST fails with HTTP 400, 404 or 405 and no JSON-RPC error for the request, GET the same
 *    URL as a legacy HTTP+SSE stream and wait for its `endpoint` event; if it arrives, send the
 *    initialize again over the legacy transport and keep using it.
 * 3. A 401 or 403 (refused credentials) rejects the send with the `UNAUTHORIZED` / `FORBIDDEN`
 *    TransportError and its Bearer challenge, and decides nothing: the transport stays open. So does an
 *    `OAuthError` (the `oauth` client could not get credentials).
 * 4. Any other failure (network errors, 500, …), or a legacy attempt that fails too, closes this
 *    transport: the send, and any later one, rejects with a `CONNECTION_CLOSED` TransportError that names
 *    it (`The connection closed: POST … failed: fetch failed (connect ECONNREFUSED …)`, the failure as its
 *    `cause`), which `onerror` reports too, and `onclose` fires after. So the Client's `connect` fails with
 *    that error, not with the engine's bare "The connection closed".
 *
 * When that first message is a stateless-era request (2026-07-28, the Client's `server/discover` probe),
 * the same rules apply, except that a 400 decides nothing: the send rejects, the connection stays up, and
 * the `initialize` the Client falls back to decides (a handshake-era Streamable HTTP server refuses a
 * request without a session with 400). Nor does a 404 or 405 whose HTTP+SSE attempt fails: some
 * handshake-era Streamable HTTP servers refuse a request without a session that way. When the HTTP+SSE
 * attempt succeeds, the server is a 2024-11-05 one, whose first interaction MUST be `initialize`: the
 * probe is not sent over it, its send rejects with a `SEND_FAILED` TransportError, and the HTTP+SSE
 * transport stays chosen for the `initialize` the Client falls back to.
 *
 * `kind` tells which transport was chosen. Messages sent while the decision is pending wait for it.
 */
export class FallbackHttpClientTransport implements Transport {
  onmessage?: (message: unknown, extra?: MessageExtra) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;

  readonly #options: FallbackHttpClientTransportOptions;
  #inner: Transport | undefined;
  /** Every transport attached and not yet closed: `close()` closes them all, the live one and any left over. */
  readonly #attached = new Set<Transport>();
  /** The Streamable HTTP transport, kept across a first attempt that decided nothing. */
  #streamable: StreamableHttpClientTransport | undefined;
  #chosen: Promise<Transport> | undefined;
  #kind: 'streamable-http' | 'sse' | undefined;
  /** Why the first message was not sent over the transport chosen for it (a probe to an HTTP+SSE server). */
  #unsent: Error | undefined;
  #state: 'idle' | 'open' | 'closed' = 'idle';
  /** Why nothing could carry the first message: what every send rejects with from then on. */
  #failure: TransportError | undefined;
  /** The transports attached, closing since that failure. */
  #abandoned: Promise<unknown> | undefined;
  #closeFired = false;

  constructor(options: FallbackHttpClientTransportOptions) {
    new URL(options.url); // throws early on a bad URL
    this.#options = options;
  }

  /** The transport in use, once the first message decided it. */
  get kind(): 'streamable-http' | 'sse' | undefined {
    return this.#kind;
  }

  get sessionId(): string | undefined {
    return this.#inner?.sessionId;
  }

  async start(): Promise<void> {
    if (this.#state !== 'idle') {
      throw new TransportError(LocalErrorCode.AlreadyConnected, 'The HTTP transport was already started');
    }
    this.#state = 'open';
  }

  async send(message: JsonRpcMessage | JsonRpcMessage[], options?: SendOptions): Promise<void> {
    if (this.#state !== 'open') {
      throw this.#state === 'idle'
        ? new TransportError(LocalErrorCode.NotConnected, 'The HTTP transport is not started')
        : (this.#failure ??
            new TransportError(LocalErrorCode.ConnectionClosed, 'The HTTP transport is closed'));
    }
    if (this.#kind === undefined && this.#streamable && isCancellation(message)) {
      // The probe being decided on timed out: its stream closes now, not once the server answers.
      return this.#streamable.send(message, options);
    }
    if (this.#chosen === undefined) {
      this.#chosen = this.#choose(message, options);
      try {
        await this.#chosen;
      } catch (error) {
        if (error instanceof Undecided) {
          this.#chosen = undefined;
          throw error.cause;
        }
        if (this.#state !== 'open') throw error;
        // Nothing could carry the first message: the connection never came up.
        throw this.#fail(error);
      }
      const unsent = this.#unsent;
      this.#unsent = undefined;
      if (unsent) throw unsent;
      return;
    }
    const inner = await this.#chosen.catch((error: unknown) => {
      // What failed the first message, as that send was told.
      throw this.#failure ?? (error instanceof Undecided ? error.cause : error);
    });
    await inner.send(message, options);
  }

  async close(): Promise<void> {
    if (this.#state === 'closed') {
      await this.#abandoned;
      return;
    }
    this.#state = 'closed';
    const attached = [...this.#attached];
    this.#attached.clear();
    await Promise.all(attached.map((inner) => inner.close()));
    this.#fireClose();
  }

  async #openStreamable(): Promise<StreamableHttpClientTransport> {
    if (this.#streamable) return this.#streamable;
    const streamable = new StreamableHttpClientTransport(this.#options);
    this.#streamable = streamable;
    this.#attach(streamable);
    await streamable.start();
    return streamable;
  }

  async #choose(first: JsonRpcMessage | JsonRpcMessage[], options?: SendOptions): Promise<Transport> {
    const streamable = await this.#openStreamable();
    try {
      await streamable.send(first, options);
      this.#kind = 'streamable-http';
      return streamable;
    } catch (error) {
      const status = failureStatus(error);
      if (status === 400 && isStatelessRequest(first) && this.#state === 'open') throw new Undecided(error);
      // Refused credentials decide nothing either: the caller gets the challenge (or the failed OAuth flow),
      // and may retry with a token.
      if ((status === 401 || status === 403) && this.#state === 'open') throw new Undecided(error);
      if (error instanceof OAuthError && this.#state === 'open') throw new Undecided(error);
      if (status === undefined || !FALLBACK_STATUSES.has(status) || this.#state !== 'open') throw error;
      await this.#abandon(streamable);
      this.#streamable = undefined;
      if (!isStatelessRequest(first)) return this.#legacy(first, options, status);
      return this.#legacy(first, options, status).catch((legacyError: unknown) => {
        if (this.#state !== 'open') throw legacyError;
        throw new Undecided(error);
      });
    }
  }

  async #legacy(
    first: JsonRpcMessage | JsonRpcMessage[],
    options: SendOptions | undefined,
    status: number,
  ): Promise<Transport> {
    const legacy = new SseClientTransport(this.#options);
    this.#attach(legacy);
    try {
      await legacy.start();
    } catch (error) {
      await this.#abandon(legacy);
      throw new TransportError(
        LocalErrorCode.ConnectionClosed,
        `${String(this.#options.url)} is neither a Streamable HTTP endpoint (POST got HTTP ${status}) nor an HTTP+SSE endpoint (${errorMessage(error)})`,
        { cause: error, details: { status } },
      );
    }
    this.#kind = 'sse';
    if (isStatelessRequest(first)) {
      // The legacy transport is 2024-11-05's alone, and that revision begins with initialize: the stateless
      // era's probe is not for this server. Its send fails; the transport stays chosen.
      this.#unsent = new TransportError(
        LocalErrorCode.SendFailed,
        `Not sent: ${String(this.#options.url)} is a legacy HTTP+SSE (2024-11-05) endpoint, where initialize comes first`,
        { details: { status, transport: 'sse' } },
      );
      return legacy;
    }
    try {
      await legacy.send(first, options);
    } catch (error) {
      // Its GET stream (and the server's session) must not outlive the attempt.
      this.#kind = undefined;
      await this.#abandon(legacy);
      throw error;
    }
    return legacy;
  }

  /** Wires `inner` to this transport; only the transport in use (`#inner`) speaks for it. */
  #attach(inner: Transport): void {
    this.#inner = inner;
    this.#attached.add(inner);
    inner.onmessage = (message, extra) => {
      if (this.#inner === inner) this.onmessage?.(message, extra);
    };
    inner.onerror = (error) => {
      if (this.#inner === inner) this.onerror?.(error);
    };
    inner.onclose = () => {
      this.#attached.delete(inner);
      // A transport given up on closing late (its stream ended) says nothing of the one in use.
      if (this.#inner !== inner) return;
      this.#state = 'closed';
      this.#fireClose();
    };
  }

  /** Detaches and closes a transport given up on. */
  async #abandon(inner: Transport): Promise<void> {
    inner.onmessage = undefined;
    inner.onerror = undefined;
    inner.onclose = undefined;
    this.#attached.delete(inner);
    if (this.#inner === inner) this.#inner = undefined;
    await inner.close();
  }

  /**
   * The first message could not be carried: the transport closes, with `error` named. The send rejects
   * with the failure before `onclose` fires (on the next turn): the engine fails the request with it, not
   * with its own "The connection closed".
   */
  #fail(error: unknown): TransportError {
    const failure =
      error instanceof TransportError && error.code === LocalErrorCode.ConnectionClosed
        ? error
        : new TransportError(
            LocalErrorCode.ConnectionClosed,
            `The connection closed: ${errorMessage(error)}`,
            {
              cause: error,
              ...(error instanceof TransportError && error.details !== undefined
                ? { details: error.details }
                : {}),
            },
          );
    this.#failure = failure;
    this.#state = 'closed';
    this.onerror?.(failure);
    // Detached first: their own `onclose` would tell the engine before the send's rejection does.
    const abandoned = Promise.all(
      [...this.#attached].map((inner) => this.#abandon(inner).catch(() => undefined)),
    );
    this.#abandoned = abandoned;
    setImmediate(() => void abandoned.then(() => this.#fireClose()));
    return failure;
  }

  #fireClose(): void {
    if (this.#closeFired) return;
    this.#closeFired = true;
    this.onclose?.();
  }
}
