/**
 * An approval as the decision API lists it (`GET /api/approvals`, the event stream's `snapshot` and
 * `approval.*` events): whole, unless its arguments' JSON is longer than `LISTED_ARGUMENTS_BYTES`; then
 * without them, saying so (`argumentsOmitted`) and how long they are (`argumentsBytes`). Their digest is
 * always there, and `GET /api/approvals/ID` has them whole. So a listing of many approvals with large
 * arguments stays small enough to send, and the console and `toolwire approvals` can always list and decide.
 * @module
 */
import type { JsonObject } from '../index.js';
import type { PendingApproval } from './approvals.js';
import type { GatewayEvent } from './gateway-events.js';

/** Arguments whose JSON is longer than this (in bytes) are left out of listings and events. */
export const LISTED_ARGUMENTS_BYTES = 16 * 1024;

/** A pending approval as listed: its arguments left out when they are longer than `LISTED_ARGUMENTS_BYTES`. */
export type ListedApproval = Omit<PendingApproval, 'arguments'> & {
  /** The exact arguments, unless `argumentsOmitted`. */
  readonly arguments?: JsonObject;
  /** The arguments were too long to list: `GET /api/approvals/ID` has them. */
  readonly argumentsOmitted?: true;
  /** The length of their JSON, in bytes (when omitted). */
  readonly argumentsBytes?: number;
};

export function listedApproval(approval: PendingApproval): ListedApproval {
  const bytes = Buffer.byteLength(JSON.stringify(approval.arguments));
  if (bytes <= LISTED_ARGUMENTS_BYTES) return approval;
  const { arguments: _omitted, ...rest } = approval;
  return { ...rest, argumentsOmitted: true, argumentsBytes: bytes };
}

/** An event as the event stream sends it: the approval of an `approval.*` event as listed. */
export function streamedEvent(event: GatewayEvent): unknown {
  if (event.type === 'approval.pending' || event.type === 'approval.decided')
    return { ...event, approval: listedApproval(event.approval) };
  return event;
}
