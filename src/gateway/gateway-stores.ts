/**
 * Where a gateway keeps what its instances share: pending approvals, "approve always" grants, audit
 * records, and a bus for live events. In memory by default (one instance); on Redis with the configuration's
 * `redis` (opened at `start()`, loading `ioredis` only then) or with stores given in code. Shared events
 * travel as `{ from, event }` on the bus; an instance delivers to its listeners the events of the others.
 * @module
 */
import type { JsonObject } from '../index.js';
import type { ApprovalStore } from '../stores/approval-store.js';
import type { AuditStore } from '../stores/audit-store.js';
import type { GrantStore } from '../stores/grant-store.js';
import type { MessageBus } from '../stores/message-bus.js';
import type { GatewayConfig } from './gateway-config.js';
import type { GatewayEvent, GatewayEvents } from './gateway-events.js';

export interface GatewayStores {
  /** Pending approvals (default: memory). */
  approvals?: ApprovalStore;
  /** "Approve always" grants (default: memory). */
  grants?: GrantStore;
  /** Audit records (default: memory, `audit.maxRecords` of the configuration). */
  audit?: AuditStore;
  /** Carries approval and call events between instances (default: none, events stay in this instance). */
  bus?: MessageBus;
}

/** The Redis stores the configuration's `redis` names, and how to close their connections. */
export async function openRedisStores(
  redis: NonNullable<GatewayConfig['redis']>,
  config: GatewayConfig,
): Promise<{ stores: Required<GatewayStores>; close: () => Promise<void> }> {
  const { redisStores } = await import('../stores/redis.js');
  const { url, prefix } = typeof redis === 'string' ? { url: redis, prefix: undefined } : redis;
  const maxRecords = config.audit?.maxRecords;
  const opened = redisStores(url, {
    ...(prefix === undefined ? {} : { prefix }),
    gateway: { audit: maxRecords === undefined ? {} : { maxRecords } },
  });
  const { approvals, grants, audit, bus } = opened;
  return { stores: { approvals, grants, audit, bus }, close: () => opened.close() };
}

/** Call ids of instances sharing a bus start at their instance number times this (ids stay distinct). */
const CALL_IDS_PER_INSTANCE = 2 ** 32;
/** Instance numbers wrap past this, keeping call ids safe integers. */
const INSTANCE_NUMBERS = 2 ** 20 - 1;

/** An instance's events on a bus: its shared events published, the others' delivered to its listeners. */
export class SharedEvents {
  readonly #events: GatewayEvents;
  readonly #bus: MessageBus;
  readonly #from = crypto.randomUUID();
  #unsubscribe: (() => void) | undefined;

  constructor(events: GatewayEvents, bus: MessageBus) {
    this.#events = events;
    this.#bus = bus;
  }

  /** Subscribes and starts publishing; resolves with where this instance's call ids start. */
  async start(): Promise<number> {
    const number = await this.#bus.instanceNumber();
    this.#unsubscribe = await this.#bus.subscribe({
      message: (message) => {
        if (message.from === this.#from || !message.event) return;
        this.#events.deliver(message.event as unknown as GatewayEvent);
      },
    });
    this.#events.share((event) => {
      const message = { from: this.#from, event } as unknown as JsonObject;
      // Events are news: one that cannot be published (Redis is out of reach) is lost, nothing else.
      this.#bus.publish(message).catch(() => undefined);
    });
    return (((number - 1) % INSTANCE_NUMBERS) + 1) * CALL_IDS_PER_INSTANCE;
  }

  stop(): void {
    this.#events.share(undefined);
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
  }
}
