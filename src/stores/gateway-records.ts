/**
 * What a gateway keeps in its stores, as plain JSON data: pending approvals and their outcomes, audit
 * records, with the caller they name, and the call log's calls. The gateway's stores (approvals, grants,
 * audit, calls) hold these, in memory or in Redis; `toolwire/gateway` re-exports them.
 * @module
 */
import type { JsonObject } from '../protocol/jsonrpc.js';
import type { CallToolResult } from '../protocol/types/tools.js';
import type { ToolAnnotations } from '../protocol/types/tools.js';

export interface GatewayCaller {
  /** The authenticated caller's subject; absent for anonymous callers. */
  principal?: string;
  /** The stateful HTTP session the call came on; absent on stdio and in the stateless era. */
  sessionId?: string;
}

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
  /** The call that asks: its id in the call log and the call events (`CallInfo.id`). */
  readonly callId?: number;
}

export type ApprovalOutcome =
  | { decision: 'approved'; always: boolean; decidedBy: string; decidedAt: string; until?: string }
  | { decision: 'denied'; reason?: string; decidedBy: string; decidedAt: string }
  | { decision: 'expired'; decidedAt: string }
  /** `decidedBy`: the person who cancelled the call (through the decision API), when one did. */
  | { decision: 'withdrawn'; reason: string; decidedAt: string; decidedBy?: string };

/**
 * The "approve always" grant that let a call through (`decision: 'remembered'`): the approval it was given
 * on, who gave it, when, and until when (absent: as long as the grant store keeps grants). A field is absent
 * where the grant did not say (one stored by an older gateway).
 */
export interface GrantGiven {
  approvalId?: string;
  decidedBy?: string;
  decidedAt?: string;
  until?: string;
}

/** How a call was let through, or not. */
export type CallDecision =
  'allowed' | 'approved' | 'approved-always' | 'remembered' | 'denied' | 'expired' | 'withdrawn';

/** How a call ended. */
export type CallOutcome =
  'ok' | 'tool-error' | 'error' | 'refused' | 'unavailable' | 'cancelled' | 'input_required';

export interface GatewayAuditRecord {
  /** Increases by one per record, from 1 (per store: instances sharing a store share the numbering). */
  seq: number;
  /**
   * When the call arrived, or when the decision was taken (ISO 8601). A call's record is written as it ends
   * (`time` + `durationMs`), so it follows the records made meanwhile: its decision's, for one.
   */
  time: string;
  kind: 'call' | 'decision';
  caller: GatewayCaller;
  upstream: string;
  /** The tool's own name upstream. */
  tool: string;
  /** `sha256:<hex>` of the arguments' canonical JSON. */
  argumentsDigest: string;
  decision: CallDecision;
  /** Why: the policy's rule or the annotations, the decider's reason. */
  reason?: string;
  /** Who decided: `policy`, or the decider (`api-token`, a principal's subject). */
  decidedBy: string;
  /** A call an "approve always" grant let through (`decision: 'remembered'`): that grant. */
  grant?: GrantGiven;
  /** The approval the call asked for (a call's record and its decision's have the same). */
  approvalId?: string;
  /**
   * The call's id (as in the `call.*` events and `GET /api/calls/ID`); a decision's: the call that asked, when
   * the gateway knows it.
   */
  callId?: number;
  /** Calls: how they ended, and how long they took (ms, arrival to answer). */
  outcome?: CallOutcome;
  durationMs?: number;
}

/** A call through the gateway, as its `call.*` events and the call log name it. */
export interface CallInfo {
  /**
   * Increases by one per call through this gateway (instances sharing a bus each take a range of 2^32; a
   * gateway without a bus starts after the highest id its call log keeps).
   */
  id: number;
  caller: GatewayCaller;
  upstream: string;
  tool: string;
  exposedName: string;
  argumentsDigest: string;
}

/** A call as the console lists it: who, what, how it went — without its arguments and result. */
export interface CallSummary {
  call: CallInfo;
  /** When it arrived (ISO 8601). */
  startedAt: string;
  state: 'running' | 'finished';
  /** The latest progress the upstream reported. */
  progress?: { progress: number; total?: number; message?: string };
  decision?: CallDecision;
  /** A call an "approve always" grant let through (`decision: 'remembered'`): that grant. */
  grant?: GrantGiven;
  /** How it ended; `lost`: the gateway instance running it stopped first (its process was killed). */
  outcome?: CallOutcome | 'lost';
  durationMs?: number;
  approvalId?: string;
  /**
   * While it waits for a person: the id of its pending approval (`GET /api/approvals/ID`); gone once the
   * approval is settled.
   */
  awaitingApproval?: string;
  /** Who cancelled it from the API, if someone did. */
  cancelledBy?: string;
  /** Whether the result is kept (`GET /api/calls/ID` has it). */
  hasResult: boolean;
  /** Why there is no result: too large to keep, or dropped to make room for newer ones. */
  resultDropped?: 'too-large' | 'evicted';
  /**
   * Why the arguments are not kept (`arguments` is then `{}`): larger than the store's `maxArgumentsBytes`,
   * or dropped to make room for newer calls (the memory store's `maxBytes`, once no older result is left).
   */
  argumentsDropped?: 'too-large' | 'evicted';
}

/** A call with its arguments and its result (or the error its caller got instead). */
export interface CallRecord extends CallSummary {
  arguments: JsonObject;
  result?: CallToolResult;
  error?: string;
}

/** How a call ended, as the call log records it. */
export interface CallEnd {
  decision: CallDecision;
  /** The "approve always" grant that let it through, for `decision: 'remembered'`. */
  grant?: GrantGiven;
  outcome: CallOutcome;
  durationMs: number;
  approvalId?: string;
  /** Who cancelled it from the API, if someone did. */
  cancelledBy?: string;
  result?: CallToolResult;
  error?: string;
}
