/**
 * `subscriptions/listen` (2026-07-28, client side): one long-lived request whose stream carries the
 * notifications the client opted in to (list changes, resource updates, with the tasks extension the
 * status of the tasks it follows). It has no timeout. The server's
 * first message on it is `notifications/subscriptions/acknowledged` with the subset it honours; every
 * message on it names the request's id in `_meta["io.modelcontextprotocol/subscriptionId"]`.
 *
 * When what the client wants changes, a new stream is opened with the new filter and the old one is closed
 * once the new one is acknowledged (or fails), so no notification falls in a gap. Closing a stream aborts
 * its request: on stdio the engine sends `notifications/cancelled`; an HTTP transport closes the stream.
 * A stream the server ends (its response, or on stdio a `notifications/cancelled` naming it) is not
 * reopened by itself; the next change of filter opens a new one.
 * @module
 */
import type { SubscriptionFilter } from '../../protocol/types/stateless.js';
import type { RequestOptions } from '../../protocol/engine/peer.js';
import { LocalErrorCode, ToolwireError, asError } from '../../protocol/errors.js';
import {
  isJsonObject,
  wireObject,
  type JsonObject,
  type JsonRpcMessage,
  type RequestId,
} from '../../protocol/jsonrpc.js';
import { META } from '../../protocol/types/stateless.js';
import type { TransportObserver } from '../observed-transport.js';
import { EXTENSION_META } from '../tasks/task-host.js';

/** Opens the listen request (the era's `_meta` added by the caller). */
export type ListenSender = (params: JsonObject, options: RequestOptions) => Promise<JsonObject>;

interface Stream {
  filter: SubscriptionFilter;
  key: string;
  controller: AbortController;
  id: RequestId | undefined;
  acknowledged: SubscriptionFilter | undefined;
  settle: (error?: Error) => void;
  done: Promise<void>;
}

const isEmpty = (filter: SubscriptionFilter) =>
  !filter.toolsListChanged &&
  !filter.promptsListChanged &&
  !filter.resourcesListChanged &&
  (filter.resourceSubscriptions?.length ?? 0) === 0 &&
  (filter.taskIds?.length ?? 0) === 0;

/** The filter as sent: only what is asked for, resource URIs sorted (so equal wishes compare equal). */
function normalize(filter: SubscriptionFilter): SubscriptionFilter {
  const out: SubscriptionFilter = {};
  if (filter.toolsListChanged) out.toolsListChanged = true;
  if (filter.promptsListChanged) out.promptsListChanged = true;
  if (filter.resourcesListChanged) out.resourcesListChanged = true;
  if (filter.resourceSubscriptions?.length)
    out.resourceSubscriptions = [...new Set(filter.resourceSubscriptions)].sort();
  if (filter.taskIds?.length) out.taskIds = [...new Set(filter.taskIds)].sort();
  return out;
}

export type { SubscriptionFilter };

export class ListenStream implements TransportObserver {
  readonly #send: ListenSender;
  readonly #onError: (error: Error) => void;
  #current: Stream | undefined;
  #previous: Stream | undefined;
  /** The stream whose request is being sent right now (its id is read off the wire). */
  #sending: Stream | undefined;

  constructor(send: ListenSender, onError: (error: Error) => void) {
    this.#send = send;
    this.#onError = onError;
  }

  /** What the server agreed to send on the open stream; undefined until it acknowledged. */
  get acknowledged(): SubscriptionFilter | undefined {
    return this.#current?.acknowledged;
  }

  /**
   * Listens for exactly `filter` (nothing: closes the stream). Resolves once the server acknowledged the
   * stream now wanted, rejects if opening it failed.
   */
  update(filter: SubscriptionFilter): Promise<void> {
    const wanted = normalize(filter);
    const key = JSON.stringify(wanted);
    if (this.#current && this.#current.key === key) return this.#current.done;
    const replaced = this.#current;
    this.#current = undefined;
    if (isEmpty(wanted)) {
      this.#close(replaced, 'no more subscriptions');
      return Promise.resolve();
    }
    this.#close(this.#previous, 'replaced');
    this.#previous = replaced;
    const stream = this.#open(wanted, key);
    this.#current = stream;
    return stream.done;
  }

  /** Closes every stream (the client is closing). */
  close(): void {
    this.#close(this.#previous, 'the client closed');
    this.#close(this.#current, 'the client closed');
    this.#previous = undefined;
    this.#current = undefined;
  }

  /** Reads the id of the listen request as it goes out. */
  outgoing(message: JsonRpcMessage): void {
    if (
      this.#sending &&
      'method' in message &&
      'id' in message &&
      message.method === 'subscriptions/listen'
    ) {
      this.#sending.id = message.id;
      this.#sending = undefined;
    }
  }

  /** A stdio server ends a listen stream with `notifications/cancelled` naming it. */
  incoming(message: unknown): void {
    if (!isJsonObject(message) || message.method !== 'notifications/cancelled' || 'id' in message) return;
    const id = isJsonObject(message.params) ? message.params.requestId : undefined;
    for (const stream of [this.#current, this.#previous]) {
      if (stream && stream.id !== undefined && stream.id === id)
        this.#ended(stream, 'the server ended the stream');
    }
  }

  /** `notifications/subscriptions/acknowledged` arrived. */
  acknowledge(params: JsonObject): void {
    const meta = isJsonObject(params._meta) ? params._meta : {};
    const id = meta[META.subscriptionId];
    const stream =
      [this.#current, this.#previous].find((s) => s && s.id !== undefined && s.id === id) ??
      // A server that omits the subscription id: the newest stream still waiting for its acknowledgment.
      (id === undefined && this.#current && !this.#current.acknowledged ? this.#current : undefined);
    if (!stream || stream.acknowledged) return;
    stream.acknowledged = isJsonObject(params.notifications)
      ? (params.notifications as SubscriptionFilter)
      : {};
    stream.settle();
    if (stream === this.#current) {
      this.#close(this.#previous, 'replaced');
      this.#previous = undefined;
    }
  }

  #open(filter: SubscriptionFilter, key: string): Stream {
    let settle: (error?: Error) => void = () => undefined;
    const done = new Promise<void>((resolve, reject) => {
      settle = (error) => (error ? reject(error) : resolve());
    });
    done.catch(() => undefined); // reported through onError as well; callers may not wait
    const stream: Stream = {
      filter,
      key,
      controller: new AbortController(),
      id: undefined,
      acknowledged: undefined,
      settle,
      done,
    };
    this.#sending = stream;
    const request = this.#send(
      filter.taskIds
        ? { notifications: wireObject(filter), _meta: EXTENSION_META }
        : { notifications: wireObject(filter) },
      { timeout: Infinity, signal: stream.controller.signal },
    );
    this.#sending = undefined;
    request.then(
      () => this.#ended(stream, 'the server ended the stream'),
      (error: unknown) => {
        if (stream.controller.signal.aborted) return;
        const failure = asError(error);
        stream.settle(failure);
        this.#ended(stream);
        this.#onError(failure);
      },
    );
    return stream;
  }

  /** The server ended a stream (or it failed): forget it, and close the old one if it was the new one. */
  #ended(stream: Stream, reason?: string): void {
    if (reason !== undefined) {
      stream.settle(new ToolwireError(LocalErrorCode.ConnectionClosed, `subscriptions/listen: ${reason}`));
      if (!stream.controller.signal.aborted) stream.controller.abort(reason);
    }
    if (this.#current === stream) {
      this.#current = undefined;
      this.#close(this.#previous, 'replaced');
      this.#previous = undefined;
    }
    if (this.#previous === stream) this.#previous = undefined;
  }

  #close(stream: Stream | undefined, reason: string): void {
    if (!stream || stream.controller.signal.aborted) return;
    stream.settle(
      new ToolwireError(LocalErrorCode.RequestCancelled, `subscriptions/listen closed: ${reason}`),
    );
    stream.controller.abort(reason);
  }
}
