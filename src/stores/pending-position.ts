/**
 * Where a page of pending approvals starts: after an approval, in the order every listing gives them — by
 * creation time, then id (the order of the Redis store's index, a sorted set by creation time whose ties go
 * by member bytes). An approval keeps its place while others are decided, expire or arrive (a new one is
 * created later, so it goes last), so that paging with the position of each page's last approval gives every
 * approval pending throughout exactly once, whatever is decided meanwhile.
 * @module
 */
import type { PendingApproval } from './gateway-records.js';

/** An approval's place in the listing order: its creation time (ms since the epoch) and id. */
export interface PendingPosition {
  createdAt: number;
  id: string;
}

/** Which page of the pending approvals to list. */
export interface PendingPageOptions {
  /** List those after this position (default: from the oldest). */
  after?: PendingPosition;
  /** List at most this many (default and most: the store's budget). */
  limit?: number;
}

/** `approval`'s place in the listing order (a creation time that is not a date counts as 0). */
export function pendingPosition(approval: Pick<PendingApproval, 'createdAt' | 'id'>): PendingPosition {
  const createdAt = Date.parse(approval.createdAt);
  return { createdAt: Number.isFinite(createdAt) ? createdAt : 0, id: approval.id };
}

/** Negative when `a` lists before `b`, positive after, 0 for the same place; ids compare by code unit. */
export function comparePositions(a: PendingPosition, b: PendingPosition): number {
  if (a.createdAt !== b.createdAt) return a.createdAt - b.createdAt;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * One page of `waiting` (pending approvals, in any order): those after `page.after`, in listing order, at
 * most `page.limit`, with the position to go on from when more follow. Linear in `waiting` but for the sort
 * of what follows `after`.
 */
export function pageOf<T extends Pick<PendingApproval, 'createdAt' | 'id'>>(
  waiting: readonly T[],
  page: PendingPageOptions = {},
): { items: T[]; next?: PendingPosition } {
  const { after, limit = Infinity } = page;
  const placed = waiting.map((item) => ({ item, at: pendingPosition(item) }));
  const following = after ? placed.filter(({ at }) => comparePositions(at, after) > 0) : placed;
  following.sort((a, b) => comparePositions(a.at, b.at));
  const shown = following.slice(0, Math.max(0, limit));
  const last = shown.at(-1);
  return following.length > shown.length && last
    ? { items: shown.map(({ item }) => item), next: last.at }
    : { items: shown.map(({ item }) => item) };
}
