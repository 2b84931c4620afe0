/**
 * How an HTTP session transport is set up: its session id and event store, JSON or SSE answers, the SSE
 * `retry` and keep-alive intervals, stream priming, the headers of every response, and how much output
 * its streams may hold unread.
 * @module
 */
import type { EventStore } from '../../stores/event-store.js';

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
}
