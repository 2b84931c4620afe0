/**
 * `subscriptions/listen` (2026-07-28, stateless era only): a long-lived request that carries the change
 * notifications a client opts in to. The server acknowledges it with the honoured subset
 * (`notifications/subscriptions/acknowledged`), then sends the requested `list_changed` notifications
 * (from each feature's `ListChanged`, one per burst) and `resources/updated` for the requested URIs,
 * and, with the tasks extension, `notifications/tasks` about the caller's tasks it names (`taskIds`),
 * until the client cancels the request (`notifications/cancelled` on stdio, closing the stream on HTTP:
 * no response then) or the server closes (a normal response ends each stream gracefully).
 * @module
 */
import type { JsonObject } from '../../protocol/jsonrpc.js';
import type { RequestContext } from '../../protocol/engine/peer.js';
import type { RequestScope } from '../request-scope.js';
import type { ServerCapabilities } from '../../protocol/types/lifecycle.js';
import { META } from '../../protocol/types/stateless.js';
import type { ServerFeature } from '../server-feature.js';
import type { HandlerTable } from '../handler-table.js';
import type { SessionView } from '../session-view.js';
import { ListenSubscription } from './listen-subscription.js';
import { honouredFilter, parseSubscriptionFilter } from './subscription-filter.js';

/** Which of the task ids a listen request names its caller may hear about (the tasks feature decides). */
export type TaskAccess = (taskIds: readonly string[], scope: RequestScope) => Promise<string[]>;

export class Subscriptions implements ServerFeature {
  readonly #open = new Set<ListenSubscription>();
  #taskAccess: TaskAccess | undefined;
  /** The server's capabilities now (what a listen filter may ask for). */
  readonly #capabilities: () => ServerCapabilities;

  constructor(capabilities: () => ServerCapabilities) {
    this.#capabilities = capabilities;
  }

  /** @internal The tasks feature is on: listen requests may name tasks. */
  useTasks(access: TaskAccess): void {
    this.#taskAccess = access;
  }

  /** The open streams, across every session. */
  get open(): ReadonlySet<ListenSubscription> {
    return this.#open;
  }

  /** None of its own: each list feature advertises `listChanged` (and resources `subscribe`). */
  capabilities(): ServerCapabilities {
    return {};
  }

  install(handlers: HandlerTable): void {
    handlers.handle(
      'subscriptions/listen',
      ({ params, scope, ctx, session }) => this.#listen(session, params, scope, ctx),
      {
        eras: ['stateless'],
      },
    );
  }

  /**
   * Ends every open stream gracefully: each listen request gets its response. Resolves once the engine
   * has handed those responses to the transports, so the caller may close the sessions next.
   */
  async endAll(): Promise<void> {
    if (this.#open.size === 0) return;
    for (const subscription of this.#open) subscription.end();
    // A response is written a few microtasks after its handler returns; a macrotask lets them all out.
    await new Promise((resolve) => setTimeout(resolve, 0));
  }

  async #listen(
    session: SessionView,
    params: JsonObject,
    scope: RequestScope,
    ctx: RequestContext,
  ): Promise<JsonObject> {
    const requested = parseSubscriptionFilter(params);
    const filter = honouredFilter(requested, this.#capabilities());
    if (requested.taskIds?.length && this.#taskAccess) {
      const taskIds = await this.#taskAccess(requested.taskIds, scope);
      if (taskIds.length > 0) filter.taskIds = taskIds;
    }
    const subscription = new ListenSubscription(session, ctx.id, filter);
    if (!ctx.signal.aborted) {
      // The acknowledgement is queued on the transport before anything can be sent on the stream.
      void subscription.acknowledge();
      this.#open.add(subscription);
      await subscription.whileOpen(ctx.signal);
      this.#open.delete(subscription);
    }
    // Sent only when the server ended the stream: the engine drops the response of a cancelled request.
    return { _meta: { [META.subscriptionId]: ctx.id } };
  }
}
