/**
 * An approval as it is listed (`ApprovalStore.pending()`, and from it the decision API's `GET
 * /api/approvals`, the event stream's `snapshot` and `approval.*` events): whole, unless its arguments'
 * JSON is longer than `LISTED_ARGUMENTS_BYTES`; then without them, saying so (`argumentsOmitted`) and how
 * long they are (`argumentsBytes`). Their digest is always there, and the store's `get(id)` (`GET
 * /api/approvals/ID`) has them whole while the approval is pending (a settled one is kept as listed). So a listing of many approvals with large arguments stays small,
 * wherever it is read from: a shared store does not send every pending approval's arguments — up to
 * 64 MiB per gateway instance — to every listing.
 * @module
 */
import type { JsonObject } from '../protocol/jsonrpc.js';
import type { PendingApproval } from './gateway-records.js';

/** Arguments whose JSON is longer than this (in bytes) are left out of listings and events. */
export const LISTED_ARGUMENTS_BYTES = 16 * 1024;

/** A pending approval as listed: its arguments left out when they are longer than `LISTED_ARGUMENTS_BYTES`. */
export type ListedApproval = Omit<PendingApproval, 'arguments'> & {
  /** The exact arguments, unless `argumentsOmitted`. */
  readonly arguments?: JsonObject;
  /**
   * The arguments were too long to list: the store's `get(id)` (`GET /api/approvals/ID`) has them while the
   * approval is pending (a settled one is kept as listed).
   */
  readonly argumentsOmitted?: true;
  /** The length of their JSON, in bytes (when omitted). */
  readonly argumentsBytes?: number;
};

/** `approval` as listed (one listed already is given back as it is). */
export function listedApproval(approval: PendingApproval | ListedApproval): ListedApproval {
  if (approval.arguments === undefined) return approval;
  const bytes = Buffer.byteLength(JSON.stringify(approval.arguments));
  if (bytes <= LISTED_ARGUMENTS_BYTES) return approval;
  const { arguments: _omitted, ...rest } = approval;
  return { ...rest, argumentsOmitted: true, argumentsBytes: bytes };
}
