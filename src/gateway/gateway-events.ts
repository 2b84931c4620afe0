/**
 * What happens in a gateway, as events: approvals asked and decided, calls started, progressing and
 * finished, upstreams going up and down, the exposed tools changing, audit records written. The decision
 * API streams them (server-sent events); `gateway.on(listener)` receives them in code.
 * @module
 */
import type { PendingApproval, ApprovalOutcome } from './approvals.js';
import type { GatewayAuditRecord, CallDecision, CallOutcome } from './audit-store.js';
import type { GatewayCaller } from './caller.js';

export type UpstreamStatus = 'connecting' | 'ready' | 'down' | 'closed';

export interface CallInfo {
  /** Increases by one per call through this gateway. */
  id: number;
  caller: GatewayCaller;
  upstream: string;
  tool: string;
  exposedName: string;
  argumentsDigest: string;
}

export type GatewayEvent =
  | { type: 'approval.pending'; approval: PendingApproval }
  | { type: 'approval.decided'; approval: PendingApproval; outcome: ApprovalOutcome }
  | { type: 'call.started'; call: CallInfo }
  | { type: 'call.progress'; callId: number; progress: number; total?: number; message?: string }
  | {
      type: 'call.finished';
      callId: number;
      decision: CallDecision;
      outcome: CallOutcome;
      durationMs: number;
    }
  | { type: 'upstream.status'; upstream: string; status: UpstreamStatus; error?: string }
  | { type: 'tools.changed'; tools: string[] }
  | { type: 'warning'; message: string; upstream?: string }
  | { type: 'audit'; record: GatewayAuditRecord };

export type GatewayListener = (event: GatewayEvent) => void;

/** A set of listeners; one that throws is dropped from that delivery, never the gateway's problem. */
export class GatewayEvents {
  readonly #listeners = new Set<GatewayListener>();

  on(listener: GatewayListener): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  emit(event: GatewayEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch {
        // a listener's failure is its own
      }
    }
  }
}
