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

/** What a transport knows of a message it received besides the message (HTTP: which stream brought it). */
export interface MessageExtra {
  /**
   * The request of ours whose response stream carried it (a Streamable HTTP POST's SSE stream): a request
   * or notification of the peer's that belongs to that request.
   */
  relatedRequestId?: RequestId;
}

/**
 * Output a transport holds for a reader that has not taken it yet (a stdio client not reading stdout), as
 * the transport counts it: bytes are characters of JSON text.
 */
export interface OutputBacklog {
  /** What waits for the reader now. */
  readonly bytes: number;
  /** The transport's limit (`maxQueuedBytes`). */
  readonly maxBytes: number;
  /** At a limit (bytes or messages): the engine starts no new request until `ondrain`. */
  readonly full: boolean;
}

/**
 * The `details` of the `MESSAGE_TOO_LARGE` error a transport reports through `onerror` for a message over
 * its size limit, discarded unparsed. What the transport could read of it from its first and last bytes
 * names it: the engine fails the request an answer was for at once (not at its timeout), and refuses a
 * request with its own id; without an `id` it answers with no id.
 */
export interface MessageTooLargeDetails {
  /** The transport's limit, in bytes. */
  maxMessageSize: number;
  /** The bytes of the message read when it was reported: all of it, or the first part over the limit. */
  receivedBytes: number;
  /** The message's top-level `id`, where it was read. */
  id?: RequestId;
  /** A top-level `result` or `error` (an answer) or `method` (a request), where it was read. */
  kind?: 'answer' | 'request';
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
   * and the engine answers the first few (`MAX_PARSE_ERROR_ANSWERS`) with a parse error; the connection
   * lives on.
   */
  onmessage?: (message: unknown, extra?: MessageExtra) => void;
  /**
   * What went wrong on the transport: bytes that are not JSON (above), a message over the size limit (a
   * `ToolwireError` `MESSAGE_TOO_LARGE` with {@link MessageTooLargeDetails}), a failed write, a lost peer.
   */
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
  /**
   * What the transport holds unread, where it counts it: while it is `full` the engine starts no request
   * it has read (they wait, in order), and it calls `ondrain` when the reader caught up (to half).
   */
  readonly backlog?: OutputBacklog;
  /** Set by the engine when the transport has a `backlog`: the reader took it down to half its limit. */
  ondrain?: () => void;
  /**
   * Called by the engine with true while it holds requests it read and has not started yet (their answers
   * would go to a reader that is behind, or too many arrived at once), with false when it holds none: a
   * transport that reads a stream stops reading it meanwhile, so what waits stays bounded.
   */
  holdInput?(hold: boolean): void;
  /** A session id, where the transport has one (HTTP). */
  readonly sessionId?: string | undefined;
  /**
   * True where each connection carries a single HTTP request (a stateless server's): the same client comes
   * back on another one, so the connection does not tell one caller from another, as a stdio or in-memory
   * connection or an HTTP session does.
   */
  readonly perRequest?: boolean;
  /**
   * The client's network address, where the transport knows it and has no session to tell callers apart
   * (a stateless-era HTTP request): what a per-caller rate limit counts an anonymous caller by.
   */
  readonly clientAddress?: string | undefined;
}
