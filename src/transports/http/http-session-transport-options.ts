/**
 * How an HTTP session transport is set up: the event store, JSON or SSE answers, the SSE `retry` and
 * keep-alive intervals, how much output its streams may hold unread, and the revision its session speaks
 * (shared by a handler's sessions); and how a session shared by several processes reaches them.
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
  /**
   * A response is about to be written: the session's record is brought up to date first (when it
   * changed); the answer of a task-augmented call names a task the session runs here.
   */
  beforeResponse(response: JsonRpcMessage): Promise<void> | undefined;
  /** A message with no stream here: sent to the process holding the `GET` stream; how many got it. */
  elsewhere(message: JsonRpcMessage): Promise<number>;
  /**
   * The standalone (`GET`) stream was opened here, or taken up with `Last-Event-ID` (resolves once what
   * other processes send it is heard here, and the process that had it let it go); or it ended here. A
   * stream whose client went away is still heard (its events are kept for the client's resumption).
   */
  standalone(open: boolean): Promise<void>;
}

/** The transport a config's hook is called for (the `HttpSessionTransport` itself). */
export interface SessionTransportRef {
  readonly sessionId: string | undefined;
}

/**
 * What every session transport of a handler shares: one object, its hooks told which transport they are
 * called for (an idle session holds no functions of its own).
 */
export interface HttpSessionConfig {
  eventStore?: EventStore | undefined;
  responseMode: 'sse' | 'json';
  /** The SSE `retry` value sent with priming events and before the server closes a stream (ms). */
  retryMs: number;
  keepAliveMs: number;
  /**
   * A store the session's requests use can fail (Redis): the status of a POST's SSE answer then waits for
   * its first event (`SseStart`), so that a lone request's store failure is a 503. Else the stream starts
   * at once, its priming event with it.
   */
  storesCanFail?: boolean;
  /** Output the session's SSE streams may hold unread (bytes; default 8 MiB): see `StreamableHttpOptions`. */
  maxQueuedBytes?: number;
  /** The same limit in messages (default 4096). */
  maxQueuedMessages?: number;
  /**
   * The revision a session speaks, once negotiated: it shapes the `id` of errors with none, and streams
   * start with a priming event from 2025-11-25 on.
   */
  protocolVersion?(transport: SessionTransportRef): string | undefined;
  /** A transport closed (after its `onclose`). */
  closed?(transport: SessionTransportRef): void;
}
