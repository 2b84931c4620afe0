/**
 * A transport wrapper that lets the client see what passes through before the engine does: the id the
 * engine gave an outgoing request (the `subscriptions/listen` stream is named after it), and incoming
 * messages (a stdio server ends a listen stream with `notifications/cancelled` naming that id, which the
 * engine, knowing only the requests it serves, would ignore). Everything else is the inner transport's
 * (`TransportWrapper`).
 * @module
 */
import { LocalErrorCode, ToolwireError } from '../protocol/errors.js';
import type { JsonRpcMessage } from '../protocol/jsonrpc.js';
import type { SendOptions, Transport } from '../protocol/transport.js';
import { TransportWrapper } from '../protocol/transport-wrapper.js';

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

export class ObservedTransport extends TransportWrapper {
  readonly #observer: TransportObserver;

  constructor(inner: Transport, observer: TransportObserver) {
    super(inner);
    this.#observer = observer;
  }

  override set onmessage(listener: Transport['onmessage']) {
    this.inner.onmessage =
      listener &&
      ((message, extra) => {
        this.#observer.incoming?.(message);
        listener(message, extra);
      });
  }

  override get onmessage(): Transport['onmessage'] {
    return this.inner.onmessage;
  }

  override send(message: JsonRpcMessage | JsonRpcMessage[], options?: SendOptions): Promise<void> {
    if (!Array.isArray(message)) this.#observer.outgoing?.(message);
    return this.inner.send(message, options);
  }
}
