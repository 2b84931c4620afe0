/**
 * The policy's verdict on a call: allowed or denied at once, or asked of a person (or found remembered,
 * or granted to the retry of an approved call) and waited for, with progress to a caller that asked for
 * it. And what the model reads when the gateway does not run a call.
 * @module
 */
import { errorMessage, signalOf, type Cancellation, type JsonObject } from '../index.js';
import type { ToolContext } from '../server/index.js';
import type { ApprovalOutcome, Approvals, GrantGiven } from './approvals.js';
import type { CallDecision } from './gateway-audit-sink.js';
import { callerKey } from './caller.js';
import type { ExposedTool } from './exposed-tools.js';
import type { CallInfo } from './gateway-events.js';
import type { PolicyDecision } from './policy.js';

/** What deciding needs of the gateway. */
export interface VerdictDeps {
  approvals: Approvals;
  progressIntervalMs(): number;
  /** Hears the whole error of a store that failed (the model is told only which store and operation). */
  reportError(error: Error, context: string): void;
  /** Who cancelled a call this instance runs, when a person did (the call log, while someone watches). */
  calls?: {
    cancelledBy(id: number): string | undefined;
    /** A call waits for a person (its approval's id), or no longer does: the call log says so. */
    awaiting(id: number, approvalId: string | undefined): void;
  };
}

/** How the policy let a call through. */
export interface Verdict {
  decision: CallDecision;
  decidedBy: string;
  reason: string;
  approvalId?: string;
  /** The "approve always" grant that let the call through (`decision: 'remembered'`). */
  grant?: GrantGiven;
  /** Progress notifications sent while it waited: the upstream's progress is counted on from there. */
  waited: number;
  /** Refused because the approval store could not be reached (not a person's or the policy's no). */
  unavailable?: true;
}

/**
 * The policy's verdict, asking a person (and waiting) when it says so. `argumentsBytes`: the length in bytes
 * of the arguments' JSON (what a held call takes of the approvals' budget).
 */
export async function decide(
  deps: VerdictDeps,
  entry: ExposedTool,
  args: JsonObject,
  info: CallInfo,
  ctx: ToolContext,
  cancellation: Cancellation,
  decided: PolicyDecision,
  argumentsBytes?: number,
): Promise<Verdict> {
  const { action, reason } = decided;
  if (action === 'allow') return { decision: 'allowed', decidedBy: 'policy', reason, waited: 0 };
  if (action === 'deny') return { decision: 'denied', decidedBy: 'policy', reason, waited: 0 };
  const { approvals } = deps;
  let grant: GrantGiven | undefined;
  try {
    grant = await approvals.grantOf(info.caller, info.upstream, info.tool);
  } catch (error) {
    return storeDown(deps, error, entry.name);
  }
  if (grant !== undefined) {
    // The grant decided: its giver is who let the call through (the policy, for a grant that did not say).
    return {
      decision: 'remembered',
      decidedBy: grant.decidedBy ?? 'policy',
      reason: `${reason}; ${grantText(grant)}`,
      grant,
      waited: 0,
    };
  }
  let retry: boolean;
  try {
    retry = await approvals.retryPermits.take(retryKey(info));
  } catch (error) {
    return storeDown(deps, error, entry.name);
  }
  if (retry) {
    return {
      decision: 'approved',
      decidedBy: 'policy',
      reason: "the retry of an approved call, with the caller's input",
      waited: 0,
    };
  }
  const { approval, outcome } = approvals.ask(
    {
      caller: info.caller,
      upstream: info.upstream,
      tool: info.tool,
      exposedName: entry.name,
      ...(entry.tool.title === undefined ? {} : { title: entry.tool.title }),
      ...(entry.tool.description === undefined ? {} : { description: entry.tool.description }),
      ...(entry.tool.annotations === undefined ? {} : { annotations: entry.tool.annotations }),
      arguments: args,
      argumentsDigest: info.argumentsDigest,
      reason,
      callId: info.id,
    },
    signalOf(cancellation),
    argumentsBytes,
    () => deps.calls?.cancelledBy(info.id),
  );
  deps.calls?.awaiting(info.id, approval.id);
  let waited = 0;
  const tick = () => {
    waited++;
    const message = `Waiting for approval ${approval.id} of ${entry.name} (until ${approval.expiresAt})`;
    void ctx.progress(waited, undefined, message).catch(() => undefined);
  };
  const ticking = hasToken(ctx);
  if (ticking) tick();
  const timer = ticking ? setInterval(tick, deps.progressIntervalMs()) : undefined;
  let settled: ApprovalOutcome;
  try {
    settled = await outcome;
  } catch (error) {
    return { ...storeDown(deps, error, entry.name), approvalId: approval.id, waited };
  } finally {
    clearInterval(timer);
    deps.calls?.awaiting(info.id, undefined);
  }
  return { ...verdictOf(settled, reason), approvalId: approval.id, waited };
}

export function isAllowed(decision: CallDecision): boolean {
  return (
    decision === 'allowed' ||
    decision === 'approved' ||
    decision === 'approved-always' ||
    decision === 'remembered'
  );
}

function verdictOf(outcome: ApprovalOutcome, reason: string): Omit<Verdict, 'waited'> {
  switch (outcome.decision) {
    case 'approved':
      return {
        decision: outcome.always ? 'approved-always' : 'approved',
        decidedBy: outcome.decidedBy,
        reason: `${reason}; approved${outcome.always ? ' always' : ' once'}`,
      };
    case 'denied':
      return {
        decision: 'denied',
        decidedBy: outcome.decidedBy,
        reason: outcome.reason ?? 'denied by a person',
      };
    case 'expired':
      return { decision: 'expired', decidedBy: 'gateway', reason: 'no decision before the approval expired' };
    case 'withdrawn':
      return { decision: 'withdrawn', decidedBy: outcome.decidedBy ?? 'gateway', reason: outcome.reason };
  }
}

/** A grant in words: `approved always by NAME at TIME (approval ID, until TIME)`, what of it is known. */
function grantText(grant: GrantGiven): string {
  const by = grant.decidedBy === undefined ? '' : ` by ${grant.decidedBy}`;
  const at = grant.decidedAt === undefined ? ' earlier' : ` at ${grant.decidedAt}`;
  const about = [
    ...(grant.approvalId === undefined ? [] : [`approval ${grant.approvalId}`]),
    ...(grant.until === undefined ? [] : [`until ${grant.until}`]),
  ];
  return `approved always${by}${at}${about.length === 0 ? '' : ` (${about.join(', ')})`}`;
}

/** What the model reads when a person cancelled its call. */
export function cancelledBy(name: string, by: string): string {
  return `The call of ${name} was cancelled by ${by}.`;
}

/**
 * The verdict when the approval or grant store cannot be reached: the call is refused, saying which store and
 * operation failed, never why (Redis's reply, where Redis is): that goes to `reportError`.
 */
function storeDown(deps: VerdictDeps, error: unknown, name: string): Verdict {
  const failed = error instanceof Error ? error : new Error(errorMessage(error));
  deps.reportError(failed, `the call of ${name} could not be held for approval`);
  const details = (failed as { details?: { store?: unknown; operation?: unknown } }).details;
  const which =
    typeof details?.store === 'string' && typeof details.operation === 'string'
      ? `${details.store}: ${details.operation} failed`
      : 'a shared store failed';
  return {
    decision: 'denied',
    decidedBy: 'gateway',
    reason: `the approval store is unavailable (${which}); try again later`,
    waited: 0,
    unavailable: true,
  };
}

/** What the model reads when the gateway refuses a call. */
export function refusal(name: string, verdict: Omit<Verdict, 'waited'>): string {
  if (verdict.unavailable)
    return `The gateway could not hold the call of ${name} for approval: ${verdict.reason}.`;
  if (verdict.decision === 'expired')
    return `The gateway did not run ${name}: no one approved the call in time.`;
  if (verdict.decision === 'withdrawn') return `The gateway did not run ${name}: ${verdict.reason}.`;
  return verdict.decidedBy === 'policy'
    ? `The gateway's policy denies ${name}: ${verdict.reason}.`
    : `The call of ${name} was denied: ${verdict.reason}.`;
}

/** Whether the caller asked for progress (its request carries a progress token). */
export function hasToken(ctx: ToolContext): boolean {
  const token = ctx.meta?.progressToken;
  return typeof token === 'string' || typeof token === 'number';
}

/** Where the grant of an approved call's retry (with the caller's input) is kept. */
export function retryKey(info: CallInfo): string {
  return `${callerKey(info.caller)}\u0000${info.exposedName}\u0000${info.argumentsDigest}`;
}
