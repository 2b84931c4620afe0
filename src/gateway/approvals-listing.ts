/**
 * Approvals as the decision API lists them (`GET /api/approvals`, the event stream's `snapshot` and
 * `approval.*` events): whole, unless their arguments' JSON is longer than `LISTED_ARGUMENTS_BYTES`; then
 * without them, saying so (`argumentsOmitted`) and how long they are (`argumentsBytes`). The stores list
 * them so (`ApprovalStore.pending()`); an event's approval is listed here. Their digest is always there,
 * and `GET /api/approvals/ID` has them whole. So a listing of many approvals with large arguments stays
 * small enough to send, and the console and `toolwire approvals` can always list and decide. A listing says
 * how many approvals wait in all (`total`), and `truncated: true` when it stops short of them (the Redis
 * store's budget, 4,000 by default).
 * @module
 */
import type { PendingListing } from '../stores/approval-store.js';
import { listedApproval, type ListedApproval } from '../stores/listed-approval.js';
import type { GatewayEvent } from './gateway-events.js';

export { LISTED_ARGUMENTS_BYTES, listedApproval, type ListedApproval } from '../stores/listed-approval.js';

/** An event as the event stream sends it: the approval of an `approval.*` event as listed. */
export function streamedEvent(event: GatewayEvent): unknown {
  if (event.type === 'approval.pending' || event.type === 'approval.decided')
    return { ...event, approval: listedApproval(event.approval) };
  return event;
}

/** The pending approvals as `GET /api/approvals` and the `snapshot` give them. */
export interface ApprovalsListing {
  approvals: ListedApproval[];
  /** How many wait in all (see `PendingListing.total`). */
  total: number;
  /** Present when `approvals` stops short of `total`. */
  truncated?: true;
}

/** A store's listing as the decision API sends it. */
export function approvalsListing({ approvals, total }: PendingListing): ApprovalsListing {
  const listing: ApprovalsListing = { approvals: approvals.map(listedApproval), total };
  if (total > approvals.length) listing.truncated = true;
  return listing;
}
