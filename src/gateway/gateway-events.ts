/**
 * What happens in a gateway, as events: approvals asked and decided, calls started, progressing and
 * finished, upstreams going up and down, the exposed tools changing, audit records written. The decision
 * API streams them (server-sent events); `gateway.on(listener)` receives them in code.
 * @module
 */
import type { PendingApproval, ApprovalOutcome } from './approvals.js';
import type { GatewayAuditRecord, CallDecision, CallOutcome } from './gateway-audit-sink.js';
import type { CallInfo, GrantGiven } from '../stores/gateway-records.js';
import type { ListedApproval } from '../stores/listed-approval.js';

export type { CallInfo } from '../stores/gateway-records.js';

/** `needs-sign-in`: an OAuth-protected upstream waits for a person to sign in (the console's "Sign in"). */
export type UpstreamStatus = 'connecting' | 'ready' | 'down' | 'needs-sign-in' | 'closed';

/**
 * A call's events (`call.started`, `call.progress`, `call.finished`) each carry `startedAt`, when the call
 * reached the gateway (ISO 8601, the gateway's clock), as the call's listing (`CallSummary.startedAt`) has it.
 */
export type GatewayEvent =
  | { type: 'approval.pending'; approval: PendingApproval }
  /** `approval` as listed when the store gave it back settled (its large arguments left out). */
  | { type: 'approval.decided'; approval: ListedApproval; outcome: ApprovalOutcome }
  | { type: 'call.started'; call: CallInfo; startedAt: string }
  | {
      type: 'call.progress';
      callId: number;
      startedAt: string;
      progress: number;
      total?: number;
      message?: string;
    }
  | {
      type: 'call.finished';
      callId: number;
      startedAt: string;
      decision: CallDecision;
      /** The "approve always" grant that let it through, for `decision: 'remembered'`. */
      grant?: GrantGiven;
      outcome: CallOutcome;
      durationMs: number;
    }
  | { type: 'upstream.status'; upstream: string; status: UpstreamStatus; error?: string }
  | { type: 'tools.changed'; tools: string[] }
  | { type: 'warning'; message: string; upstream?: string }
  | { type: 'audit'; record: GatewayAuditRecord };

export type GatewayListener = (event: GatewayEvent) => void;

export type GatewayEventType = GatewayEvent['type'];

/**
 * The events every instance of a gateway sharing stores sees, wherever they happened: approvals and calls
 * (an instance's upstreams, tools and warnings are its own).
 */
export const SHARED_EVENT_TYPES: ReadonlySet<GatewayEventType> = new Set([
  'approval.pending',
  'approval.decided',
  'call.started',
  'call.progress',
  'call.finished',
  'audit',
] satisfies GatewayEventType[]);

/**
 * How long the gateway keeps recording calls after the last listener of calls left (ms, default 60 s;
 * `GatewayOptions.callLogGraceMs`): a console that reconnects (its stream dropped, the page reloaded, the
 * gateway behind it restarted) finds the calls made meanwhile in the call log.
 */
export const CALL_LOG_GRACE_MS = 60_000;

/** The types a listener that leaves is still counted for during the grace: those the call log records on. */
const KEPT_TYPES: ReadonlySet<GatewayEventType> = new Set(['call.started', 'call.progress']);

/** How events are shared with the other instances (see `GatewayEvents.share`). */
export interface EventSharing {
  /** Sends a shared event to the other instances. */
  forward(event: GatewayEvent): void;
  /** Whether a listener of another instance wants shared events of `type` now. */
  watchedElsewhere(type: GatewayEventType): boolean;
  /** The shared types this instance's listeners hear changed (sorted; empty: none). */
  interest(types: GatewayEventType[]): void;
}

/**
 * A set of listeners, each of every event or of some types; one that throws is dropped from that delivery,
 * never the gateway's problem. `wants(type)` lets the gateway skip building events no one listens to (a
 * call's events cost allocations on the hot path, and on Redis writes to the call log and the bus). With
 * `share(sharing)`, the shared events are also forwarded to the other instances (which `deliver` them to
 * their listeners) while one of them has a listener.
 *
 * A listener of calls that leaves is still counted, for `call.started` and `call.progress` only, for
 * `graceMs` after the last one left (one count, restarted by each that leaves, whatever their number): the
 * relay logs the calls meanwhile (and another instance sharing events, told that this one still watches,
 * logs its own), though nobody hears their events. So a listener coming back soon (a console reconnecting)
 * lists them; `wants` stays a count lookup, no clock read per call.
 */
export class GatewayEvents {
  readonly #listeners = new Map<GatewayListener, ReadonlySet<GatewayEventType> | undefined>();
  /** Listeners of every type, and of each type. */
  #all = 0;
  readonly #byType = new Map<GatewayEventType, number>();
  /** Listeners of each shared type (those of every type included). */
  readonly #sharedByType = new Map<GatewayEventType, number>();
  #sharing: EventSharing | undefined;
  readonly #graceMs: number;
  /** Ends the grace: the left listeners' count goes (undefined: no grace running). */
  #grace: NodeJS.Timeout | undefined;

  /** `graceMs`: how long a listener of calls that left is still counted (default 0: not at all). */
  constructor(graceMs = 0) {
    this.#graceMs = graceMs;
  }

  on(listener: GatewayListener, types?: readonly GatewayEventType[]): () => void {
    if (this.#listeners.has(listener)) return () => this.#off(listener);
    const only = types === undefined ? undefined : new Set(types);
    this.#listeners.set(listener, only);
    if (only === undefined) this.#all++;
    else for (const type of only) this.#byType.set(type, (this.#byType.get(type) ?? 0) + 1);
    this.#count(only, 1);
    return () => this.#off(listener);
  }

  /** Whether anyone listens to events of `type`, here or (a shared type) on another instance. */
  wants(type: GatewayEventType): boolean {
    if (this.#all > 0 || (this.#byType.get(type) ?? 0) > 0) return true;
    return (
      this.#sharing !== undefined && SHARED_EVENT_TYPES.has(type) && this.#sharing.watchedElsewhere(type)
    );
  }

  /** Shares the shared events from now on (undefined: no more); says at once which are listened to here. */
  share(sharing: EventSharing | undefined): void {
    this.#sharing = sharing;
    if (sharing && this.#sharedByType.size > 0) sharing.interest(this.#sharedTypes());
  }

  /** An event of this instance: to its listeners, and forwarded while another instance wants its type. */
  emit(event: GatewayEvent): void {
    this.deliver(event);
    const sharing = this.#sharing;
    if (sharing && SHARED_EVENT_TYPES.has(event.type) && sharing.watchedElsewhere(event.type))
      sharing.forward(event);
  }

  /** An event (of another instance) to this instance's listeners only. */
  deliver(event: GatewayEvent): void {
    for (const [listener, only] of this.#listeners) {
      if (only !== undefined && !only.has(event.type)) continue;
      try {
        listener(event);
      } catch {
        // a listener's failure is its own
      }
    }
  }

  #off(listener: GatewayListener): void {
    if (!this.#listeners.has(listener)) return;
    const only = this.#listeners.get(listener);
    // Counted in first, so that the count of calls' listeners does not drop to 0 (and back) meanwhile.
    if (this.#graceMs > 0 && (only === undefined || only.has('call.started'))) this.#keepCalls();
    this.#listeners.delete(listener);
    if (only === undefined) this.#all--;
    else for (const type of only) this.#byType.set(type, (this.#byType.get(type) ?? 1) - 1);
    this.#count(only, -1);
  }

  /** Ends the grace now (the gateway closes): its count goes, and its timer. */
  endGrace(): void {
    if (!this.#grace) return;
    clearTimeout(this.#grace);
    this.#grace = undefined;
    for (const type of KEPT_TYPES) this.#byType.set(type, (this.#byType.get(type) ?? 1) - 1);
    this.#count(KEPT_TYPES, -1);
  }

  /** Counts one listener of the kept types until `graceMs` from now (restarting a grace that runs). */
  #keepCalls(): void {
    if (this.#grace) {
      this.#grace.refresh();
      return;
    }
    for (const type of KEPT_TYPES) this.#byType.set(type, (this.#byType.get(type) ?? 0) + 1);
    this.#count(KEPT_TYPES, 1);
    this.#grace = setTimeout(() => this.endGrace(), this.#graceMs);
    this.#grace.unref();
  }

  /** Counts a listener of `only` (undefined: every type) in or out of the shared types' listeners. */
  #count(only: ReadonlySet<GatewayEventType> | undefined, by: 1 | -1): void {
    let changed = false;
    for (const type of only ?? SHARED_EVENT_TYPES) {
      if (!SHARED_EVENT_TYPES.has(type)) continue;
      const count = (this.#sharedByType.get(type) ?? 0) + by;
      if (count > 0) this.#sharedByType.set(type, count);
      else this.#sharedByType.delete(type);
      if (count === 0 || (count === 1 && by === 1)) changed = true;
    }
    if (changed) this.#sharing?.interest(this.#sharedTypes());
  }

  #sharedTypes(): GatewayEventType[] {
    return [...this.#sharedByType.keys()].sort();
  }
}
