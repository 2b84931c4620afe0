/**
 * The transport interface every toolwire transport implements: start, send, close, and three callbacks.
 * Framing lives in the transport; the protocol engine only sees parsed JSON values.
 * @module
 */
import type { JsonRpcMessage, RequestId } from './jsonrpc.js';

/** Per-message routing hints; transports that have one stream per request (HTTP) use them. */
export interface SendOptions {
  /** The incoming request this message belongs to (its response, progress, logs, nested requests). */
  relatedRequestId?: RequestId;
}

export interface Transport {
  /** Starts reading. Resolves once messages can flow. */
  start(): Promise<void>;
  /** Sends one message, or a JSON-RPC batch (2025-03-26 peers only). */
  send(message: JsonRpcMessage | JsonRpcMessage[], options?: SendOptions): Promise<void>;
  /** Closes the transport; `onclose` fires once. */
  close(): Promise<void>;
  /**
   * A parsed JSON value arrived (an object or a batch array); the engine classifies it.
   * Bytes that are not JSON are reported through `onerror` with a `ProtocolError` of code -32700,
   * and the engine answers them with a parse error; the connection lives on.
   */
  onmessage?: (message: unknown) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  /**
   * The other side will send nothing more (a stdio server's stdin ended), but messages can still be sent.
   * The engine sets it: it answers the requests it has (within its grace period), then closes the
   * transport. A transport that has such a state calls it instead of closing, when it is set.
   */
  onend?: () => void;
  /**
   * Ends the HTTP response stream that carries `relatedRequestId` without ending the request (2025-11-25
   * SSE polling): the client reconnects and what follows is replayed. Transports without streams omit it.
   */
  closeStream?(relatedRequestId: RequestId): void;
  /** A session id, where the transport has one (HTTP). */
  readonly sessionId?: string | undefined;
}
