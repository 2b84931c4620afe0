/**
 * An in-process transport pair (`toolwire/in-memory`), for tests and for embedding a server
 * and a client in one process. Messages take a JSON round trip, so each side sees exactly what
 * the wire would carry. Everything exported here is public API.
 * @module toolwire/in-memory
 */
import { LocalErrorCode, asError } from '../protocol/errors.js';
import type { JsonRpcMessage } from '../protocol/jsonrpc.js';
import type { Transport } from '../protocol/transport.js';
import { TransportError } from './transport-error.js';

export { TransportError } from './transport-error.js';

/**
 * One end of a linked pair. Delivery is asynchronous (a microtask) and in order; messages sent
 * before the other end's `start()` are queued and delivered once it starts. `close()` on either
 * end closes both; each end's `onclose` fires once.
 */
export class InMemoryTransport implements Transport {
  onmessage?: (message: unknown) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  readonly sessionId: string | undefined = undefined;

  private peer: InMemoryTransport | undefined;
  private started = false;
  private closed = false;
  private readonly inbox: unknown[] = [];
  private flushScheduled = false;

  /** Two linked ends: `[client, server]`. */
  static createLinkedPair(): [InMemoryTransport, InMemoryTransport] {
    const client = new InMemoryTransport();
    const server = new InMemoryTransport();
    client.peer = server;
    server.peer = client;
    return [client, server];
  }

  async start(): Promise<void> {
    if (this.closed) throw new TransportError(LocalErrorCode.ConnectionClosed, 'The transport is closed');
    if (this.started) {
      throw new TransportError(LocalErrorCode.AlreadyConnected, 'The transport is already started');
    }
    this.started = true;
    this.scheduleFlush();
  }

  async send(message: JsonRpcMessage | JsonRpcMessage[]): Promise<void> {
    if (this.closed) throw new TransportError(LocalErrorCode.ConnectionClosed, 'The transport is closed');
    const peer = this.peer;
    if (!peer) throw new TransportError(LocalErrorCode.NotConnected, 'The transport has no peer');
    // What the wire would carry: undefined dropped, no shared references.
    peer.receive(JSON.parse(JSON.stringify(message)) as unknown);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.inbox.length = 0;
    this.onclose?.();
    await this.peer?.close();
  }

  private receive(message: unknown): void {
    if (this.closed) return;
    this.inbox.push(message);
    this.scheduleFlush();
  }

  private scheduleFlush(): void {
    if (!this.started || this.flushScheduled || this.inbox.length === 0) return;
    this.flushScheduled = true;
    queueMicrotask(() => this.flush());
  }

  private flush(): void {
    this.flushScheduled = false;
    const batch = this.inbox.splice(0);
    for (const message of batch) {
      if (this.closed) return;
      try {
        this.onmessage?.(message);
      } catch (error) {
        const failure = asError(error);
        if (this.onerror) this.onerror(failure);
        else
          queueMicrotask(() => {
            throw failure;
          });
      }
    }
  }
}

/** Two linked in-memory transports: `[client end, server end]`. */
export function createLinkedPair(): [InMemoryTransport, InMemoryTransport] {
  return InMemoryTransport.createLinkedPair();
}
