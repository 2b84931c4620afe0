/**
 * A transport wrapper that lets the client see what passes through before the engine does: the id the
 * engine gave an outgoing request (the `subscriptions/listen` stream is named after it), and incoming
 * messages (a stdio server ends a listen stream with `notifications/cancelled` naming that id, which the
 * engine, knowing only the requests it serves, would ignore), and the transport's own error when sending
 * a request fails (the engine answers the request with a `-32603 Send failed: …` ProtocolError; the client
 * hands its caller the transport's error instead, e.g. a 401 TransportError with the Bearer challenge).
 * Everything else is the inner transport's.
 * @module
 */
import { ErrorCode, ProtocolError, ToolwireError, errorMessage } from '../protocol/errors.js';
import type { JsonRpcMessage } from '../protocol/jsonrpc.js';
import type { SendOptions, Transport } from '../protocol/transport.js';

export interface TransportObserver {
  /** A message is about to be sent. */
  outgoing?(message: JsonRpcMessage): void;
  /** A message arrived, before the engine dispatches it. */
  incoming?(message: unknown): void;
}

/** Send failures kept for their callers (the oldest dropped past this). */
const KEPT_FAILURES = 32;

/** Whether `error` is an HTTP transport's refusal of the credentials (401 or 403). */
export function isCredentialsFailure(error: unknown): boolean {
  if (!(error instanceof ToolwireError)) return false;
  const status = (error.details as { status?: unknown } | undefined)?.status;
  return status === 401 || status === 403;
}

export class ObservedTransport implements Transport {
  readonly #inner: Transport;
  readonly #observer: TransportObserver;
  /** The transport's errors of failed request sends, by the message the engine turned each into. */
  readonly #failures = new Map<string, Error>();

  constructor(inner: Transport, observer: TransportObserver) {
    this.#inner = inner;
    this.#observer = observer;
  }

  get inner(): Transport {
    return this.#inner;
  }

  get sessionId(): string | undefined {
    return this.#inner.sessionId;
  }

  set onmessage(listener: ((message: unknown) => void) | undefined) {
    this.#inner.onmessage =
      listener &&
      ((message) => {
        this.#observer.incoming?.(message);
        listener(message);
      });
  }

  get onmessage(): ((message: unknown) => void) | undefined {
    return this.#inner.onmessage;
  }

  set onerror(listener: ((error: Error) => void) | undefined) {
    this.#inner.onerror = listener;
  }

  get onerror(): ((error: Error) => void) | undefined {
    return this.#inner.onerror;
  }

  set onclose(listener: (() => void) | undefined) {
    this.#inner.onclose = listener;
  }

  get onclose(): (() => void) | undefined {
    return this.#inner.onclose;
  }

  start(): Promise<void> {
    return this.#inner.start();
  }

  send(message: JsonRpcMessage | JsonRpcMessage[], options?: SendOptions): Promise<void> {
    if (!Array.isArray(message)) this.#observer.outgoing?.(message);
    const sent = this.#inner.send(message, options);
    if (Array.isArray(message) || !('method' in message) || !('id' in message)) return sent;
    return sent.catch((error: unknown) => {
      if (error instanceof ToolwireError) {
        this.#failures.set(`Send failed: ${errorMessage(error)}`, error);
        if (this.#failures.size > KEPT_FAILURES) this.#failures.delete(this.#failures.keys().next().value!);
      }
      throw error;
    });
  }

  /** The transport's error behind the engine's `Send failed: …` error, or `error` itself. */
  original(error: unknown): unknown {
    if (!(error instanceof ProtocolError) || error.code !== ErrorCode.InternalError) return error;
    return this.#failures.get(error.message) ?? error;
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  closeStream(relatedRequestId: Parameters<NonNullable<Transport['closeStream']>>[0]): void {
    this.#inner.closeStream?.(relatedRequestId);
  }
}
