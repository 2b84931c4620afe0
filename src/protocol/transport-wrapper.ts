/**
 * The base of a transport that wraps another: every member of `Transport` reaches the inner transport unless
 * a subclass overrides it, so a wrapper writes only what it changes. The client's wrappers listed what they
 * passed on, each its own copy of the same dozen members; the next member the interface gains (as the
 * engine's pacing did: `backlog`, `ondrain`, `holdInput`) would be forgotten in one of them, and a wrapper
 * that drops `backlog` or `holdInput` turns the engine's pacing off without a word.
 *
 * An accessor is overridden whole: a subclass that defines only the setter of `onmessage` hides the getter.
 * @module
 */
import type { JsonRpcMessage, RequestId } from './jsonrpc.js';
import type { MessageExtra, OutputBacklog, SendOptions, Transport } from './transport.js';

export class TransportWrapper<Inner extends Transport = Transport> implements Transport {
  /** The wrapped transport. */
  protected readonly inner: Inner;

  constructor(inner: Inner) {
    this.inner = inner;
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  send(message: JsonRpcMessage | JsonRpcMessage[], options?: SendOptions): Promise<void> {
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  set onmessage(listener: ((message: unknown, extra?: MessageExtra) => void) | undefined) {
    this.inner.onmessage = listener;
  }

  get onmessage(): ((message: unknown, extra?: MessageExtra) => void) | undefined {
    return this.inner.onmessage;
  }

  set onerror(listener: ((error: Error) => void) | undefined) {
    this.inner.onerror = listener;
  }

  get onerror(): ((error: Error) => void) | undefined {
    return this.inner.onerror;
  }

  set onclose(listener: (() => void) | undefined) {
    this.inner.onclose = listener;
  }

  get onclose(): (() => void) | undefined {
    return this.inner.onclose;
  }

  set onend(listener: (() => void) | undefined) {
    this.inner.onend = listener;
  }

  get onend(): (() => void) | undefined {
    return this.inner.onend;
  }

  closeStream(relatedRequestId: RequestId): void {
    this.inner.closeStream?.(relatedRequestId);
  }

  /** The inner transport's backlog, where it has one (the engine paces what it starts by it). */
  get backlog(): OutputBacklog | undefined {
    return this.inner.backlog;
  }

  set ondrain(listener: (() => void) | undefined) {
    this.inner.ondrain = listener;
  }

  get ondrain(): (() => void) | undefined {
    return this.inner.ondrain;
  }

  holdInput(hold: boolean): void {
    this.inner.holdInput?.(hold);
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  get perRequest(): boolean | undefined {
    return this.inner.perRequest;
  }

  get clientAddress(): string | undefined {
    return this.inner.clientAddress;
  }
}
