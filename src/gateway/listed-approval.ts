/**
 * Approvals as the decision API lists them (`GET /api/approvals`, the event stream's `snapshot` and
 * `approval.*` events): whole, unless their arguments' JSON is longer than `LISTED_ARGUMENTS_BYTES`; then
 * without them, saying so (`argumentsOmitted`) and how long they are (`argumentsBytes`). The stores list
 * them so (`ApprovalStore.pending()`); an event's approval is listed here. Their digest is always there,
 * and `GET /api/approvals/ID` has them whole. So a listing of many approvals with large arguments stays
 * small enough to send, and the console and `toolwire approvals` can always list and decide.
 * @module
 */
import { listedApproval } from '../stores/listed-approval.js';
import type { GatewayEvent } from './gateway-events.js';

export { LISTED_ARGUMENTS_BYTES, listedApproval, type ListedApproval } from '../stores/listed-approval.js';

/** An event as the event stream sends it: the approval of an `approval.*` event as listed. */
export function streamedEvent(event: GatewayEvent): unknown {
  if (event.type === 'approval.pending' || event.type === 'approval.decided')
    return { ...event, approval: listedApproval(event.approval) };
  return event;
}
