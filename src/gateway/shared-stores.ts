/**
 * What a gateway instance shares with the others, from `start()` to `close()`: the Redis stores its
 * configuration's `redis` opens (in place of the memory ones, unless stores were given in code), the events
 * and the cancellations of calls shared on their bus, where this instance's call ids start, and its saying
 * that it lives (its running calls are shown lost to the others once it stops).
 * @module
 */
import { CALL_IDS_PER_INSTANCE, type CallLogStore } from '../stores/call-log-store.js';
import type { MessageBus } from '../stores/message-bus.js';
import type { SharedSessionStores } from '../transports/http/index.js';
import type { Approvals } from './approvals.js';
import type { AuditTrail } from './audit-trail.js';
import type { CallLog } from './call-log.js';
import type { CallRelay } from './call-relay.js';
import type { GatewayConfig } from './gateway-config.js';
import type { GatewayEvents } from './gateway-events.js';
import { openRedisStores, SharedEvents, type GatewayStores } from './gateway-stores.js';

/** What the shared stores serve in the gateway. */
export interface SharedStoresOptions {
  /** The stores given in code (`GatewayOptions.stores`): the configuration's `redis` opens none then. */
  given: GatewayStores | undefined;
  /** The configuration in force (its `redis` is read at `open()`). */
  config: () => GatewayConfig;
  approvals: Approvals;
  calls: CallLog;
  audit: AuditTrail;
  events: GatewayEvents;
  /** Takes where this instance's call ids start. */
  relay: CallRelay;
}

export class SharedStores {
  readonly #options: SharedStoresOptions;
  #opening: Promise<void> | undefined;
  #shared: SharedEvents | undefined;
  #sessions: SharedSessionStores | undefined;
  /** Closes the Redis connections the gateway opened from its configuration's `redis`. */
  #closeStores: (() => Promise<void>) | undefined;
  /** Stops saying this instance lives (its call log store's `live`), once its calls have ended. */
  #stopLiving: (() => Promise<void>) | undefined;

  constructor(options: SharedStoresOptions) {
    this.#options = options;
    if (options.given?.bus) this.#share(options.given.bus);
    this.#sessions = options.given?.sessions;
  }

  /** The handshake-era sessions shared with the other instances, if any (see `Gateway.sharedSessions`). */
  get sessions(): SharedSessionStores | undefined {
    return this.#sessions;
  }

  /**
   * Opens the configuration's `redis` stores and listens to the other instances; once, however often it is
   * called (a failed attempt may be made again). Rejects when Redis cannot be reached.
   */
  open(): Promise<void> {
    const opening = (this.#opening ??= this.#open());
    opening.catch(() => {
      if (this.#opening === opening) this.#opening = undefined;
    });
    return opening;
  }

  async #open(): Promise<void> {
    const { given, approvals, calls, audit, relay } = this.#options;
    const config = this.#options.config();
    const redis = config.redis;
    if (redis !== undefined && given === undefined && this.#closeStores === undefined) {
      const { stores, close } = await openRedisStores(redis, config);
      this.#closeStores = close;
      audit.store = stores.audit;
      approvals.useStores(stores.approvals, stores.grants);
      calls.useStore(stores.calls);
      this.#share(stores.bus);
      this.#sessions = stores.sessions;
    }
    try {
      await approvals.listen();
      if (this.#shared) {
        relay.idBase = await this.#shared.start();
        // Its running calls are shown lost to the other instances once this one stops saying it lives.
        this.#stopLiving = await calls.store.live(relay.idBase / CALL_IDS_PER_INSTANCE);
      } else {
        // No instance number: ids follow the store's highest, so that a store kept across restarts (given
        // in code) never gets an id of an earlier run's call again.
        relay.idBase = Math.max(relay.idBase, await highestLocalId(calls.store));
      }
    } catch (error) {
      await this.#closeStores?.();
      this.#closeStores = undefined;
      throw error;
    }
  }

  /**
   * Stops sharing events, writes the last calls' ends, stops saying this instance lives, and closes the
   * connections `open()` opened. Once its upstreams are closed.
   */
  async close(): Promise<void> {
    this.#shared?.stop();
    this.#options.approvals.endedSessions.share(undefined);
    // The last calls' ends are written (when the store can be reached) before its connection closes.
    await this.#options.calls.store.flushed().catch(() => undefined);
    await this.#stopLiving?.().catch(() => undefined);
    await this.#closeStores?.();
  }

  /** Shares events on `bus`, and takes the cancellations of calls this instance runs from there. */
  #share(bus: MessageBus): void {
    const { events, calls, approvals } = this.#options;
    const shared = new SharedEvents(
      events,
      bus,
      (id, by) => void calls.cancelHere(id, by),
      (sessionId) => approvals.endedSessions.endedElsewhere(sessionId),
    );
    this.#shared = shared;
    calls.reach((id, by) => shared.requestCancel(id, by));
    approvals.endedSessions.share((sessionId) => shared.endSession(sessionId));
  }
}

/**
 * The highest id the store keeps of a call numbered without an instance number (below
 * `CALL_IDS_PER_INSTANCE`), 0 for none: one listing of what it keeps (`maxCalls`, 500 by default), once
 * per start.
 */
async function highestLocalId(store: CallLogStore): Promise<number> {
  let highest = 0;
  for (const { call } of await store.list()) {
    if (call.id < CALL_IDS_PER_INSTANCE && call.id > highest) highest = call.id;
  }
  return highest;
}
