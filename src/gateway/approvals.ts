/**
 * Pending approvals: a call the policy says to ask about waits here until a person approves it (once, or
 * always for this caller and tool), denies it (with a reason the model sees), or it expires. An approval
 * is bound to the exact arguments of its call — a decision may name their digest, and one for other
 * arguments is refused — and is used once: a decision for an approval already decided, expired or
 * withdrawn (the caller cancelled) is refused too. Pending approvals are bounded; so is the memory of
 * settled ones (kept to answer a late decision with "already decided" rather than "unknown").
 * @module
 */
import { LocalErrorCode, type JsonObject, type ToolAnnotations } from '../index.js';
import { callerKey, type GatewayCaller } from './caller.js';
import { GatewayError } from './gateway-error.js';

export interface PendingApproval {
  readonly id: string;
  /** When the call asked (ISO 8601). */
  readonly createdAt: string;
  /** When it fails unless decided (ISO 8601). */
  readonly expiresAt: string;
  readonly caller: GatewayCaller;
  readonly upstream: string;
  /** The tool's own name upstream, and the namespaced name the caller used. */
  readonly tool: string;
  readonly exposedName: string;
  readonly title?: string;
  readonly description?: string;
  readonly annotations?: ToolAnnotations;
  /** The exact arguments the call will send. */
  readonly arguments: JsonObject;
  /** `sha256:<hex>` of their canonical JSON. */
  readonly argumentsDigest: string;
  /** Why the policy asks. */
  readonly reason: string;
}

export type ApprovalOutcome =
  | { decision: 'approved'; always: boolean; decidedBy: string; decidedAt: string; until?: string }
  | { decision: 'denied'; reason?: string; decidedBy: string; decidedAt: string }
  | { decision: 'expired'; decidedAt: string }
  | { decision: 'withdrawn'; reason: string; decidedAt: string };

export interface ApprovalDecision {
  approve: boolean;
  /** Approve this and every later call of this tool by this caller (until restart, or `alwaysForMs`). */
  always?: boolean;
  alwaysForMs?: number;
  /** A denial's reason, which the model sees. */
  reason?: string;
  /** The digest of the arguments the decider saw; refused when it is not the call's. */
  argumentsDigest?: string;
  /** Who decides (a principal's subject, `api-token`). */
  decidedBy: string;
}

export type ApprovalRequest = Omit<PendingApproval, 'id' | 'createdAt' | 'expiresAt'>;

export interface ApprovalsOptions {
  timeoutMs: number;
  onPending?: (approval: PendingApproval) => void;
  onSettled?: (approval: PendingApproval, outcome: ApprovalOutcome) => void;
}

interface Waiting {
  approval: PendingApproval;
  settle: (outcome: ApprovalOutcome) => void;
}

/** At most this many approvals wait at once; more are denied at once. */
export const MAX_PENDING_APPROVALS = 1_000;
const SETTLED_KEPT = 1_000;

export class Approvals {
  timeoutMs: number;
  readonly #options: ApprovalsOptions;
  readonly #waiting = new Map<string, Waiting>();
  readonly #settled = new Map<string, { approval: PendingApproval; outcome: ApprovalOutcome }>();
  /** "Approve always" grants: key → expiry (ms since the epoch; Infinity until restart). */
  readonly #always = new Map<string, number>();

  constructor(options: ApprovalsOptions) {
    this.timeoutMs = options.timeoutMs;
    this.#options = options;
  }

  /** Whether this caller was granted "approve always" for this tool (and the grant still holds). */
  remembered(caller: GatewayCaller, upstream: string, tool: string): boolean {
    const key = alwaysKey(caller, upstream, tool);
    const until = this.#always.get(key);
    if (until === undefined) return false;
    if (until > Date.now()) return true;
    this.#always.delete(key);
    return false;
  }

  /**
   * Creates a pending approval and resolves with its outcome: a decision, expiry, or `withdrawn` once
   * `signal` aborts. Resolves at once with a denial when too many approvals are pending already.
   */
  ask(
    request: ApprovalRequest,
    signal: AbortSignal,
  ): { approval: PendingApproval; outcome: Promise<ApprovalOutcome> } {
    const now = Date.now();
    const approval: PendingApproval = Object.freeze({
      id: crypto.randomUUID(),
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + this.timeoutMs).toISOString(),
      ...request,
    });
    if (this.#waiting.size >= MAX_PENDING_APPROVALS) {
      const outcome: ApprovalOutcome = {
        decision: 'denied',
        reason: `${MAX_PENDING_APPROVALS} approvals are pending already; try again later`,
        decidedBy: 'gateway',
        decidedAt: approval.createdAt,
      };
      return { approval, outcome: Promise.resolve(outcome) };
    }
    const outcome = new Promise<ApprovalOutcome>((resolve) => {
      const timer = setTimeout(() => settle({ decision: 'expired', decidedAt: stamp() }), this.timeoutMs);
      timer.unref?.();
      const withdraw = () =>
        settle({ decision: 'withdrawn', reason: 'the caller cancelled the call', decidedAt: stamp() });
      const settle = (result: ApprovalOutcome) => {
        if (this.#waiting.get(approval.id)?.approval !== approval) return;
        clearTimeout(timer);
        signal.removeEventListener('abort', withdraw);
        this.#waiting.delete(approval.id);
        this.#remember(approval, result);
        resolve(result);
        this.#options.onSettled?.(approval, result);
      };
      this.#waiting.set(approval.id, { approval, settle });
      signal.addEventListener('abort', withdraw, { once: true });
    });
    this.#options.onPending?.(approval);
    if (signal.aborted)
      this.#waiting
        .get(approval.id)
        ?.settle({ decision: 'withdrawn', reason: 'the caller cancelled the call', decidedAt: stamp() });
    return { approval, outcome };
  }

  /**
   * Decides a pending approval. Throws GatewayError `APPROVAL_NOT_FOUND` (no such id), `APPROVAL_SETTLED`
   * (decided, expired or withdrawn already; `details.outcome` says which) or `APPROVAL_MISMATCH` (the
   * decision names other arguments' digest).
   */
  decide(id: string, decision: ApprovalDecision): { approval: PendingApproval; outcome: ApprovalOutcome } {
    const waiting = this.#waiting.get(id);
    if (!waiting) {
      const settled = this.#settled.get(id);
      if (settled) {
        throw new GatewayError(
          LocalErrorCode.ApprovalSettled,
          `Approval ${id} is settled already (${settled.outcome.decision})`,
          { details: { id, outcome: settled.outcome } },
        );
      }
      throw new GatewayError(LocalErrorCode.ApprovalNotFound, `No approval ${id}`, { details: { id } });
    }
    const { approval } = waiting;
    if (decision.argumentsDigest !== undefined && decision.argumentsDigest !== approval.argumentsDigest) {
      throw new GatewayError(
        LocalErrorCode.ApprovalMismatch,
        `Approval ${id} is for other arguments (${approval.argumentsDigest}, not ${decision.argumentsDigest})`,
        { details: { id, argumentsDigest: approval.argumentsDigest } },
      );
    }
    const decidedAt = stamp();
    let outcome: ApprovalOutcome;
    if (!decision.approve) {
      outcome = { decision: 'denied', decidedBy: decision.decidedBy, decidedAt };
      if (decision.reason !== undefined && decision.reason !== '') outcome.reason = decision.reason;
    } else if (decision.always) {
      const until = decision.alwaysForMs === undefined ? Infinity : Date.now() + decision.alwaysForMs;
      this.#always.set(alwaysKey(approval.caller, approval.upstream, approval.tool), until);
      outcome = { decision: 'approved', always: true, decidedBy: decision.decidedBy, decidedAt };
      if (Number.isFinite(until)) outcome.until = new Date(until).toISOString();
    } else {
      outcome = { decision: 'approved', always: false, decidedBy: decision.decidedBy, decidedAt };
    }
    waiting.settle(outcome);
    return { approval, outcome };
  }

  /** The approvals waiting for a decision, oldest first. */
  pending(): PendingApproval[] {
    return [...this.#waiting.values()].map((waiting) => waiting.approval);
  }

  /** One approval, pending (no outcome yet) or recently settled. */
  get(id: string): { approval: PendingApproval; outcome?: ApprovalOutcome } | undefined {
    const waiting = this.#waiting.get(id);
    return waiting ? { approval: waiting.approval } : this.#settled.get(id);
  }

  /** Forgets every "approve always" grant of an upstream (it was removed or replaced). */
  forgetUpstream(upstream: string): void {
    for (const key of this.#always.keys()) if (key.split('\u0000')[1] === upstream) this.#always.delete(key);
  }

  /** Withdraws every pending approval (the gateway is closing). */
  close(reason = 'the gateway is shutting down'): void {
    for (const waiting of [...this.#waiting.values()])
      waiting.settle({ decision: 'withdrawn', reason, decidedAt: stamp() });
  }

  #remember(approval: PendingApproval, outcome: ApprovalOutcome): void {
    this.#settled.set(approval.id, { approval, outcome });
    if (this.#settled.size > SETTLED_KEPT) {
      const oldest = this.#settled.keys().next();
      if (!oldest.done) this.#settled.delete(oldest.value);
    }
  }
}

function alwaysKey(caller: GatewayCaller, upstream: string, tool: string): string {
  return `${callerKey(caller)}\u0000${upstream}\u0000${tool}`;
}

function stamp(): string {
  return new Date().toISOString();
}
