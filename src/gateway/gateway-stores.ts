/**
 * Where a gateway keeps what its instances share: pending approvals, "approve always" grants, audit
 * records, the call log, and a bus for live events and cancellations. In memory by default (one instance);
 * on Redis with the configuration's `redis` (opened at `start()`, loading `ioredis` only then) or with
 * stores given in code. Shared events travel as `{ from, events }` on the bus; an instance delivers to its
 * listeners the events of the others. A person's cancellation of a call that runs on another instance
 * travels as `{ from, cancel: { id, by } }`.
 * @module
 */
import { isJsonObject, wireObject, type JsonObject } from '../index.js';
import type { ApprovalStore } from '../stores/approval-store.js';
import type { AuditStore } from '../stores/audit-store.js';
import { CALL_IDS_PER_INSTANCE, type CallLogStore } from '../stores/call-log-store.js';
import type { GrantStore } from '../stores/grant-store.js';
import type { MessageBus } from '../stores/message-bus.js';
import { DEFAULT_SESSION_IDLE_TIMEOUT_MS, type SharedSessionStores } from '../transports/http/index.js';
import type { GatewayConfig } from './gateway-config.js';
import type { GatewayEvent, GatewayEvents } from './gateway-events.js';

export interface GatewayStores {
  /** Pending approvals (default: memory). */
  approvals?: ApprovalStore;
  /** "Approve always" grants (default: memory). */
  grants?: GrantStore;
  /** Audit records (default: memory, `audit.maxRecords` of the configuration). */
  audit?: AuditStore;
  /** The calls with their arguments and results (default: memory, bounded; see `CallLog` for when). */
  calls?: CallLogStore;
  /** Carries approval and call events between instances (default: none, events stay in this instance). */
  bus?: MessageBus;
  /**
   * Handshake-era MCP sessions every instance can serve (what `redisStores(url)` has: session records,
   * resumable streams, the bus between instances). `serveGateway` gives them to its MCP endpoint, as
   * `serveHttp`'s `redis` option; default: none, a session lives in the instance that opened it.
   */
  sessions?: SharedSessionStores;
}

/**
 * How long an instance is believed alive without news (ms), when not the store's default: for tests, which
 * kill an instance and wait for its calls to show as lost.
 */
const LIVE_TTL_ENV = 'TOOLWIRE_GATEWAY_LIVE_TTL_MS';

/** The Redis stores the configuration's `redis` names, and how to close their connections. */
export async function openRedisStores(
  redis: NonNullable<GatewayConfig['redis']>,
  config: GatewayConfig,
): Promise<{ stores: Required<GatewayStores>; close: () => Promise<void> }> {
  const { redisStores } = await import('../stores/redis.js');
  const { url, prefix } = typeof redis === 'string' ? { url: redis, prefix: undefined } : redis;
  const maxRecords = config.audit?.maxRecords;
  const liveTtlMs = Number(process.env[LIVE_TTL_ENV]);
  const opened = redisStores(url, {
    ...(prefix === undefined ? {} : { prefix }),
    gateway: {
      audit: maxRecords === undefined ? {} : { maxRecords },
      calls: Number.isSafeInteger(liveTtlMs) && liveTtlMs > 0 ? { liveTtlMs } : {},
    },
    // A shared session expires by its record's TTL; so do its streams' events once nothing writes them.
    sessions: { ttlMs: DEFAULT_SESSION_IDLE_TIMEOUT_MS },
    events: { ttlMs: DEFAULT_SESSION_IDLE_TIMEOUT_MS },
  });
  const { approvals, grants, audit, calls, bus } = opened;
  return {
    stores: { approvals, grants, audit, calls, bus, sessions: opened },
    close: () => opened.close(),
  };
}

/** Instance numbers wrap past this, keeping call ids safe integers. */
const INSTANCE_NUMBERS = 2 ** 20 - 1;

/** Events gathered into one message at most (more are sent at once, in another). */
const MAX_EVENTS_PER_MESSAGE = 256;

/** How often an instance with listeners of shared events says so again (ms). */
export const WATCH_HEARTBEAT_MS = 2_000;
/** How long another instance's listeners are believed there without news (ms): three heartbeats. */
const WATCH_TTL_MS = 3 * WATCH_HEARTBEAT_MS;

/**
 * An instance's events on a bus: its shared events published, the others' delivered to its listeners.
 * The events of one turn of the event loop travel together, as `{ from, events }` (a call's `call.started`,
 * `call.finished` and `audit`, or many calls' at once under load): one message instead of one each.
 *
 * Only the types another instance has listeners of: an instance says which shared types its listeners hear
 * (`{ from, watching: [types] }`) when they change and again every `WATCH_HEARTBEAT_MS`; one that starts,
 * or may have missed messages, asks (`{ from, hello: true }`) and the watching answer. An instance that
 * died watching is forgotten after `WATCH_TTL_MS`. So a call that nobody watches anywhere (a terminal's
 * gateway narrates approvals, not calls) publishes nothing and writes no call log entry: on Redis that was
 * ≈40% of a gateway's CPU per call.
 */
export class SharedEvents {
  readonly #events: GatewayEvents;
  readonly #bus: MessageBus;
  readonly #from = crypto.randomUUID();
  #unsubscribe: (() => void) | undefined;
  #queue: GatewayEvent[] = [];
  #flushing: NodeJS.Immediate | undefined;
  readonly #cancel: (id: number, by: string) => void;
  readonly #sessionEnded: (sessionId: string) => void;
  /** Other instances' listeners of shared events: their types, and until when they are believed. */
  readonly #watchers = new Map<string, { types: ReadonlySet<string>; until: number }>();
  /** The shared types this instance's listeners hear (said to the others). */
  #watching: string[] = [];
  /** This instance has listeners of shared events: it says so every heartbeat. */
  #heartbeat: NodeJS.Timeout | undefined;

  /**
   * `cancel`: a person's cancellation from another instance, of a call that may run on this one;
   * `sessionEnded`: a console session ended (signed out) through another instance.
   */
  constructor(
    events: GatewayEvents,
    bus: MessageBus,
    cancel: (id: number, by: string) => void,
    sessionEnded: (sessionId: string) => void = () => undefined,
  ) {
    this.#events = events;
    this.#bus = bus;
    this.#cancel = cancel;
    this.#sessionEnded = sessionEnded;
  }

  /**
   * Subscribes and starts publishing; resolves with where this instance's call ids start: its instance
   * number (what its call log store says lives) times `CALL_IDS_PER_INSTANCE`, ids staying distinct.
   */
  async start(): Promise<number> {
    const number = await this.#bus.instanceNumber();
    this.#unsubscribe = await this.#bus.subscribe({
      from: this.#from, // its own messages (`from` first, see #flush) are not handed back
      message: (message) => {
        const { from, events, cancel, watching } = message;
        // A bus given in code may not honour `from`: its own messages are dropped here too.
        if (from === this.#from || typeof from !== 'string') return;
        if (Array.isArray(events)) {
          for (const event of events) this.#events.deliver(event as unknown as GatewayEvent);
        } else if (isJsonObject(cancel) && typeof cancel.id === 'number' && typeof cancel.by === 'string') {
          this.#cancel(cancel.id, cancel.by);
        } else if (typeof message.sessionEnded === 'string') {
          this.#sessionEnded(message.sessionEnded);
        } else if (Array.isArray(watching)) {
          const types = new Set(watching.filter((type): type is string => typeof type === 'string'));
          if (types.size === 0) this.#watchers.delete(from);
          else this.#watchers.set(from, { types, until: Date.now() + WATCH_TTL_MS });
        } else if (message.hello === true && this.#watching.length > 0) {
          this.#say({ watching: this.#watching });
        }
      },
      // Announcements may have been lost: the watching say so again.
      missed: () => this.#say({ hello: true }),
    });
    this.#events.share({
      forward: (event) => {
        this.#queue.push(event);
        if (this.#queue.length >= MAX_EVENTS_PER_MESSAGE) this.#flush();
        else this.#flushing ??= setImmediate(() => this.#flush());
      },
      watchedElsewhere: (type) => this.#watchedElsewhere(type),
      interest: (types) => this.#interest(types),
    });
    this.#say({ hello: true });
    return (((number - 1) % INSTANCE_NUMBERS) + 1) * CALL_IDS_PER_INSTANCE;
  }

  /** Whether another instance has a listener of `type` (forgetting those not heard of in time). */
  #watchedElsewhere(type: string): boolean {
    if (this.#watchers.size === 0) return false;
    const now = Date.now();
    let found = false;
    for (const [from, watcher] of this.#watchers) {
      if (watcher.until <= now) this.#watchers.delete(from);
      else if (watcher.types.has(type)) found = true;
    }
    return found;
  }

  /** The shared types this instance's listeners hear changed: the others hear it, now and each heartbeat. */
  #interest(types: string[]): void {
    this.#watching = types;
    clearInterval(this.#heartbeat);
    this.#heartbeat = undefined;
    if (types.length > 0) {
      this.#heartbeat = setInterval(() => this.#say({ watching: this.#watching }), WATCH_HEARTBEAT_MS);
      this.#heartbeat.unref();
    }
    this.#say({ watching: types });
  }

  /** An announcement to the other instances (lost if the bus cannot be reached: the next one says it again). */
  #say(news: JsonObject): void {
    this.#bus.publish(wireObject({ from: this.#from, ...news })).catch(() => undefined);
  }

  /** Asks the other instances to cancel call `id` (the one running it does). */
  requestCancel(id: number, by: string): Promise<void> {
    return this.#bus.publish({ from: this.#from, cancel: { id, by } });
  }

  /**
   * Tells the other instances that a console session ended, so that they end its event streams at once (lost
   * if the bus cannot be reached: each stream also asks the shared store at its keep-alive).
   */
  endSession(sessionId: string): void {
    this.#say({ sessionEnded: sessionId });
  }

  stop(): void {
    this.#flush();
    if (this.#watching.length > 0) this.#interest([]);
    this.#events.share(undefined);
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
  }

  #flush(): void {
    if (this.#flushing) clearImmediate(this.#flushing);
    this.#flushing = undefined;
    if (this.#queue.length === 0) return;
    const message = wireObject({ from: this.#from, events: this.#queue });
    this.#queue = [];
    // Events are news: those that cannot be published (Redis is out of reach) are lost, nothing else.
    this.#bus.publish(message).catch(() => undefined);
  }
}
