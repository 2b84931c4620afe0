/**
 * A logical stream of an HTTP session: where the responses to a POST's requests (and the messages
 * related to them) go, as SSE events on its sink or as one JSON body; or the standalone GET stream.
 * @module
 */
import type { Reply } from './http-exchange.js';
import type { JsonRpcMessage, RequestId } from '../../protocol/jsonrpc.js';
import type { SseSink } from './sse-sink.js';
import type { SseStart } from './sse-start.js';

export interface LogicalStream {
  readonly id: string;
  readonly standalone: boolean;
  readonly pending: Set<RequestId>;
  sink: SseSink | undefined;
  json: JsonReply | undefined;
  /** A POST's SSE answer, until its status is known (see `SseStart`). */
  start?: SseStart;
  /** Paced messages (a tool's progress and logs) sent while it had no sink: see `SseSink.room`. */
  paced?: number;
}

/** A JSON-mode POST waiting for its responses. */
export interface JsonReply {
  responses: JsonRpcMessage[];
  batch: boolean;
  resolve: (response: Reply) => void;
  /** Stops watching the request's signal (it may outlive the POST). */
  unwatch: () => void;
}
