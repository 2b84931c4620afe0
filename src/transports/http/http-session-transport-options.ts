/**
 * How an HTTP session transport is set up: its session id and event store, JSON or SSE answers, the SSE
 * `retry` and keep-alive intervals, stream priming, the headers of every response, and how much output
 * its streams may hold unread.
 * @module
 */
import type { JsonRpcMessage } from '../../protocol/jsonrpc.js';
import type { EventStore } from '../../stores/event-store.js';

/**
 * How a session shared by several processes reaches them (see `SharedSessions`): the ids of the
 * server's requests name this process, answers to another process's requests go there, and what has no
 * stream here goes to the process holding the session's `GET` stream.
 */
export interface SessionRoute {
  /** A request or notification of the server, as the client gets it (request ids tagged). */
  outgoing(message: JsonRpcMessage): JsonRpcMessage;
  /** A message the client posted: what to deliver here (ids restored), or undefined (sent elsewhere). */
  incoming(message: unknown): unknown;
  /** A response is about to be written: the session's record is brought up to date first (when it changed). */
  beforeResponse(): Promise<void> | undefined;
  /** A message with no stream here: sent to the process holding the `GET` stream; how many got it. */
  elsewhere(message: JsonRpcMessage): Promise<number>;
  /**
   * The standalone (`GET`) stream was opened here, or taken up with `Last-Event-ID` (resolves once what
   * other processes send it is heard here, and the process that had it let it go); or it ended here. A
   * stream whose client went away is still heard (its events are kept for the client's resumption).
   */
  standalone(open: boolean): Promise<void>;
}

export interface HttpSessionTransportOptions {
  sessionId?: string;
  eventStore?: EventStore;
  responseMode: 'sse' | 'json';
  /** The SSE `retry` value sent with priming events and before the server closes a stream (ms). */
  retryMs: number;
  keepAliveMs: number;
  /** Whether streams start with a priming event (the session speaks 2025-11-25 or later). */
  primeStreams: () => boolean;
  /** The revision the session speaks, once negotiated (it shapes the `id` of errors with none). */
  protocolVersion?: () => string | undefined;
  /** Headers every response of this session carries (e.g. the session id). */
  headers: Record<string, string>;
  /** Output the session's SSE streams may hold unread (bytes; default 8 MiB): see `StreamableHttpOptions`. */
  maxQueuedBytes?: number;
  /** The same limit in messages (default 4096). */
  maxQueuedMessages?: number;
  /** The session is shared with other processes (a `redis` option): how messages reach them. */
  route?: SessionRoute;
}
