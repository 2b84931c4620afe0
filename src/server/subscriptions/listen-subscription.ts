/**
 * One open `subscriptions/listen` stream (2026-07-28): the notification types it honours, and how its
 * messages go out. Every message carries `_meta["io.modelcontextprotocol/subscriptionId"]` (the listen
 * request's id) and is sent as related to that request, so on HTTP it rides the request's SSE stream. Once
 * the stream ends (the client cancelled it, or the server ended it) nothing more is sent for it.
 * @module
 */
import { withMember, type JsonObject, type RequestId } from '../../protocol/jsonrpc.js';
import { META } from '../../protocol/types/stateless.js';
import type { SessionView } from '../session-view.js';
import { LIST_CHANGED_KEYS, type SubscriptionFilter } from './subscription-filter.js';

export class ListenSubscription {
  /** The listen request's id, which is the subscription's id. */
  readonly id: RequestId;
  /** The honoured filter (what the acknowledgement names). */
  readonly filter: SubscriptionFilter;
  readonly #session: SessionView;
  readonly #uris: ReadonlySet<string>;
  readonly #tasks: ReadonlySet<string>;
  #open = true;
  #finish: (() => void) | undefined;

  constructor(session: SessionView, id: RequestId, filter: SubscriptionFilter) {
    this.#session = session;
    this.id = id;
    this.filter = filter;
    this.#uris = new Set(filter.resourceSubscriptions);
    this.#tasks = new Set(filter.taskIds);
  }

  /** Whether notifications may still be sent on this stream. */
  get open(): boolean {
    return this.#open;
  }

  /** Whether this stream carries `method` (a `notifications/<feature>/list_changed`). */
  wantsListChanged(method: string): boolean {
    const key = LIST_CHANGED_KEYS[method];
    return key !== undefined && this.filter[key] === true;
  }

  /** Whether this stream carries `notifications/resources/updated` for `uri`. */
  watches(uri: string): boolean {
    return this.#uris.has(uri);
  }

  /** Whether this stream carries `notifications/tasks` about the task `taskId`. */
  watchesTask(taskId: string): boolean {
    return this.#tasks.has(taskId);
  }

  /** `notifications/subscriptions/acknowledged`: the first message of the stream. */
  acknowledge(): Promise<void> {
    return this.notify('notifications/subscriptions/acknowledged', {
      notifications: { ...this.filter } as JsonObject,
    });
  }

  /** Sends a notification on this stream (nothing once it has ended); never rejects. */
  async notify(method: string, params: JsonObject = {}): Promise<void> {
    if (!this.#open) return;
    const message = withMember(params, '_meta', { [META.subscriptionId]: this.id });
    await this.#session.peer.notify(method, message, { relatedRequestId: this.id }).catch(() => undefined);
  }

  /** Resolves once the stream ends: `signal` aborted (the client cancelled it) or `end()`. */
  whileOpen(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const finish = () => {
        this.#open = false;
        this.#finish = undefined;
        signal.removeEventListener('abort', finish);
        resolve();
      };
      if (signal.aborted || !this.#open) {
        finish();
        return;
      }
      this.#finish = finish;
      signal.addEventListener('abort', finish, { once: true });
    });
  }

  /** Ends the stream from the server side (its listen request then gets its response). */
  end(): void {
    this.#open = false;
    this.#finish?.();
  }
}
