/**
 * A transport wrapper that lets the client see what passes through before the engine does: the id the
 * engine gave an outgoing request (the `subscriptions/listen` stream is named after it), and incoming
 * messages (a stdio server ends a listen stream with `notifications/cancelled` naming that id, which the
 * engine, knowing only the requests it serves, would ignore). Everything else is the inner transport's.
 * @module
 */
import { LocalErrorCode, ToolwireError } from '../protocol/errors.js';
import type { JsonRpcMessage } from '../protocol/jsonrpc.js';
import type { OutputBacklog, SendOptions, Transport } from '../protocol/transport.js';

export interface TransportObserver {
  /** A message is about to be sent. */
  outgoing?(message: JsonRpcMessage): void;
  /** A message arrived, before the engine dispatches it. */
  incoming?(message: unknown): void;
}

/**
 * Whether `error` is an HTTP transport's refusal of the credentials (401 or 403), or a failure to get
 * them (an OAuth client's `AUTHORIZATION_FAILED`): no other era or transport would fix it.
 */
export function isCredentialsFailure(error: unknown): boolean {
  if (!(error instanceof ToolwireError)) return false;
  if (error.code === LocalErrorCode.AuthorizationFailed) return true;
  const status = (error.details as { status?: unknown } | undefined)?.status;
  return status === 401 || status === 403;
}

export class ObservedTransport implements Transport {
  readonly #inner: Transport;
  readonly #observer: TransportObserver;

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

  set onmessage(listener: Transport['onmessage']) {
    this.#inner.onmessage =
      listener &&
      ((message, extra) => {
        this.#observer.incoming?.(message);
        listener(message, extra);
      });
  }

  get onmessage(): Transport['onmessage'] {
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
    return this.#inner.send(message, options);
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  closeStream(relatedRequestId: Parameters<NonNullable<Transport['closeStream']>>[0]): void {
    this.#inner.closeStream?.(relatedRequestId);
  }

  /** The inner transport's backlog, where it has one (the engine paces the server's requests by it). */
  get backlog(): OutputBacklog | undefined {
    return this.#inner.backlog;
  }

  set ondrain(listener: (() => void) | undefined) {
    this.#inner.ondrain = listener;
  }

  get ondrain(): (() => void) | undefined {
    return this.#inner.ondrain;
  }

  holdInput(hold: boolean): void {
    this.#inner.holdInput?.(hold);
  }
}
