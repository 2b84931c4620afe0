/**
 * Approvals as the decision API lists them (`GET /api/approvals`, the event stream's `snapshot` and
 * `approval.*` events): whole, unless their arguments' JSON is longer than `LISTED_ARGUMENTS_BYTES`; then
 * without them, saying so (`argumentsOmitted`) and how long they are (`argumentsBytes`). The stores list
 * them so (`ApprovalStore.pending()`); an event's approval is listed here. Their digest is always there,
 * and `GET /api/approvals/ID` has them whole while the approval is pending. So a listing of many approvals with large arguments stays
 * small enough to send, and the console and `toolwire approvals` can always list and decide. A listing says
 * how many approvals wait in all (`total`). It is a page (`?limit=N`, `APPROVALS_PAGE_SIZE` by default,
 * `MAX_APPROVALS_PAGE_SIZE` at most; the Redis store's budget, 4,000 by default, bounds it too): when more
 * follow, `nextCursor` (opaque) lists the next page (`?cursor=…`) and `truncated: true` says so. The cursor is
 * the place of the page's last approval (creation time, id), so paging gives every approval pending
 * throughout exactly once while others are decided or arrive.
 * @module
 */
import type { PendingListing } from '../stores/approval-store.js';
import type { PendingPageOptions, PendingPosition } from '../stores/pending-position.js';
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
  /** Present when more pending approvals follow this page: `?cursor=` this lists them. */
  nextCursor?: string;
  /** Present when `approvals` stops short of the approvals pending (more follow, or the listing's budget). */
  truncated?: true;
}

/** Approvals a page of `GET /api/approvals` (and the event stream's snapshot) lists unless told. */
export const APPROVALS_PAGE_SIZE = 500;
/** Approvals a page lists at most (`?limit=` above it is an error). */
export const MAX_APPROVALS_PAGE_SIZE = 1_000;

/**
 * A store's listing as the decision API sends it; `firstPage`: it starts from the oldest (a store that does
 * not page lists from there, and stops short of `total` only at its budget).
 */
export function approvalsListing(
  { approvals, total, next }: PendingListing,
  firstPage = true,
): ApprovalsListing {
  const listing: ApprovalsListing = { approvals: approvals.map(listedApproval), total };
  if (next) listing.nextCursor = encodeCursor(next);
  if (next || (firstPage && total > approvals.length)) listing.truncated = true;
  return listing;
}

function encodeCursor({ createdAt, id }: PendingPosition): string {
  return Buffer.from(JSON.stringify([createdAt, id]), 'utf8').toString('base64url');
}

/** The page a request's `limit` and `cursor` ask for, or the Error that says what is wrong with them. */
export function approvalsPage(
  limit: number | undefined,
  cursor: string | null,
): (Required<Pick<PendingPageOptions, 'limit'>> & PendingPageOptions) | Error {
  const size = limit ?? APPROVALS_PAGE_SIZE;
  if (size > MAX_APPROVALS_PAGE_SIZE)
    return new Error(`limit must be at most ${MAX_APPROVALS_PAGE_SIZE}, got ${size}`);
  if (cursor === null) return { limit: size };
  const after = cursor.length <= 1_000 ? decodeCursor(cursor) : undefined;
  return after ? { limit: size, after } : new Error('cursor is not one this gateway gave (nextCursor)');
}

function decodeCursor(cursor: string): PendingPosition | undefined {
  if (!/^[\w-]+$/.test(cursor)) return undefined;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (!Array.isArray(parsed) || parsed.length !== 2) return undefined;
    const [createdAt, id] = parsed as unknown[];
    if (!Number.isSafeInteger(createdAt) || typeof id !== 'string' || id === '') return undefined;
    return { createdAt: createdAt as number, id };
  } catch {
    return undefined;
  }
}
